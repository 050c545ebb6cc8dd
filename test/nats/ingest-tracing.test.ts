/**
 * The NATS door with tracing on (the SDK in this process, in-memory
 * exporter): a message's traceparent header is continued, the runs keep the
 * ingest span's traceparent, and the dispatch carries the publish span's.
 */
import { ManualClock, createMetrics, parseTraceparent, silentLogger } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createMemoryStores } from '@hookyard/store';
import { createNatsIngestHandler } from '../../services/ingress/src/nats';
import { newTraceparent, parentOf, startInMemoryTracing } from '../support/tracing';

const NOW = Date.parse('2025-01-01T00:00:00Z');

async function setup() {
  const stores = createMemoryStores();
  const bus = createMemoryBus();
  const dispatched: { id: string; traceparent: string | undefined }[] = [];
  await bus.subscribe(async (id, traceparent) => void dispatched.push({ id, traceparent }), { concurrency: 4 });
  const at = new Date(NOW).toISOString();
  await stores.hooks.putHook({ name: 'h1', topic: 'orders', tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at });
  const handler = createNatsIngestHandler({
    stores,
    bus,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger(),
    clock: new ManualClock(NOW),
    dispatchGraceMs: 15_000,
    bodyMaxBytes: 1024,
  });
  const send = (headers: Record<string, string>) => handler({ topic: 'orders', data: new TextEncoder().encode('{"n":1}'), headers, msgId: null });
  return { stores, dispatched, send };
}

describe('NATS door: tracing', () => {
  let sdk: ReturnType<typeof startInMemoryTracing>;
  beforeEach(() => {
    sdk = startInMemoryTracing();
  });
  afterEach(async () => {
    await sdk.stop();
  });

  it("continues the message's traceparent: ingest span, keep and publish under it; runs and dispatch carry the trace", async () => {
    const t = await setup();
    const sender = newTraceparent();
    expect(await t.send({ traceparent: sender.traceparent, 'content-type': 'application/json' })).toBe('accepted');
    const spans = sdk.spans().filter((s) => s.spanContext().traceId === sender.traceId);
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect({ name, count: found.length }).toEqual({ name, count: 1 });
      return found[0]!;
    };
    const ingest = one('hookyard.ingest');
    expect(parentOf(ingest)).toBe(sender.spanId);
    expect(ingest.attributes).toMatchObject({ 'hookyard.topic': 'orders', 'hookyard.ingest.verdict': 'accepted' });
    expect(parentOf(one('hookyard.keep'))).toBe(ingest.spanContext().spanId);
    const publish = one('hookyard.publish');
    expect(parentOf(publish)).toBe(ingest.spanContext().spanId);

    const [run] = (await t.stores.runs.list({ hook: 'h1' }, 10, null)).runs;
    expect(run!.traceparent).toBe(`00-${sender.traceId}-${ingest.spanContext().spanId}-01`);
    await new Promise((r) => setImmediate(r));
    expect(t.dispatched).toEqual([{ id: run!.id, traceparent: `00-${sender.traceId}-${publish.spanContext().spanId}-01` }]);
  });

  it('starts a trace for a message without one', async () => {
    const t = await setup();
    expect(await t.send({})).toBe('accepted');
    const [run] = (await t.stores.runs.list({ hook: 'h1' }, 10, null)).runs;
    const p = parseTraceparent(run!.traceparent);
    expect(p).not.toBeNull();
    const ingest = sdk.spans().find((s) => s.name === 'hookyard.ingest')!;
    expect(ingest.spanContext()).toMatchObject({ traceId: p!.traceId, spanId: p!.spanId });
    expect(parentOf(ingest)).toBeUndefined();
  });
});
