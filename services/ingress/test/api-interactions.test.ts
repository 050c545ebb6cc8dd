import { hook, startHarness, type Harness } from './support/harness';

describe('management API: interactions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.stores.hooks.putHook({ ...(hook('waiter', 'waits') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(() => h.close());

  /** Keeps a run and parks it on a new wait interaction (as the wait tool does). */
  async function parked(): Promise<{ run: string; id: string }> {
    const [kept] = await h.stores.runs.keepEvent({ topic: 'waits', payload: {}, now: Date.now(), dispatchGraceMs: 15000 });
    const c = await h.stores.runs.claim(kept!.id, 'test-worker', 30000, Date.now());
    const { interaction } = await h.stores.interactions.park({
      run: kept!.id,
      token: c!.token,
      kind: 'wait',
      tool: 'wait',
      argsHash: 'a'.repeat(64),
      expiresAt: Date.now() + 3_600_000,
      now: Date.now(),
    });
    return { run: kept!.id, id: interaction.id };
  }

  it('lists parked runs with their open interaction ids, and the interactions with filters', async () => {
    const a = await parked();
    const runs = await h.call('/api/hook-runs?status=parked', { role: 'reader' });
    expect(runs.status).toBe(200);
    expect(runs.body.runs).toContainEqual(expect.objectContaining({ id: a.run, status: 'parked', parked_on: [a.id], lease: null }));
    const list = await h.call(`/api/interactions?status=open&kind=wait&hook=waiter&run=${a.run}`, { role: 'reader' });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ interactions: [{ id: a.id, run: a.run, kind: 'wait', status: 'open' }], next_cursor: null });
    const one = await h.call(`/api/interactions/${a.id}`, { role: 'reader' });
    expect(one.body).toMatchObject({ id: a.id, tool: 'wait', args_hash: 'a'.repeat(64), resolution: null });
  });

  it('pages with the cursor, newest first', async () => {
    for (let i = 0; i < 3; i += 1) await parked();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { body: { interactions: Array<{ id: string }>; next_cursor: string | null } } = await h.call(
        `/api/interactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { role: 'reader' },
      );
      seen.push(...r.body.interactions.map((x) => x.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('an operator cancels: the parked run ends cancelled; a second cancel is 409 naming the first; a reader is 403', async () => {
    const a = await parked();
    expect((await h.call(`/api/interactions/${a.id}/cancel`, { method: 'POST', role: 'reader', json: {} })).status).toBe(403);
    const r = await h.call(`/api/interactions/${a.id}/cancel`, { method: 'POST', role: 'operator', json: { reason: 'not needed' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'cancelled',
      resolution: { by: expect.stringMatching(/^operator:[0-9a-f]{8}$/), via: 'api', reason: 'not needed' },
    });
    expect((await h.stores.runs.get(a.run))?.status).toBe('cancelled');
    const again = await h.call(`/api/interactions/${a.id}/cancel`, { method: 'POST', role: 'operator' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(new RegExp(`^interaction ${a.id} is already cancelled \\(by operator:[0-9a-f]{8} via api at `));
  });

  it.each([
    ['/api/interactions?status=bogus', 400, /^status must be one of open\|approved/],
    ['/api/interactions?kind=job', 400, /^kind must be one of approval\|wait/],
    ['/api/interactions?run=x', 400, /^run must be a run id/],
    ['/api/interactions?cursor=zz', 400, /^cursor must be the next_cursor/],
    ['/api/interactions?colour=red', 400, /^unknown query parameter 'colour'/],
  ])('refuses %s', async (path, status, line) => {
    const r = await h.call(path, { role: 'reader' });
    expect(r.status).toBe(status);
    expect(r.body.error.details).toContainEqual(expect.stringMatching(line));
  });

  it('unknown and malformed ids are 404; a bad cancel body is 400 naming the field', async () => {
    const ghost = `0000000000${'ab'.repeat(16)}00`;
    expect((await h.call(`/api/interactions/${ghost}`, { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/interactions/nope', { role: 'reader' })).status).toBe(404);
    const missing = await h.call(`/api/interactions/${ghost}/cancel`, { method: 'POST', role: 'operator' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain(ghost);
    const a = await parked();
    const bad = await h.call(`/api/interactions/${a.id}/cancel`, { method: 'POST', role: 'operator', json: { reason: 5, verdict: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(["unknown field 'verdict' (known: reason)", 'reason must be a string of at most 1000 characters, got 5']);
  });
});
