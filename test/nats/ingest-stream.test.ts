/**
 * The ingest stream on the real nats-server: its duplicate window does not
 * reach across topics (the door claims Nats-Msg-Id per topic itself), it is
 * bounded (a publish past HOOKS_NATS_INGEST_MAX_BYTES is refused while the
 * ingress is away, nothing it holds is dropped), and a stream made by an
 * earlier version is brought to this config at start.
 */
import { headers as natsHeaders, nanos, DiscardPolicy, RetentionPolicy, StorageType, type PubAck } from 'nats';
import { ManualClock, createMetrics, silentLogger, type Hook, type Logger } from '@hookyard/core';
import {
  INGEST_DUPLICATE_WINDOW_MS,
  INGEST_MAX_BYTES,
  createMemoryBus,
  createNatsIngest,
  ingestSubject,
  type IngestVerdict,
  type NatsIngest,
} from '@hookyard/bus';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { createMemoryStores } from '@hookyard/store';
import { createDedupeStep, createNatsIngestHandler } from '../../services/ingress/src/nats';
import { waitFor } from '../../packages/bus/test/support';
import { setupNats, type NatsSetup } from '../support/services';

const NOW = Date.parse('2025-01-01T00:00:00Z');

let jq: HookyardJqEngine;
let nats: NatsSetup;
const ingests: NatsIngest[] = [];
beforeAll(async () => {
  jq = await createJqEngine({ workers: 1 });
  nats = await setupNats('ingst');
});
afterAll(async () => {
  for (const i of ingests) await i.close().catch(() => undefined);
  await jq?.close();
  await nats?.close();
});

async function ingestOn(prefix: string, extra: { maxBytes?: number; logger?: Logger } = {}): Promise<NatsIngest> {
  const ingest = await createNatsIngest({ url: nats.url, prefix, ackWaitMs: 5000, retryDelayMs: 300, ...extra });
  ingests.push(ingest);
  return ingest;
}

/** The ingest stream of a sub-prefix (`<suite prefix>.w`): named under the suite's, so its cleanup deletes it. */
function ingestStream(prefix: string): string {
  return `${prefix.replace(/\./g, '_').toUpperCase()}_INGEST`;
}

function publish(prefix: string, topic: string, body: string, msgId?: string): Promise<PubAck> {
  const h = natsHeaders();
  if (msgId) h.set('Nats-Msg-Id', msgId);
  return nats.nc.jetstream().publish(ingestSubject(prefix, topic), body, { headers: h });
}

describe('the ingest stream', () => {
  it('a Nats-Msg-Id on a junk topic does not make the genuine message on another topic a duplicate: the genuine one is kept', async () => {
    const prefix = `${nats.prefix}.w`;
    const stores = createMemoryStores();
    const clock = new ManualClock(NOW);
    const at = new Date(NOW).toISOString();
    const hook: Hook = { name: 'on-orders', topic: 'orders', tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at };
    await stores.hooks.putHook(hook);
    const handler = createNatsIngestHandler({
      stores,
      bus: createMemoryBus(),
      metrics: createMetrics({ defaultMetrics: false }),
      logger: silentLogger(),
      clock,
      dispatchGraceMs: 15_000,
      bodyMaxBytes: 4096,
      dedupeTtlMs: 3_600_000,
      dedupe: createDedupeStep({ hooks: stores.hooks, jq, cacheMs: 0, now: () => clock.now() }),
    });
    const verdicts: Array<[string, IngestVerdict]> = [];
    const ingest = await ingestOn(prefix);
    await ingest.start(async (m) => {
      const v = await handler(m);
      verdicts.push([m.topic, v]);
      return v;
    });
    const junk = await publish(prefix, 'team-a-junk', '{"junk":true}', 'order-1234-opened');
    expect(junk.duplicate).toBe(false);
    await waitFor('the junk message handled', () => verdicts.length === 1);
    // JetStream's window cannot be turned off (100 ms is the least a server takes); past it, the id is the door's to judge, per topic.
    const junkAt = Date.now();
    await waitFor('past the stream-wide window', () => Date.now() - junkAt > INGEST_DUPLICATE_WINDOW_MS * 2);
    const genuine = await publish(prefix, 'orders', '{"order":1234}', 'order-1234-opened');
    expect(genuine.duplicate).toBe(false);
    await waitFor('the genuine message handled', () => verdicts.length === 2);
    expect(verdicts).toEqual([
      ['team-a-junk', 'accepted'],
      ['orders', 'accepted'],
    ]);
    const runs = (await stores.runs.list({ topic: 'orders' }, 10)).runs;
    expect(runs.map((r) => [r.hook, r.delivery_id, r.payload])).toEqual([['on-orders', 'order-1234-opened', { order: 1234 }]]);

    // The same id again on the same topic is still a duplicate: the door's claim, per topic.
    await waitFor('past the window again', () => Date.now() - junkAt > INGEST_DUPLICATE_WINDOW_MS * 4);
    expect((await publish(prefix, 'orders', '{"order":1234}', 'order-1234-opened')).duplicate).toBe(false);
    await waitFor('the repeat handled', () => verdicts.length === 3);
    expect(verdicts[2]).toEqual(['orders', 'duplicate']);
    expect((await stores.runs.list({ topic: 'orders' }, 10)).runs).toHaveLength(1);
  }, 30_000);

  it('is bounded: while the ingress is away a publish past its bytes is refused, and everything it holds is delivered later', async () => {
    const prefix = `${nats.prefix}.b`;
    const ingest = await ingestOn(prefix, { maxBytes: 8 * 1024 });
    const info = await (await nats.jsm()).streams.info(ingestStream(prefix));
    expect({ max_bytes: info.config.max_bytes, discard: info.config.discard }).toEqual({ max_bytes: 8 * 1024, discard: DiscardPolicy.New });

    // Nobody consumes: a publisher fills the stream until the server refuses it.
    const body = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(1000) });
    let accepted = 0;
    let refusal: unknown = null;
    for (let i = 0; i < 100 && refusal === null; i++) {
      try {
        await publish(prefix, 'orders', body(i));
        accepted++;
      } catch (err) {
        refusal = err;
      }
    }
    // nats.js says "503"; the server's answer says why (JetStream error 10077).
    expect((refusal as { api_error?: unknown }).api_error).toEqual({ code: 503, err_code: 10077, description: 'maximum bytes exceeded' });
    expect(accepted).toBeGreaterThan(3);
    const held = await (await nats.jsm()).streams.info(ingestStream(prefix));
    expect(held.state.messages).toBe(accepted);
    expect(held.state.first_seq).toBe(1);
    expect(held.state.bytes).toBeLessThanOrEqual(8 * 1024);

    // The ingress back: every event the server accepted arrives, the first one included.
    const got: number[] = [];
    await ingest.start(async (m) => {
      got.push((JSON.parse(Buffer.from(m.data).toString('utf8')) as { i: number }).i);
      return 'accepted';
    });
    await waitFor('every held event delivered', () => got.length === accepted);
    expect(got.sort((a, b) => a - b)).toEqual([...Array(accepted).keys()]);
  }, 30_000);

  it('a stream an earlier version made (2-minute window, unbounded) is brought to the window and bound at start; one holding more keeps all it holds', async () => {
    const jsm = await nats.jsm();
    const old = (prefix: string) =>
      jsm.streams.add({
        name: ingestStream(prefix),
        subjects: [`${prefix}.ingest.>`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        max_age: nanos(7 * 24 * 3600 * 1000),
        duplicate_window: nanos(120_000),
      });
    const small = `${nats.prefix}.u`;
    await old(small);
    await publish(small, 'orders', '{"n":1}');
    await ingestOn(small);
    const updated = await jsm.streams.info(ingestStream(small));
    expect({
      window: updated.config.duplicate_window,
      max_bytes: updated.config.max_bytes,
      discard: updated.config.discard,
      messages: updated.state.messages,
    }).toEqual({
      window: nanos(INGEST_DUPLICATE_WINDOW_MS),
      max_bytes: INGEST_MAX_BYTES,
      discard: DiscardPolicy.New,
      messages: 1,
    });

    // Already past the bound: the server would drop the oldest to fit, so the bound waits for a start that finds it under.
    const full = `${nats.prefix}.f`;
    await old(full);
    for (let i = 0; i < 8; i++) await publish(full, 'orders', JSON.stringify({ i, pad: 'x'.repeat(500) }));
    const warnings: Record<string, unknown>[] = [];
    const logger = Object.assign(Object.create(silentLogger()), { warn: (o: Record<string, unknown>) => void warnings.push(o) }) as Logger;
    await ingestOn(full, { maxBytes: 2048, logger });
    const kept = await jsm.streams.info(ingestStream(full));
    expect({ window: kept.config.duplicate_window, max_bytes: kept.config.max_bytes, messages: kept.state.messages }).toEqual({
      window: nanos(INGEST_DUPLICATE_WINDOW_MS),
      max_bytes: -1,
      messages: 8,
    });
    expect(warnings).toEqual([expect.objectContaining({ stream: ingestStream(full), max_bytes: 2048, bytes: kept.state.bytes })]);
  }, 30_000);
});
