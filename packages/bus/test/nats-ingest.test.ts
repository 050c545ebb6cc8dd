import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createNatsIngest, INGEST_CONSUMER, ingestSubject, type IngestMessage, type NatsIngest } from '../src';
import { sleep, waitFor } from './support';

let url: string;
let admin: NatsConnection;

beforeAll(async () => {
  url = await requireNats();
  admin = await connect({ servers: url });
});
afterAll(async () => {
  await admin?.close();
});

describe('NATS ingest', () => {
  let prefix: string;
  let ingest: NatsIngest;
  beforeEach(async () => {
    prefix = uniquePrefix('ing');
    ingest = await createNatsIngest({ url, prefix, ackWaitMs: 1000, retryDelayMs: 300 });
  });
  afterEach(async () => {
    await ingest.close();
    const jsm = await admin.jetstreamManager();
    await jsm.streams.delete(`${prefix.toUpperCase()}_INGEST`).catch(() => undefined);
  });

  /** Every message settled at the server (acked or terminated): none can come back. */
  const settled = async () => {
    const info = await admin.jetstreamManager().then((jsm) => jsm.consumers.info(`${prefix.toUpperCase()}_INGEST`, INGEST_CONSUMER));
    return info.num_ack_pending === 0 && info.num_pending === 0 && info.num_redelivered === 0 ? info : null;
  };

  const send = async (topic: string, body: string, msgId?: string, extra: Record<string, string> = {}) => {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    return admin.jetstream().publish(ingestSubject(prefix, topic), body, { msgID: msgId, headers: h });
  };

  it('hands over topic, bytes, headers and the Nats-Msg-Id, then acks', async () => {
    const got: IngestMessage[] = [];
    await ingest.start(async (m) => {
      got.push(m);
      return 'accepted';
    });
    await send('orders', '{"id":1}', 'delivery-1', { 'X-Source': 'billing' });
    await send('orders', 'plain', undefined);
    await waitFor('two events', () => got.length === 2);
    const first = got.find((m) => m.msgId === 'delivery-1')!;
    expect(first.topic).toBe('orders');
    expect(Buffer.from(first.data).toString()).toBe('{"id":1}');
    expect(first.headers['x-source']).toBe('billing');
    expect(got.find((m) => m.msgId === null)?.topic).toBe('orders');
    // The acks reach the server after the handler returned: wait for them, bounded.
    await waitFor('both messages acked', async () => (await settled()) !== null);
  });

  it('resize: a live HOOKS_MAX_WORKERS lets more messages in at once; the ones in flight go on', async () => {
    const held: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await ingest.start(
      async (m) => {
        held.push(m.msgId ?? '');
        await gate;
        return 'accepted';
      },
      { concurrency: 1 },
    );
    for (let i = 0; i < 4; i += 1) await send('orders', `{"i":${i}}`, `r-${i}`);
    await waitFor('one message held', () => held.length === 1);
    expect(() => ingest.resize(0)).toThrow('ingest concurrency must be a positive integer, got 0');
    ingest.resize(4);
    await waitFor('four messages held', () => held.length === 4);
    release();
    await waitFor('all acked', async () => (await settled()) !== null);
    expect(new Set(held).size).toBe(4);
  });

  it('does not redeliver a message the handler rejected', async () => {
    const calls: string[] = [];
    await ingest.start(async (m) => {
      calls.push(m.topic);
      return m.topic === 'bad' ? 'rejected' : 'accepted';
    });
    await send('bad', 'x', 'd-bad');
    await send('good', 'y', 'd-good');
    await waitFor('both events', () => calls.length >= 2);
    // Settled at the server (the rejected one terminated, not left to its ack wait): it cannot come back.
    await waitFor('both messages settled', async () => (await settled()) !== null);
    expect(calls.sort()).toEqual(['bad', 'good']);
  });

  it('redelivers a message whose handler threw, with the same msgId', async () => {
    const attempts: Array<string | null> = [];
    await ingest.start(async (m) => {
      attempts.push(m.msgId);
      if (attempts.length < 3) throw new Error('store down');
      return 'accepted';
    });
    await send('orders', 'z', 'd-retry');
    await waitFor('a third delivery', () => attempts.length >= 3);
    // Acked after the third try: nothing left pending or waiting at the server, so no fourth delivery.
    await waitFor('the message acked', async () => {
      const info = await admin.jetstreamManager().then((jsm) => jsm.consumers.info(`${prefix.toUpperCase()}_INGEST`, INGEST_CONSUMER));
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
    expect(attempts).toEqual(['d-retry', 'd-retry', 'd-retry']);
  });

  it('shares one durable consumer between two replicas', async () => {
    const other = await createNatsIngest({ url, prefix });
    try {
      const seen = new Map<string, number>();
      const handler = async (m: IngestMessage) => {
        seen.set(m.msgId!, (seen.get(m.msgId!) ?? 0) + 1);
        await sleep(5);
        return 'accepted' as const;
      };
      await ingest.start(handler, { concurrency: 2 });
      await other.start(handler, { concurrency: 2 });
      for (let i = 0; i < 30; i += 1) await send('t', `${i}`, `m-${i}`);
      await waitFor('30 distinct deliveries', () => seen.size === 30);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
