import { ManualClock } from '@hookyard/core';
import { hook, startHarness, type Harness } from './support/harness';

/** GET /api/stats/series: the store's per-minute counters as a series (reader and up). */
describe('management API: stats series', () => {
  let h: Harness;
  const start = Date.parse('2026-03-01T10:00:00Z');
  const clock = new ManualClock(start);

  beforeAll(async () => {
    h = await startHarness({ deps: { clock } });
    for (const [name, topic] of [
      ['ok-hook', 'st-ok'],
      ['bad-hook', 'st-bad'],
    ]) {
      await h.stores.hooks.putHook({ ...(hook(name!, topic!) as any), created_at: 'x', updated_at: 'x' });
    }
    // Minute 10:00: three runs of ok-hook succeed after 40 ms; two of bad-hook fail after 3 s.
    for (let i = 0; i < 3; i += 1) {
      const [kept] = await h.stores.runs.keepEvent({ topic: 'st-ok', payload: { i }, now: start + i, dispatchGraceMs: 0 });
      const c = await h.stores.runs.claim(kept!.id, 'w', 60_000, start + 10);
      await h.stores.runs.complete(kept!.id, c!.token, 'succeeded', null, start + 50);
    }
    for (let i = 0; i < 2; i += 1) {
      const [kept] = await h.stores.runs.keepEvent({ topic: 'st-bad', payload: { i }, now: start + i, dispatchGraceMs: 0 });
      const c = await h.stores.runs.claim(kept!.id, 'w', 60_000, start + 1_000);
      await h.stores.runs.fail(kept!.id, c!.token, { kind: 'unavailable', message: 'HTTP 500' }, start + 4_000);
    }
    clock.set(start + 5 * 60_000 + 30_000); // 10:05:30
  });
  afterAll(() => h.close());

  it('answers 60 one-minute points over the last hour with counts and percentiles, and the top failing hooks', async () => {
    const r = await h.call('/api/stats/series', { role: 'reader' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ window: '1h', hook: null, step_seconds: 60, to: '2026-03-01T10:06:00.000Z', hooks: ['bad-hook', 'ok-hook'] });
    expect(r.body.points).toHaveLength(60);
    const at10 = r.body.points.find((p: any) => p.at === '2026-03-01T10:00:00.000Z');
    expect(at10).toEqual({
      at: '2026-03-01T10:00:00.000Z',
      accepted: 5,
      succeeded: 3,
      failed: 2,
      skipped: 0,
      denied: 0,
      accept_to_start_ms: { count: 5, p50: 16, p95: 1024, p99: 1024 },
      tool_duration_ms: { count: 5, p50: 64, p95: 4096, p99: 4096 },
    });
    expect(r.body.top_failing).toEqual([{ hook: 'bad-hook', failed: 2, succeeded: 0, accepted: 2 }]);
  });

  it('narrows to one hook, and sums 15-minute steps over 24 h', async () => {
    const one = await h.call('/api/stats/series?hook=ok-hook', { role: 'reader' });
    expect(one.body.points.find((p: any) => p.accepted > 0)).toMatchObject({ accepted: 3, succeeded: 3, failed: 0, tool_duration_ms: { count: 3, p50: 64 } });
    const day = await h.call('/api/stats/series?window=24h', { role: 'operator' });
    expect(day.status).toBe(200);
    expect(day.body).toMatchObject({ window: '24h', step_seconds: 900, to: '2026-03-01T10:15:00.000Z' });
    expect(day.body.points).toHaveLength(96);
    expect(day.body.points.at(-1)).toMatchObject({ at: '2026-03-01T10:00:00.000Z', accepted: 5, failed: 2 });
  });

  it('refuses a bad window, a malformed hook, an unknown or repeated parameter with a 400 naming it', async () => {
    const cases: Array<[string, RegExp]> = [
      ['window=2h', /window must be one of 1h, 24h, got "2h"/],
      ['hook=Not%20A%20Hook', /hook must be a hook name.*got "Not A Hook"/],
      ['since=1', /unknown query parameter 'since'/],
      ['window=1h&window=24h', /window must be given once/],
    ];
    for (const [query, message] of cases) {
      const r = await h.call(`/api/stats/series?${query}`, { role: 'admin' });
      expect({ query, status: r.status, kind: r.body.error.kind }).toEqual({ query, status: 400, kind: 'bad_input' });
      expect(r.body.error.message).toMatch(message);
    }
  });

  it('needs a token of a management role: none is 401, an agent token 403', async () => {
    expect((await h.call('/api/stats/series')).status).toBe(401);
    const created = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'stats-bot', tools_allow: ['*'] } });
    expect(created.status).toBe(201);
    const r = await fetch(`${h.url}/api/stats/series`, { headers: { authorization: `Bearer ${created.body.token}` } });
    expect(r.status).toBe(403);
  });
});
