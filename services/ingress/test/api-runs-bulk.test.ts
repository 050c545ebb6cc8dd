import { hook, startHarness, type Harness } from './support/harness';

/** Bulk retry and discard by filter, replay of one run, and the list filters they share. */
describe('management API: bulk verbs, replay and run filters', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    for (const [name, topic] of [
      ['ba', 'bulk-a'],
      ['bb', 'bulk-b'],
      ['bc', 'bulk-c'],
    ]) {
      await h.stores.hooks.putHook({ ...(hook(name!, topic!) as any), created_at: 'x', updated_at: 'x' });
    }
  });
  afterAll(() => h.close());

  /** Keeps one run on `topic` at `now` and holds it as failed. */
  async function failed(topic: string, now: number, acted?: 'resume'): Promise<string> {
    const [kept] = await h.stores.runs.keepEvent({ topic, payload: { now }, deliveryId: `d-${now}`, now, dispatchGraceMs: 15000 });
    const c = await h.stores.runs.claim(kept!.id, 'w', 30000, now);
    if (acted) await h.stores.runs.act(kept!.id, c!.token, { acted, actedIds: ['i-1'] }, now);
    await h.stores.runs.fail(kept!.id, c!.token, { kind: 'internal', message: 'tool broke' }, now);
    return kept!.id;
  }

  it('POST /api/hook-runs/retry: a dry run counts and changes nothing; the real one retries, publishes and counts refusals', async () => {
    const t = Date.parse('2026-03-01T10:00:00Z');
    const ids = [await failed('bulk-a', t), await failed('bulk-a', t + 60_000), await failed('bulk-a', t + 120_000, 'resume')];
    const other = await failed('bulk-b', t + 60_000);
    const filter = { hook: 'ba', since: '2026-03-01T10:00:30Z' };
    const dry = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ dry_run: true, matched: 2, retried: 0, refused: 0, refusals: [], truncated: false, tool_called_again: 0 });
    expect((await h.stores.runs.get(ids[1]!))?.status).toBe('failed');

    const before = h.bus.published.length;
    const r = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter } });
    expect(r.body).toEqual({
      dry_run: false,
      matched: 2,
      retried: 1,
      refused: 1,
      truncated: false,
      tool_called_again: 0,
      refusals: [{ id: ids[2], message: `run ${ids[2]} committed a resume on i-1; it cannot be retried, only discarded` }],
    });
    expect((await h.stores.runs.get(ids[1]!))?.status).toBe('pending');
    expect((await h.stores.runs.get(ids[0]!))?.status).toBe('failed');
    expect((await h.stores.runs.get(other))?.status).toBe('failed');
    expect(h.bus.published.slice(before).flat()).toEqual([ids[1]]);
  });

  it('POST /api/hook-runs/discard: needs a status; discards what matches', async () => {
    const t = Date.parse('2026-03-02T10:00:00Z');
    const [a, b] = [await failed('bulk-c', t), await failed('bulk-c', t + 1)];
    const noStatus = await h.call('/api/hook-runs/discard', { method: 'POST', role: 'operator', json: { filter: { hook: 'bc' } } });
    expect(noStatus.status).toBe(400);
    expect(noStatus.body.error.details).toEqual(['filter.status is required for a bulk discard (e.g. "failed"), so no call discards every run']);
    const r = await h.call('/api/hook-runs/discard', { method: 'POST', role: 'operator', json: { filter: { status: 'failed', topic: 'bulk-c' } } });
    expect(r.body).toMatchObject({ matched: 2, discarded: 2, refused: 0 });
    for (const id of [a, b]) expect((await h.stores.runs.get(id))?.status).toBe('discarded');
  });

  it('bulk: a reader is 403; bad bodies are one 400 line per miss', async () => {
    expect((await h.call('/api/hook-runs/retry', { method: 'POST', role: 'reader', json: { filter: {} } })).status).toBe(403);
    const r = await h.call('/api/hook-runs/retry', {
      method: 'POST',
      role: 'operator',
      json: { filter: { status: 'pending', colour: 'red', since: 'yesterday', hook: 7 }, dry_run: 'yes', extra: 1 },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      "unknown field 'extra' (known: filter, dry_run)",
      "unknown filter field 'colour' (known: status, hook, agent, topic, delivery_id, since, until, kind, fingerprint)",
      'filter.hook must be a string, got 7',
      'filter.since must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got "yesterday"',
      'filter.status must be failed for a retry (only a failed run can be retried), got "pending"',
      'dry_run must be true or false, got "yes"',
    ]);
  });

  it('GET /api/hook-runs filters by delivery_id, since and until', async () => {
    const t = Date.parse('2026-03-03T10:00:00Z');
    const ids = [await failed('bulk-b', t), await failed('bulk-b', t + 1000), await failed('bulk-b', t + 2000)];
    const list = async (q: string) => (await h.call(`/api/hook-runs?hook=bb&${q}`, { role: 'reader' })).body.runs.map((r: any) => r.id);
    expect(await list(`delivery_id=d-${t + 1000}`)).toEqual([ids[1]]);
    expect(await list('since=2026-03-03T10:00:01Z&until=2026-03-03T10:00:02Z')).toEqual([ids[2], ids[1]]);
    expect(await list('since=2026-03-03T10:00:00.001Z&until=2026-03-03T10:00:01.999Z')).toEqual([ids[1]]);
    const bad = await h.call('/api/hook-runs?since=2026-03-03T10:00:02Z&until=2026-03-03T10:00:01Z', { role: 'reader' });
    expect(bad.body.error.details).toEqual(['since must not be after until, got since=2026-03-03T10:00:02.000Z until=2026-03-03T10:00:01.000Z']);
  });

  it('POST /api/hook-runs/{id}/replay: a new run of the event for the hook as registered now, published, replay_of recorded', async () => {
    const src = await failed('bulk-a', Date.parse('2026-03-04T10:00:00Z'));
    await h.stores.hooks.putHook({ ...(hook('ba', 'bulk-a2') as any), created_at: 'x', updated_at: 'x' });
    const before = h.bus.published.length;
    const r = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ hook: 'ba', topic: 'bulk-a2', status: 'pending', replay_of: src, payload: { now: Date.parse('2026-03-04T10:00:00Z') } });
    expect(h.bus.published.slice(before)).toEqual([[r.body.id]]);
    expect((await h.call(`/api/hook-runs/${src}`, { role: 'reader' })).body.status).toBe('failed');
    // The replay is pending: replaying it is refused until it ends.
    const again = await h.call(`/api/hook-runs/${r.body.id}/replay`, { method: 'POST', role: 'operator' });
    expect(again.status).toBe(409);
    await h.stores.hooks.removeHook('ba');
    const gone = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator' });
    expect(gone.status).toBe(409);
    expect(gone.body.error.message).toBe(`run ${src} was of hook ba, which is no longer registered; register it again to replay the event`);
    expect((await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'reader' })).status).toBe(403);
  });
});
