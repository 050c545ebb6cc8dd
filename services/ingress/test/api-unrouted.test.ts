import { startHarness, hook, type Harness } from './support/harness';

/**
 * An event on a topic with no hook (a typo in the sender's URL) is answered
 * 200 saying so, kept, listed by topic, and replayed to a hook registered
 * afterwards (runs of door api, not verified) or dropped.
 */
describe('unrouted events', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('the door says no hook is registered on the topic, keeps the event and counts it per topic', async () => {
    const r = await h.call('/universal_webhook/githib', { method: 'POST', json: { action: 'opened' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'accepted',
      runs: 0,
      run_ids: [],
      event_id: null,
      unrouted: true,
      message: "no hook is registered on topic 'githib'; the event is kept under GET /api/unrouted/githib",
    });
    expect(await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_unrouted_total')).toContain('tai42_hook_runs_unrouted_total{topic="githib"} 1');
  });

  it('lists the topic with counts, first/last seen and a sample; lists its events; a reader may read, not replay or drop', async () => {
    await h.call('/universal_webhook/githib', { method: 'POST', json: { n: 1 } });
    await h.call('/universal_webhook/githib', { method: 'POST', json: { n: 2 } });
    const list = await h.call('/api/unrouted', { role: 'reader' });
    expect(list.status).toBe(200);
    expect(list.body.topics).toEqual([
      {
        topic: 'githib',
        kept: 2,
        received: 2,
        first_seen: expect.any(String),
        last_seen: expect.any(String),
        sample: { n: 2 },
        sample_truncated: false,
      },
    ]);
    expect(list.body.bounds).toEqual({ keep: 100, topics: 1000, retention_seconds: 604800, max_bytes: 16777216, event_max_bytes: 65536 });
    expect(list.body.usage).toEqual({ events: 2, bytes: expect.any(Number), dropped: 0 });
    const events = await h.call('/api/unrouted/githib?limit=1', { role: 'reader' });
    expect(events.body.events).toEqual([
      expect.objectContaining({ payload: { n: 2 }, payload_truncated: false, door: 'http', verified: false, delivery_id: null }),
    ]);
    const older = await h.call(`/api/unrouted/githib?limit=1&cursor=${events.body.next_cursor}`, { role: 'reader' });
    expect(older.body).toMatchObject({ events: [expect.objectContaining({ payload: { n: 1 } })], next_cursor: null });
    expect((await h.call('/api/unrouted/githib/replay', { method: 'POST', role: 'reader' })).status).toBe(403);
    expect((await h.call('/api/unrouted/githib', { method: 'DELETE', role: 'reader' })).status).toBe(403);
    expect((await h.call('/api/unrouted/Bad.Topic', { role: 'reader' })).status).toBe(400);
  });

  it('replay with still no hook on the topic is 409 saying to register one first; nothing is removed', async () => {
    await h.call('/universal_webhook/githib', { method: 'POST', json: { n: 1 } });
    const r = await h.call('/api/unrouted/githib/replay', { method: 'POST', role: 'operator' });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/no hook is registered on topic 'githib'; register a hook on it first/);
    expect((await h.call('/api/unrouted', { role: 'reader' })).body.topics).toHaveLength(1);
  });

  it('replays the kept events to a hook registered afterwards: one run each, door api, not verified; the events are removed', async () => {
    await h.call('/universal_webhook/githib', { method: 'POST', json: { n: 1 } });
    await h.call('/universal_webhook/githib', { method: 'POST', json: { n: 2 } });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('late', 'githib') })).status).toBe(201);
    const r = await h.call('/api/unrouted/githib/replay', { method: 'POST', role: 'operator' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ topic: 'githib', replayed: 2, runs: 2, hooks: ['late'] });
    const runs = await Promise.all(r.body.run_ids.map((id: string) => h.stores.runs.get(id)));
    expect(runs.map((run) => [run?.hook, run?.door, run?.verified, run?.payload])).toEqual([
      ['late', 'api', false, { n: 1 }],
      ['late', 'api', false, { n: 2 }],
    ]);
    expect(h.bus.published.flat()).toEqual(expect.arrayContaining(r.body.run_ids));
    expect((await h.call('/api/unrouted', { role: 'reader' })).body.topics).toEqual([]);
  });

  it('a sample past 2 KiB of JSON is its start, marked truncated', async () => {
    await h.call('/universal_webhook/big', { method: 'POST', json: { text: 'x'.repeat(5000) } });
    const [row] = (await h.call('/api/unrouted', { role: 'reader' })).body.topics;
    expect(row.sample_truncated).toBe(true);
    expect(row.sample).toBe(`{"text":"${'x'.repeat(2048 - 9)}`);
  });

  it('an event past HOOKS_UNROUTED_EVENT_MAX_BYTES is listed payload_truncated; a replay skips it, says so, and leaves it listed', async () => {
    await h.close();
    h = await startHarness({ settings: { unroutedEventMaxBytes: 4096 } });
    await h.call('/universal_webhook/cut', { method: 'POST', json: { n: 1 } });
    await h.call('/universal_webhook/cut', { method: 'POST', json: { n: 2, text: 'x'.repeat(10_000) } });
    const listed = await h.call('/api/unrouted/cut', { role: 'reader' });
    const [big, small] = listed.body.events;
    expect(big).toMatchObject({ payload_truncated: true, payload: expect.stringMatching(/^\{"n":2,"text":"x+$/) });
    expect(Buffer.byteLength(JSON.stringify(big))).toBeLessThanOrEqual(4096);
    expect(small).toMatchObject({ payload_truncated: false, payload: { n: 1 } });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('late-cut', 'cut') })).status).toBe(201);
    const r = await h.call('/api/unrouted/cut/replay', { method: 'POST', role: 'operator' });
    expect(r.body).toMatchObject({ replayed: 1, runs: 1, skipped_truncated: 1 });
    expect(r.body.message).toMatch(
      /^1 event was kept truncated \(payload_truncated: past HOOKS_UNROUTED_EVENT_MAX_BYTES only the start was kept\) and not replayed/,
    );
    expect((await h.stores.runs.get(r.body.run_ids[0]))?.payload).toEqual({ n: 1 });
    expect((await h.call('/api/unrouted/cut', { role: 'reader' })).body.events).toEqual([expect.objectContaining({ id: big.id, payload_truncated: true })]);
  });

  it('an operator drops a topic’s events', async () => {
    await h.call('/universal_webhook/typo', { method: 'POST', json: {} });
    const r = await h.call('/api/unrouted/typo', { method: 'DELETE', role: 'operator' });
    expect(r.body).toEqual({ topic: 'typo', removed: 1 });
    expect((await h.call('/api/unrouted/typo', { role: 'reader' })).body.events).toEqual([]);
  });
});
