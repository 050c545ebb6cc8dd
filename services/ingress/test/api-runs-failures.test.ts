import { failureFingerprint, type ErrorKind } from '@hookyard/core';
import { hook, startHarness, type Harness } from './support/harness';

/**
 * Failures grouped by cause: `GET /api/hook-runs/failures` groups the newest
 * failed runs by hook, error kind and message fingerprint over a bounded
 * window; the run list and the bulk retry / discard take `kind` and
 * `fingerprint`, so one group is listed and acted on alone.
 */
describe('management API: failures grouped by cause', () => {
  let h: Harness;
  const T = Date.parse('2026-04-01T10:00:00Z');
  const REFUSED = failureFingerprint('connect ECONNREFUSED 10.0.0.1:1');
  const QUOTA = failureFingerprint('quota exceeded for a@example.com');

  beforeAll(async () => {
    h = await startHarness();
    for (const [name, topic] of [
      ['orders', 'fl-orders'],
      ['billing', 'fl-billing'],
      ['window', 'fl-window'],
      ['grp', 'fl-grp'],
    ]) {
      await h.stores.hooks.putHook({ ...(hook(name!, topic!) as any), created_at: 'x', updated_at: 'x' });
    }
  });
  afterAll(() => h.close());

  /** Keeps one run on `topic` at `at` and holds it as failed (at `at + 1s`) with this error. */
  async function failed(topic: string, at: number, kind: ErrorKind, message: string): Promise<string> {
    const [kept] = await h.stores.runs.keepEvent({ topic, payload: { at }, now: at, dispatchGraceMs: 15000 });
    const c = await h.stores.runs.claim(kept!.id, 'w', 30000, at);
    await h.stores.runs.fail(kept!.id, c!.token, { kind, message }, at + 1000);
    return kept!.id;
  }

  const failures = async (q = '', role: 'reader' | 'operator' = 'reader') => h.call(`/api/hook-runs/failures${q}`, { role });

  it('groups failed runs by hook, kind and fingerprint: count, first and last seen, the newest as sample; most runs first', async () => {
    const a1 = await failed('fl-orders', T, 'unavailable', 'connect ECONNREFUSED 10.0.0.5:8080');
    await failed('fl-orders', T + 60_000, 'unavailable', 'connect ECONNREFUSED 10.0.0.7:9090');
    const a3 = await failed('fl-orders', T + 120_000, 'unavailable', 'connect ECONNREFUSED [::1]:443');
    const q1 = await failed('fl-orders', T + 30_000, 'bad_input', 'quota exceeded for ann@example.com');
    const b1 = await failed('fl-billing', T + 90_000, 'unavailable', 'connect ECONNREFUSED 10.0.0.5:8080');
    // A run that is not failed is not grouped.
    await h.stores.runs.keepEvent({ topic: 'fl-orders', payload: {}, now: T + 200_000, dispatchGraceMs: 15000 });

    const r = await failures('?since=2026-04-01T09:00:00Z');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      groups: [
        {
          hook: 'orders',
          agent: null,
          kind: 'unavailable',
          fingerprint: REFUSED,
          pattern: 'connect ECONNREFUSED <ip>',
          sample_message: 'connect ECONNREFUSED [::1]:443',
          sample_run: a3,
          count: 3,
          first_seen: new Date(T + 1000).toISOString(),
          last_seen: new Date(T + 121_000).toISOString(),
        },
        expect.objectContaining({ hook: 'billing', kind: 'unavailable', fingerprint: REFUSED, count: 1, sample_run: b1 }),
        expect.objectContaining({ hook: 'orders', kind: 'bad_input', fingerprint: QUOTA, pattern: 'quota exceeded for <email>', count: 1, sample_run: q1 }),
      ],
      group_count: 3,
      window: { max: 5000, scanned: 5, cut: false, oldest: new Date(T).toISOString() },
    });
    expect(r.body.groups[0].first_seen < r.body.groups[0].last_seen).toBe(true);
    expect(a1 < a3).toBe(true);

    // Filters: hook, kind, fingerprint, since (creation time); limit cuts the groups, not the count.
    const byHook = await failures('?hook=orders&kind=unavailable');
    expect(byHook.body.groups.map((g: any) => [g.hook, g.kind, g.count])).toEqual([['orders', 'unavailable', 3]]);
    expect((await failures(`?fingerprint=${QUOTA}`)).body.groups.map((g: any) => g.sample_run)).toEqual([q1]);
    const since = await failures('?since=2026-04-01T10:01:00Z');
    expect(since.body.groups.map((g: any) => [g.hook, g.count])).toEqual([
      ['orders', 2],
      ['billing', 1],
    ]);
    const top = await failures('?limit=1');
    expect({ n: top.body.groups.length, count: top.body.group_count }).toEqual({ n: 1, count: 3 });
  });

  it('scans a bounded window of the newest failed runs and says when it was cut', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await failed('fl-window', T + 3_600_000 + i * 1000, 'timeout', `tool timed out after ${1000 + i} ms`));
    const cut = await failures('?hook=window&window=3');
    expect(cut.body).toEqual({
      groups: [expect.objectContaining({ hook: 'window', kind: 'timeout', pattern: 'tool timed out after <n> ms', count: 3, sample_run: ids[4] })],
      group_count: 1,
      window: { max: 3, scanned: 3, cut: true, oldest: new Date(T + 3_600_000 + 2000).toISOString() },
    });
    const whole = await failures('?hook=window&window=5');
    expect(whole.body.window).toEqual({ max: 5, scanned: 5, cut: false, oldest: new Date(T + 3_600_000).toISOString() });
    expect(whole.body.groups[0].count).toBe(5);
    // Nothing failed for this filter: no groups, nothing scanned.
    expect((await failures('?hook=grp&kind=internal')).body).toEqual({
      groups: [],
      group_count: 0,
      window: { max: 5000, scanned: 0, cut: false, oldest: null },
    });
  });

  it('needs a token (reader and up); bad parameters are one 400 line each; "failures" is never read as a run id', async () => {
    expect((await h.call('/api/hook-runs/failures')).status).toBe(401);
    for (const role of ['reader', 'operator', 'admin'] as const) expect((await h.call('/api/hook-runs/failures', { role })).status).toBe(200);
    const bad = await failures('?kind=broken&fingerprint=XYZ&window=0&limit=900&hook=a&agent=b&colour=red&since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      "unknown query parameter 'colour' (known: hook, agent, kind, fingerprint, since, window, limit)",
      'give hook or agent, not both: an agent call is not a hook run',
      'kind must be an error kind, one of bad_input|unauthorized|forbidden|not_found|conflict|cancelled|unavailable|timeout|internal|outcome_unknown|operator_failed, got "broken"',
      'fingerprint must be 16 lowercase hex characters (a failure group\'s fingerprint), got "XYZ"',
      'since must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got "yesterday"',
      'window must be a whole number from 1 to 5000, got "0"',
      'limit must be a whole number from 1 to 500, got "900"',
    ]);
    const list = await h.call('/api/hook-runs?fingerprint=nothex', { role: 'reader' });
    expect(list.body.error.details).toEqual(['fingerprint must be 16 lowercase hex characters (a failure group\'s fingerprint), got "nothex"']);
  });

  it('one group is listed, retried and discarded alone: runs of another group with the same hook and kind are untouched', async () => {
    const t = T + 7_200_000;
    const group = [
      await failed('fl-grp', t, 'unavailable', 'connect ECONNREFUSED 10.0.0.5:8080'),
      await failed('fl-grp', t + 1000, 'unavailable', 'connect ECONNREFUSED 10.0.0.6:8081'),
    ];
    const sameHookAndKind = await failed('fl-grp', t + 2000, 'unavailable', 'HTTP 503 from upstream');
    const sameFingerprintOtherKind = await failed('fl-grp', t + 3000, 'internal', 'connect ECONNREFUSED 10.0.0.7:8082');
    const otherHook = await failed('fl-orders', t + 4000, 'unavailable', 'connect ECONNREFUSED 10.0.0.8:8083');
    const filter = { status: 'failed', hook: 'grp', kind: 'unavailable', fingerprint: REFUSED };

    const listed = await h.call(`/api/hook-runs?hook=grp&status=failed&kind=unavailable&fingerprint=${REFUSED}&limit=1`, { role: 'reader' });
    const next = await h.call(`/api/hook-runs?hook=grp&status=failed&kind=unavailable&fingerprint=${REFUSED}&limit=1&cursor=${listed.body.next_cursor}`, {
      role: 'reader',
    });
    expect([...listed.body.runs, ...next.body.runs].map((r: any) => r.id)).toEqual([group[1], group[0]]);

    expect((await h.call('/api/hook-runs/retry', { method: 'POST', role: 'reader', json: { filter } })).status).toBe(403);
    const dry = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter, dry_run: true } });
    expect(dry.body).toMatchObject({ dry_run: true, matched: 2, retried: 0 });
    const before = h.bus.published.length;
    const retried = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter } });
    expect(retried.body).toEqual({ dry_run: false, matched: 2, retried: 2, refused: 0, refusals: [], truncated: false, tool_called_again: 0 });
    expect(h.bus.published.slice(before).flat().sort()).toEqual([...group].sort());
    const status = async (id: string) => (await h.stores.runs.get(id))?.status;
    for (const id of group) expect(await status(id)).toBe('pending');
    for (const id of [sameHookAndKind, sameFingerprintOtherKind, otherHook]) expect(await status(id)).toBe('failed');

    // The group is empty now; the others are as they were.
    const after = await failures('?hook=grp');
    expect(after.body.groups.map((g: any) => [g.kind, g.pattern, g.count])).toEqual([
      ['internal', 'connect ECONNREFUSED <ip>', 1],
      ['unavailable', 'HTTP <n> from upstream', 1],
    ]);

    // Discard one group the same way: the group of the HTTP 503.
    const http = after.body.groups.find((g: any) => g.kind === 'unavailable');
    const discard = { status: 'failed', hook: 'grp', kind: 'unavailable', fingerprint: http.fingerprint };
    expect((await h.call('/api/hook-runs/discard', { method: 'POST', role: 'reader', json: { filter: discard } })).status).toBe(403);
    const discarded = await h.call('/api/hook-runs/discard', { method: 'POST', role: 'operator', json: { filter: discard } });
    expect(discarded.body).toMatchObject({ matched: 1, discarded: 1, refused: 0 });
    expect(await status(sameHookAndKind)).toBe('discarded');
    for (const id of [sameFingerprintOtherKind, otherHook]) expect(await status(id)).toBe('failed');
    for (const id of group) expect(await status(id)).toBe('pending');

    const badFilter = await h.call('/api/hook-runs/discard', {
      method: 'POST',
      role: 'operator',
      json: { filter: { ...discard, kind: 'oops', fingerprint: 'x' } },
    });
    expect(badFilter.body.error.details).toEqual([
      'filter.kind must be an error kind, one of bad_input|unauthorized|forbidden|not_found|conflict|cancelled|unavailable|timeout|internal|outcome_unknown|operator_failed, got "oops"',
      'filter.fingerprint must be 16 lowercase hex characters (a failure group\'s fingerprint), got "x"',
    ]);
  });
});
