import { hook, startHarness, type Harness } from './support/harness';

/**
 * `POST /api/hook-runs/{id}/replay` with an edited payload ("replay with this
 * payload") and the retry answer's warning for a run whose tool was called.
 */
describe('management API: replay with an edited payload, retry of a run whose tool was called', () => {
  let h: Harness;
  beforeAll(async () => {
    // A small door body limit, so "too big" is cheap to reach; the API's own cap stays larger.
    h = await startHarness({ settings: { bodyMaxBytes: 512, apiBodyMaxBytes: 4096 } });
    await h.stores.hooks.putHook({ ...(hook('rp', 'replays') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(() => h.close());

  /** A run of hook rp that ended failed, optionally after it started its tool. */
  async function endedRun(payload: Record<string, unknown>, acted?: 'start'): Promise<string> {
    const [kept] = await h.stores.runs.keepEvent({ topic: 'replays', payload, now: Date.now(), dispatchGraceMs: 15000 });
    const claimed = await h.stores.runs.claim(kept!.id, 'test-worker', 30000, Date.now());
    if (!claimed) throw new Error('could not claim');
    if (acted) await h.stores.runs.act(kept!.id, claimed.token, { acted, input: { to: 'prod' } }, Date.now());
    await h.stores.runs.fail(kept!.id, claimed.token, { kind: 'unavailable', message: 'HTTP 500' }, Date.now());
    return kept!.id;
  }

  it('replays with the edited payload (object or its JSON text): replay_of kept, the new payload carried, the history says it was edited', async () => {
    const src = await endedRun({ order: { id: 1 } });
    published();
    for (const payload of [{ order: { id: 2 } }, '{"order":{"id":2}}']) {
      const r = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator', json: { payload } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'pending', hook: 'rp', replay_of: src, door: 'api', verified: false, payload: { order: { id: 2 } } });
      expect(r.body.history[0].detail).toBe(`replay of run ${src} with an edited payload through the api door, not verified`);
      expect((await h.call(`/api/hook-runs/${r.body.id}`, { role: 'reader' })).body.payload).toEqual({ order: { id: 2 } });
      expect(published()).toEqual([[r.body.id]]);
    }
    // The source keeps its own payload; a replay without a body (or with {}) replays it as it was.
    expect((await h.call(`/api/hook-runs/${src}`, { role: 'reader' })).body.payload).toEqual({ order: { id: 1 } });
    for (const json of [undefined, {}]) {
      const plain = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator', json });
      expect(plain.status).toBe(201);
      expect(plain.body).toMatchObject({ replay_of: src, payload: { order: { id: 1 } } });
      expect(plain.body.history[0].detail).toBe(`replay of run ${src} through the api door, not verified`);
    }
  });

  it('a payload key named __proto__ stays a key of the payload and reaches no prototype', async () => {
    const src = await endedRun({ a: 1 });
    const r = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator', json: { payload: '{"__proto__":{"polluted":1},"b":2}' } });
    expect(r.status).toBe(201);
    expect(JSON.parse(r.text).payload).toEqual(JSON.parse('{"__proto__":{"polluted":1},"b":2}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['text that is not JSON', { payload: '{"order": ' }, /^payload is not valid JSON \(.+\), got "\{\\"order\\": "$/],
    ['an array', { payload: [1, 2] }, /^payload must be a JSON object \(a run's payload\) or its JSON text, got \[1,2\]$/],
    ['JSON text of a number', { payload: '42' }, /^payload must be a JSON object \(a run's payload\) or its JSON text, got 42$/],
    ['null', { payload: null }, /^payload must be a JSON object/],
    [
      'a payload past the door body limit',
      { payload: { big: 'x'.repeat(600) } },
      /^payload is 610 bytes as JSON, more than the door's body limit of 512 \(HOOKS_BODY_MAX_BYTES\)$/,
    ],
    ['JSON text nested too deep', { payload: `${'{"a":'.repeat(70)}1${'}'.repeat(70)}` }, /^payload nests deeper than 64 levels$/],
    ['an unknown field', { payload: {}, colour: 'red' }, /^unknown field 'colour' \(known: payload\)$/],
  ])('refuses %s with 400 naming it, and keeps nothing', async (_what, json, line) => {
    const src = await endedRun({ order: { id: 1 } });
    const before = (await h.call('/api/hook-runs?hook=rp&limit=500', { role: 'reader' })).body.runs.length;
    const r = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'operator', json });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ kind: 'bad_input', message: 'replay refused' });
    expect(r.body.error.details).toEqual([expect.stringMatching(line)]);
    expect((await h.call('/api/hook-runs?hook=rp&limit=500', { role: 'reader' })).body.runs.length).toBe(before);
  });

  it('a reader may not replay (403), edited payload or not', async () => {
    const src = await endedRun({ order: { id: 1 } });
    for (const json of [undefined, { payload: { order: { id: 9 } } }]) {
      const r = await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', role: 'reader', json });
      expect(r.status).toBe(403);
    }
    expect((await h.call(`/api/hook-runs/${src}/replay`, { method: 'POST', json: {} })).status).toBe(401);
  });

  it("retry answers tool_called_again with the idempotency key when the run's tool was called; null when it was not", async () => {
    const started = await endedRun({ order: { id: 3 } }, 'start');
    const r = await h.call(`/api/hook-runs/${started}/retry`, { method: 'POST', role: 'operator' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: started,
      status: 'pending',
      acted: 'start',
      tool_called_again: { idempotency_key: started, extra: 'tai42/idempotency_key' },
    });
    const fresh = await endedRun({ order: { id: 4 } });
    const f = await h.call(`/api/hook-runs/${fresh}/retry`, { method: 'POST', role: 'operator' });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ id: fresh, acted: '', tool_called_again: null });
  });

  it('a bulk retry counts the matched runs whose tool was called (tool_called_again), on the dry run too', async () => {
    await endedRun({ order: { id: 5 } }, 'start');
    await endedRun({ order: { id: 6 } }, 'start');
    await endedRun({ order: { id: 7 } });
    const failed = (await h.call('/api/hook-runs?hook=rp&status=failed&limit=500', { role: 'reader' })).body.runs as { acted: string }[];
    const started = failed.filter((r) => r.acted === 'start').length;
    expect(started).toBeGreaterThanOrEqual(2);
    const filter = { hook: 'rp', status: 'failed' };
    const dry = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter, dry_run: true } });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, matched: failed.length, tool_called_again: started });
    const done = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter } });
    expect(done.body).toMatchObject({ dry_run: false, matched: failed.length, tool_called_again: started });
    const discard = await h.call('/api/hook-runs/discard', {
      method: 'POST',
      role: 'operator',
      json: { filter: { hook: 'rp', status: 'pending' }, dry_run: true },
    });
    expect(discard.body).not.toHaveProperty('tool_called_again');
  });

  /** What the bus was handed since the last call. */
  let seen = 0;
  function published(): string[][] {
    const out = h.bus.published.slice(seen);
    seen = h.bus.published.length;
    return out;
  }
});
