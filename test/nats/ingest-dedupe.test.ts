/**
 * The NATS door with a topic's dedupe key: a message without Nats-Msg-Id
 * takes the key's value as its delivery id (claimed in the keep), a
 * Nats-Msg-Id wins over the key, a key that yields no scalar rejects the
 * message (terminated, nothing kept). First on the handler, then through
 * JetStream with the real ingest consumer.
 */
import { headers as natsHeaders } from 'nats';
import { ManualClock, createMetrics, silentLogger, type Hook } from '@hookyard/core';
import { createMemoryBus, createNatsIngest, ingestSubject, type IngestMessage, type IngestVerdict, type NatsIngest } from '@hookyard/bus';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createDedupeStep, createNatsIngestHandler } from '../../services/ingress/src/nats';
import { waitFor } from '../../packages/bus/test/support';
import { setupNats, type NatsSetup } from '../support/services';

const NOW = Date.parse('2025-01-01T00:00:00Z');

function hook(name: string, topic: string): Hook {
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: new Date(NOW).toISOString(), updated_at: new Date(NOW).toISOString() };
}

function message(topic: string, body: string, headers: Record<string, string> = {}, msgId: string | null = null): IngestMessage {
  return { topic, data: new TextEncoder().encode(body), headers, msgId };
}

let jq: HookyardJqEngine;
beforeAll(async () => {
  jq = await createJqEngine({ workers: 1 });
});
afterAll(async () => {
  await jq.close();
});

async function setup(stores: Stores = createMemoryStores()) {
  const clock = new ManualClock(NOW);
  const metrics = createMetrics({ defaultMetrics: false });
  const warnings: Record<string, unknown>[] = [];
  const logger = Object.assign(Object.create(silentLogger()), { warn: (o: Record<string, unknown>) => void warnings.push(o) });
  await stores.hooks.putHook(hook('h1', 'orders'));
  const at = new Date(NOW).toISOString();
  await stores.hooks.putDedupe({ topic: 'orders', expr: '.body.id // .headers["x-event-id"]', horizon_seconds: 3600, created_at: at, updated_at: at });
  const handler = createNatsIngestHandler({
    stores,
    bus: createMemoryBus(),
    metrics,
    logger,
    clock,
    dispatchGraceMs: 15_000,
    bodyMaxBytes: 4096,
    dedupeTtlMs: 3_600_000,
    dedupe: createDedupeStep({ hooks: stores.hooks, jq, cacheMs: 0, now: () => clock.now() }),
  });
  const runs = async () => (await stores.runs.list({ topic: 'orders' }, 100)).runs;
  return { stores, handler, runs, warnings, clock };
}

describe('NATS ingest handler with a dedupe key', () => {
  it('keeps the same body once and acknowledges the second as duplicate; different ids twice; no id every time', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{"id":"o-1"}'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":"o-1"}'))).toBe('duplicate');
    expect(await t.handler(message('orders', '{"id":"o-2"}'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":null}'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":null}'))).toBe('accepted');
    const runs = await t.runs();
    expect(runs).toHaveLength(4);
    expect(runs.map((r) => r.delivery_id ?? null).sort()).toEqual([null, null, 'o-1', 'o-2']);
  });

  it('reads the message headers (lower-cased names) and takes a number as its text', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{"v":1}', { 'x-event-id': 'h-1' }))).toBe('accepted');
    expect(await t.handler(message('orders', '{"v":2}', { 'x-event-id': 'h-1' }))).toBe('duplicate');
    expect(await t.handler(message('orders', '{"id":7}'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":7}'))).toBe('duplicate');
    expect((await t.runs()).map((r) => r.delivery_id).sort()).toEqual(['7', 'h-1']);
  });

  it('lets Nats-Msg-Id win over the dedupe key', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{"id":"same"}', {}, 'm-1'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":"same"}', {}, 'm-2'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"id":"other"}', {}, 'm-2'))).toBe('duplicate');
    expect((await t.runs()).map((r) => r.delivery_id).sort()).toEqual(['m-1', 'm-2']);
  });

  it('rejects a message whose key is not a string or number, naming the expression and the value; nothing kept', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{"id":[1,2]}'))).toBe('rejected');
    expect(t.warnings.at(-1)?.reason).toBe(
      'dedupe key ".body.id // .headers[\\"x-event-id\\"]" yielded [1,2]; it must yield a string or a number (null or "" keeps without dedupe)',
    );
    expect(await t.runs()).toHaveLength(0);
  });

  it('throws (the message is redelivered) when the key cannot be read', async () => {
    const inner = createMemoryStores();
    const t = await setup({
      ...inner,
      hooks: Object.assign(Object.create(inner.hooks), { getDedupe: async () => Promise.reject(new Error('store out of reach')) }),
    });
    await expect(t.handler(message('orders', '{"id":"x"}'))).rejects.toThrow('store out of reach');
    expect(await inner.runs.list({ topic: 'orders' }, 10).then((r) => r.runs)).toHaveLength(0);
  });
});

describe('NATS door with a dedupe key, through JetStream', () => {
  let nats: NatsSetup;
  let prefix: string;
  let ingest: NatsIngest;
  beforeAll(async () => {
    nats = await setupNats('ingdd');
    prefix = nats.prefix;
    ingest = await createNatsIngest({ url: nats.url, prefix, ackWaitMs: 5000, retryDelayMs: 300 });
  });
  afterAll(async () => {
    await ingest?.close();
    await nats?.close();
  });

  it('keeps a retried event once (same body, no Nats-Msg-Id), different ids and null ids each time', async () => {
    const t = await setup();
    const verdicts: IngestVerdict[] = [];
    await ingest.start(async (m) => {
      const v = await t.handler(m);
      verdicts.push(v);
      return v;
    });
    const send = (body: string, extra: Record<string, string> = {}) => {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(extra)) h.set(k, v);
      return nats.nc.jetstream().publish(ingestSubject(prefix, 'orders'), body, { headers: h });
    };
    // One at a time, so each verdict is known before the next is sent.
    const sent: Array<[string, Record<string, string>?]> = [
      ['{"id":"j-1"}'],
      ['{"id":"j-1"}'],
      ['{"id":"j-2"}'],
      ['{"n":1}', { 'X-Event-Id': 'j-h' }],
      ['{"n":2}', { 'X-Event-Id': 'j-h' }],
      ['{"id":null}'],
      ['{"id":null}'],
    ];
    for (const [i, [body, extra]] of sent.entries()) {
      await send(body, extra);
      await waitFor(`verdict ${i + 1}`, () => verdicts.length === i + 1);
    }
    expect(verdicts).toEqual(['accepted', 'duplicate', 'accepted', 'accepted', 'duplicate', 'accepted', 'accepted']);
    expect((await t.runs()).map((r) => r.delivery_id ?? null).sort()).toEqual(['j-1', 'j-2', 'j-h', null, null]);
  });
});
