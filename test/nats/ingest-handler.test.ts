/**
 * The NATS door's handler over the in-memory store and bus: the same payload
 * rules as the HTTP door, Hookyard's own Nats-Msg-Id dedupe (independent of
 * JetStream's stream-wide 100 ms window, claimed in the same atomic step as the keep),
 * rejections recorded, and a keep that fails throwing so the message comes back.
 */
import { HookyardError, ManualClock, createMetrics, silentLogger, type Hook, type Logger } from '@hookyard/core';
import { createMemoryBus, createMemoryRunEventPublisher, type IngestMessage } from '@hookyard/bus';
import { createMemoryStores } from '@hookyard/store';
import { createNatsIngestHandler } from '../../services/ingress/src/nats';

const NOW = Date.parse('2025-01-01T00:00:00Z');

function hook(name: string, topic: string): Hook {
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: new Date(NOW).toISOString(), updated_at: new Date(NOW).toISOString() };
}

function message(topic: string, body: string | Uint8Array, headers: Record<string, string> = {}, msgId: string | null = null): IngestMessage {
  return {
    topic,
    data: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    headers,
    msgId,
  };
}

function recordingLogger(): Logger & { warnings: Record<string, unknown>[] } {
  const base = silentLogger();
  const warnings: Record<string, unknown>[] = [];
  return Object.assign(Object.create(base) as Logger, {
    warnings,
    warn: (obj: unknown) => {
      warnings.push(obj as Record<string, unknown>);
    },
  });
}

async function setup(opts: { clock?: ManualClock } = {}) {
  const clock = opts.clock ?? new ManualClock(NOW);
  const stores = createMemoryStores();
  const bus = createMemoryBus();
  const published: string[] = [];
  await bus.subscribe(async (id) => void published.push(id), { concurrency: 4 });
  const metrics = createMetrics({ defaultMetrics: false });
  const logger = recordingLogger();
  await stores.hooks.putHook(hook('h1', 'orders'));
  await stores.hooks.putHook(hook('h2', 'orders'));
  const events = createMemoryRunEventPublisher();
  const handler = createNatsIngestHandler({ stores, bus, metrics, logger, clock, dispatchGraceMs: 15_000, bodyMaxBytes: 1024, dedupeTtlMs: 3_600_000, events });
  const runsOf = async (hookName: string) => (await stores.runs.list({ hook: hookName }, 500, null)).runs;
  const verdicts = async () => {
    const m = await metrics.registry.getSingleMetricAsString('tai42_hook_runs_ingest_messages_total');
    return m;
  };
  return { stores, bus, published, metrics, logger, handler, runsOf, verdicts, clock, events };
}

describe('createNatsIngestHandler', () => {
  it('keeps a JSON object as the payload of one run per hook and publishes the run ids', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{"n":1}', { 'content-type': 'application/json' }, 'm-1'))).toBe('accepted');
    const [r1, r2] = [await t.runsOf('h1'), await t.runsOf('h2')];
    expect(r1).toHaveLength(1);
    expect(r2).toHaveLength(1);
    expect(r1[0]!.payload).toEqual({ n: 1 });
    expect(r1[0]!.delivery_id).toBe('m-1');
    await new Promise((r) => setImmediate(r));
    expect(t.published.sort()).toEqual([r1[0]!.id, r2[0]!.id].sort());
    // Each kept run is announced as accepted, from what the door held (no store read): its id, hook, topic and created_at.
    expect(t.events.published.map((e) => [e.run_id, e.event, e.hook, e.topic, e.status, e.created_at]).sort()).toEqual(
      [r1[0]!, r2[0]!].map((r) => [r.id, 'accepted', r.hook, 'orders', 'pending', r.created_at]).sort(),
    );
  });

  it('reads a message without Content-Type as JSON, and other types by the HTTP door rules', async () => {
    const t = await setup();
    await t.handler(message('orders', '{"a":true}'));
    await t.handler(message('orders', '[1,2]', { 'content-type': 'application/json' }));
    await t.handler(message('orders', 'hello', { 'content-type': 'text/plain' }));
    await t.handler(message('orders', new Uint8Array([0, 255, 1]), { 'content-type': 'application/octet-stream' }));
    await t.handler(message('orders', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }));
    const payloads = (await t.runsOf('h1')).map((r) => r.payload);
    expect(payloads).toEqual(
      expect.arrayContaining([
        { a: true },
        { body: [1, 2] },
        { raw_body: 'hello' },
        { raw_body_base64: Buffer.from([0, 255, 1]).toString('base64') },
        { a: '1', b: '2' },
      ]),
    );
    expect(payloads).toHaveLength(5);
  });

  it('dedupes on Nats-Msg-Id by its own claim, whatever JetStream let through', async () => {
    const clock = new ManualClock(NOW);
    const t = await setup({ clock });
    expect(await t.handler(message('orders', '{"n":1}', {}, 'dup'))).toBe('accepted');
    // Ten minutes later: far past JetStream's own duplicate window, well inside Hookyard's claim (1 h here).
    clock.advance(10 * 60_000);
    expect(await t.handler(message('orders', '{"n":1}', {}, 'dup'))).toBe('duplicate');
    // Past the claim's TTL the id is a new delivery again.
    clock.advance(3_600_000);
    expect(await t.handler(message('orders', '{"n":1}', {}, 'dup'))).toBe('accepted');
    // The same id on another topic is another delivery.
    await t.stores.hooks.putHook(hook('h3', 'refunds'));
    expect(await t.handler(message('refunds', '{"n":1}', {}, 'dup'))).toBe('accepted');
    // Without an id every message is a new event.
    expect(await t.handler(message('orders', '{"n":1}'))).toBe('accepted');
    expect(await t.runsOf('h1')).toHaveLength(3);
    expect(await t.verdicts()).toMatch(/verdict="duplicate"} 1/);
  });

  it.each([
    ['a bad topic', message('Orders', '{}'), /topic "Orders" must match/],
    ['a dotted subject tail', message('orders.eu', '{}'), /must match/],
    ['invalid JSON declared as JSON', message('orders', '{nope', { 'content-type': 'application/json' }), /not valid JSON/],
    ['invalid JSON with no Content-Type', message('orders', 'plain words'), /not valid JSON/],
    [
      'a multipart file',
      message('orders', '--x\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhi\r\n--x--\r\n', {
        'content-type': 'multipart/form-data; boundary=x',
      }),
      /file/,
    ],
    ['a body over the cap', message('orders', JSON.stringify({ s: 'x'.repeat(2000) })), /larger than 1024 bytes/],
    ['an overlong Nats-Msg-Id', message('orders', '{}', {}, 'i'.repeat(300)), /Nats-Msg-Id/],
    ['a forged platform event', message('hooks_run_failed', '{"run_id":"x"}'), /reserved for platform events/],
    ['a forged approval request', message('hooks_approval_requested', '{"interaction":"x"}'), /topic hooks_approval_requested is reserved for platform events/],
  ])('rejects %s, keeps nothing and records it (WARN + counter)', async (_what, msg, reason) => {
    const t = await setup();
    expect(await t.handler(msg)).toBe('rejected');
    expect(await t.runsOf('h1')).toHaveLength(0);
    expect(t.logger.warnings).toHaveLength(1);
    expect(String(t.logger.warnings[0]!.reason)).toMatch(reason);
    expect(await t.verdicts()).toMatch(/verdict="rejected"} 1/);
  });

  it('does not claim the id of a rejected body, so a corrected resend is kept', async () => {
    const t = await setup();
    expect(await t.handler(message('orders', '{bad', {}, 'fix-me'))).toBe('rejected');
    expect(await t.handler(message('orders', '{"ok":1}', {}, 'fix-me'))).toBe('accepted');
  });

  it('a keep that did not commit throws (the message comes back) and claims nothing, so the redelivery is kept', async () => {
    const t = await setup();
    const keep = t.stores.runs.keepDelivery.bind(t.stores.runs);
    let fail = true;
    t.stores.runs.keepDelivery = async (input, claim) => {
      if (fail) throw new HookyardError('unavailable', 'redis keep_event not sent: connection is reconnecting', { notSent: true });
      return keep(input, claim);
    };
    await expect(t.handler(message('orders', '{"n":7}', {}, 'retry-me'))).rejects.toThrow('not sent');
    expect(await t.runsOf('h1')).toHaveLength(0);
    fail = false;
    expect(await t.handler(message('orders', '{"n":7}', {}, 'retry-me'))).toBe('accepted');
    expect(await t.runsOf('h1')).toHaveLength(1);
    expect(await t.verdicts()).toMatch(/verdict="failed"} 1/);
  });

  it('a keep that committed but whose answer was lost throws; the redelivery of the unacked message is a duplicate, kept once', async () => {
    const t = await setup();
    const keep = t.stores.runs.keepDelivery.bind(t.stores.runs);
    let lose = true;
    t.stores.runs.keepDelivery = async (input, claim) => {
      const out = await keep(input, claim);
      if (lose) throw new HookyardError('unavailable', 'redis keep_event outcome unknown: Command timed out', { outcomeUnknown: true });
      return out;
    };
    await expect(t.handler(message('orders', '{"n":8}', {}, 'kept-once'))).rejects.toThrow('outcome unknown');
    lose = false;
    expect(await t.handler(message('orders', '{"n":8}', {}, 'kept-once'))).toBe('duplicate');
    expect(await t.runsOf('h1')).toHaveLength(1);
    expect(await t.runsOf('h2')).toHaveLength(1);
  });

  it('accepts an event on a topic with no hooks, keeping nothing', async () => {
    const t = await setup();
    expect(await t.handler(message('nobody-listens', '{}', {}, 'x'))).toBe('accepted');
    expect(await t.stores.runs.list({}, 10, null)).toMatchObject({ runs: [] });
  });

  it('keeps an event on a topic with no hook as unrouted (door nats, its Nats-Msg-Id), counted per topic, when given the bounds', async () => {
    const t = await setup();
    const unrouted = { keep: 10, topics: 10, retentionMs: 60_000, maxBytes: 65_536, eventMaxBytes: 4096 };
    const handler = createNatsIngestHandler({ ...t, dispatchGraceMs: 0, bodyMaxBytes: 1024, unrouted });
    expect(await handler(message('ordres', '{"n":1}', {}, 'm-typo'))).toBe('accepted');
    const page = await t.stores.runs.listUnrouted('ordres', NOW - 1, 10);
    expect(page.events.map(({ id: _id, ...e }) => e)).toEqual([
      {
        topic: 'ordres',
        payload: { n: 1 },
        payload_truncated: false,
        door: 'nats',
        verified: false,
        delivery_id: 'm-typo',
        received_at: new Date(NOW).toISOString(),
      },
    ]);
    expect(await t.metrics.registry.getSingleMetricAsString('tai42_hook_runs_unrouted_total')).toContain('{topic="ordres"} 1');
  });
});
