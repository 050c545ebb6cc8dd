import { argsHash } from '@hookyard/core';
import { hook, startHarness, type Harness } from './support/harness';

describe('management API: hook runs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    for (const [name, topic] of [
      ['ra', 'runs-a'],
      ['rb', 'runs-b'],
    ]) {
      await h.stores.hooks.putHook({ ...(hook(name!, topic!) as any), created_at: 'x', updated_at: 'x' });
    }
    for (let i = 0; i < 5; i++) await h.call('/universal_webhook/runs-a', { method: 'POST', json: { i } });
    await h.call('/universal_webhook/runs-b', { method: 'POST', json: { b: true } });
  });
  afterAll(() => h.close());

  /** Drives a run to `failed`, optionally after its hook committed an act. */
  async function failRun(topic: string, acted?: 'resume' | 'start'): Promise<string> {
    const [kept] = await h.stores.runs.keepEvent({ topic, payload: { f: 1 }, now: Date.now(), dispatchGraceMs: 15000 });
    const claimed = await h.stores.runs.claim(kept!.id, 'test-worker', 30000, Date.now());
    if (!claimed) throw new Error('could not claim');
    if (acted) await h.stores.runs.act(kept!.id, claimed.token, { acted, actedIds: ['i-1'] }, Date.now());
    await h.stores.runs.fail(kept!.id, claimed.token, { kind: 'bad_input', message: 'condition raised' }, Date.now());
    return kept!.id;
  }

  it('pages through a topic with the cursor, newest first, without repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/api/hook-runs?topic=runs-a&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await h.call(q, { role: 'reader' });
      expect(r.status).toBe(200);
      expect(r.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.runs.map((x: any) => x.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('filters by hook and status (AND) and includes the payload', async () => {
    const r = await h.call('/api/hook-runs?hook=rb&status=pending', { role: 'reader' });
    expect(r.body.runs).toHaveLength(1);
    expect(r.body.runs[0]).toMatchObject({ hook: 'rb', topic: 'runs-b', status: 'pending', payload: { b: true }, attempts: 0, acted: '' });
    expect((await h.call('/api/hook-runs?hook=rb&status=failed', { role: 'reader' })).body.runs).toHaveLength(0);
  });

  it("filters an agent's calls with ?agent= (they never mix with hook runs), names the agent on each run, and refuses to replay one", async () => {
    const call = {
      tool: 'echo',
      arguments: { text: 'hi' },
      args_sha256: argsHash({ text: 'hi' }),
      tools_allow: null,
      idempotency_key: 'k-list',
      via: 'http' as const,
    };
    const kept = await h.stores.runs.keepAgentCall({ agent: 'lister', call, now: Date.now(), dispatchGraceMs: 15000, keyTtlMs: 60000 });
    const r = await h.call('/api/hook-runs?agent=lister', { role: 'reader' });
    expect(r.status).toBe(200);
    expect(r.body.runs).toHaveLength(1);
    expect(r.body.runs[0]).toMatchObject({ id: kept.id, agent: 'lister', hook: 'agent:lister', topic: 'tools/call', door: 'agent', payload: call });
    expect((await h.call('/api/hook-runs?hook=ra&limit=1', { role: 'reader' })).body.runs[0].agent).toBeNull();
    const both = await h.call('/api/hook-runs?agent=lister&hook=ra', { role: 'reader' });
    expect(both.status).toBe(400);
    expect(both.body.error.details).toEqual(['give hook or agent, not both: an agent call is not a hook run']);
    const claimed = await h.stores.runs.claim(kept.id, 'test-worker', 30000, Date.now());
    await h.stores.runs.complete(kept.id, claimed!.token, 'succeeded', { text: 'hi' }, Date.now());
    const replay = await h.call(`/api/hook-runs/${kept.id}/replay`, { method: 'POST', role: 'operator' });
    expect(replay.status).toBe(409);
    expect(replay.body.error.message).toMatch(/is a call of agent:lister: an agent's call is not replayed by an operator/);
  });

  it.each([
    ['status=bogus', /^status must be one of pending\|running/],
    ['limit=0', /^limit must be a whole number from 1 to 500/],
    ['limit=501', /^limit must be a whole number from 1 to 500/],
    ['hook=Bad!', /^hook must match/],
    ['agent=Bad!', /^agent must match/],
    ['colour=red', /^unknown query parameter 'colour'/],
    ['status=failed&status=pending', /^status must be given once/],
  ])('refuses a bad filter %s with 400', async (query, line) => {
    const r = await h.call(`/api/hook-runs?${query}`, { role: 'reader' });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toContainEqual(expect.stringMatching(line));
  });

  it('explains a failed run: status, attempts, error, acted, history; lease shown with owner/until', async () => {
    const id = await failRun('runs-b', 'resume');
    const r = await h.call(`/api/hook-runs/${id}`, { role: 'reader' });
    expect(r.body).toMatchObject({
      id,
      status: 'failed',
      attempts: 1,
      error: { kind: 'bad_input', message: 'condition raised' },
      acted: 'resume',
      acted_ids: ['i-1'],
    });
    expect(Array.isArray(r.body.history)).toBe(true);
    expect(r.body.history.length).toBeGreaterThan(0);
    for (const key of ['claim_intent', 'result', 'input', 'created_at', 'updated_at', 'started_at', 'finished_at', 'due_at', 'lease'])
      expect(r.body).toHaveProperty(key);
  });

  it('refuses to retry a run whose hook committed a resume (409 with the store message), discard works', async () => {
    const id = await failRun('runs-b', 'resume');
    const r = await h.call(`/api/hook-runs/${id}/retry`, { method: 'POST', role: 'operator' });
    expect(r.status).toBe(409);
    expect(r.body.error.kind).toBe('conflict');
    let storeMessage = '';
    await h.stores.runs.retry(id, Date.now()).catch((err: Error) => (storeMessage = err.message));
    expect(r.body.error.message).toBe(storeMessage);
    expect(storeMessage).toMatch(/resume/);
    const d = await h.call(`/api/hook-runs/${id}`, { method: 'DELETE', role: 'operator' });
    expect(d.status).toBe(200);
    expect(d.body.status).toBe('discarded');
    const again = await h.call(`/api/hook-runs/${id}`, { method: 'DELETE', role: 'operator' });
    expect(again.status).toBe(409);
  });

  it('retries a failed run as a fresh run and publishes its id', async () => {
    const id = await failRun('runs-b');
    const before = h.bus.published.length;
    const r = await h.call(`/api/hook-runs/${id}/retry`, { method: 'POST', role: 'operator' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'pending', attempts: 0, error: null });
    expect(h.bus.published.slice(before)).toEqual([[id]]);
  });

  it('GET /api/hook-runs/counts: the unfinished states, exact, moving with each transition; no query parameters', async () => {
    const before = (await h.call('/api/hook-runs/counts', { role: 'reader' })).body;
    expect(Object.keys(before).sort()).toEqual(['failed', 'parked', 'pending', 'retry_wait', 'running']);
    const id = await failRun('runs-b');
    const after = await h.call('/api/hook-runs/counts', { role: 'reader' });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ ...before, failed: before.failed + 1 });
    await h.call(`/api/hook-runs/${id}/retry`, { method: 'POST', role: 'operator' });
    expect((await h.call('/api/hook-runs/counts', { role: 'reader' })).body).toEqual({ ...before, pending: before.pending + 1 });
    const bad = await h.call('/api/hook-runs/counts?status=failed', { role: 'reader' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(["unknown query parameter 'status'"]);
    expect((await h.call('/api/hook-runs/counts')).status).toBe(401);
  });

  it('answers 404 for unknown and malformed run ids', async () => {
    expect((await h.call('/api/hook-runs/0000000000000000000000', { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/hook-runs/not-an-id', { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/hook-runs/0000000000000000000000/retry', { method: 'POST', role: 'operator' })).status).toBe(404);
  });
});
