/**
 * Trigger links: `POST /api/hooks/{name}/links` (operator) makes a link whose
 * token is shown once; `POST /trigger/{token}` keeps one run of that hook
 * only (door trigger, not verified, the link's id), answered like the door;
 * max_uses holds under concurrency; a wrong, revoked, expired or used-up
 * token gets one fixed 404; readers list links without tokens and cannot
 * make or revoke one; the door's caps and parsing apply.
 */
import { ManualClock } from '@hookyard/core';
import { hook, startHarness, type Harness } from './support/harness';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const NOT_FOUND = '{"error":"not found"}';

describe('trigger links', () => {
  let h: Harness;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    h = await startHarness({ settings: { publicUrl: 'https://hooks.example.com', bodyMaxBytes: 2048 }, deps: { clock, limiter: null } });
    for (const [name, topic] of [
      ['form', 'signups'],
      ['other', 'signups'],
      ['cron', 'nightly'],
    ] as const) {
      expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook(name, topic) })).status).toBe(201);
    }
  });
  afterAll(() => h.close());

  const create = (name: string, json: unknown = {}, role: 'operator' | 'reader' | 'admin' = 'operator') =>
    h.call(`/api/hooks/${name}/links`, { method: 'POST', role, json });
  const fire = (path: string, body = '{"email":"a@example.com"}', headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    h.call(path, { method: 'POST', body, headers });

  it('a link fires its hook once: one run of that hook only, door trigger, not verified, the link id; answered like the door', async () => {
    const made = await create('form', { label: 'signup form' });
    expect(made.status).toBe(201);
    const { link, token, path, url } = made.body;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(path).toBe(`/trigger/${token}`);
    expect(url).toBe(`https://hooks.example.com/trigger/${token}`);
    expect(link).toEqual({
      id: expect.stringMatching(/^tl_[a-z2-7]{20}$/),
      hook: 'form',
      label: 'signup form',
      created_at: new Date(T0).toISOString(),
      created_by: expect.stringMatching(/^operator:[0-9a-f]{8}$/),
      expires_at: null,
      uses: 0,
      last_used_at: null,
      max_uses: null,
      revoked: false,
    });
    const published = h.bus.published.length;
    const res = await fire(path, undefined, { 'content-type': 'application/json', 'user-agent': 'signup-form/1', cookie: 'sid=s3cr3t' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'accepted', runs: 1 });
    const [runId] = res.body.run_ids as string[];
    const run = (await h.call(`/api/hook-runs/${runId}`, { role: 'reader' })).body;
    expect(run).toMatchObject({ hook: 'form', topic: 'signups', door: 'trigger', verified: false, trigger_link: link.id, payload: { email: 'a@example.com' } });
    // The allowlisted request headers only: never the cookie.
    expect(run.headers).toEqual({ 'content-type': 'application/json', 'content-length': '25', 'user-agent': 'signup-form/1' });
    expect(run.history[0].detail).toBe(`event on signups through the trigger door, not verified, by trigger link ${link.id}`);
    // Only that hook: the other hook on the topic kept nothing.
    expect((await h.stores.runs.list({ topic: 'signups' }, 10)).runs.map((r) => r.hook)).toEqual(['form']);
    expect(h.bus.published.slice(published).flat()).toEqual([runId]);
    // The list shows the last use: the time the link fired (the ingress's clock).
    expect((await h.call('/api/hooks/form/links', { role: 'reader' })).body.links[0]).toMatchObject({
      id: link.id,
      uses: 1,
      last_used_at: new Date(T0).toISOString(),
    });
  });

  it('max_uses holds under concurrent uses: exactly max_uses are accepted, the rest get the fixed 404', async () => {
    const { path, link } = (await create('cron', { max_uses: 3 })).body;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => fire(path, JSON.stringify({ i }))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => [a.status, a.text])).toEqual(Array(7).fill([404, NOT_FOUND]));
    const runs = (await h.stores.runs.list({ hook: 'cron' }, 50)).runs.filter((r) => r.trigger_link === link.id);
    expect(runs).toHaveLength(3);
    expect((await h.call('/api/hooks/cron/links', { role: 'reader' })).body.links.find((l: { id: string }) => l.id === link.id).uses).toBe(3);
  });

  it('a revoked, an expired and a wrong token get the same 404 body; nothing is kept', async () => {
    const revoked = (await create('form')).body;
    const expiring = (await create('form', { expires_in_seconds: 60 })).body;
    expect(expiring.link.expires_at).toBe(new Date(T0 + 60_000).toISOString());
    expect((await fire(revoked.path)).status).toBe(200);
    const gone = await h.call(`/api/hooks/form/links/${revoked.link.id}`, { method: 'DELETE', role: 'operator' });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ revoked: true, link: { id: revoked.link.id, revoked: true } });
    expect((await fire(expiring.path)).status).toBe(200);
    clock.advance(60_000);
    const before = (await h.stores.runs.list({ hook: 'form' }, 100)).runs.length;
    const wrong = `/trigger/${'A'.repeat(43)}`;
    const answers = [await fire(revoked.path), await fire(expiring.path), await fire(wrong), await fire('/trigger/short')];
    expect(answers.map((a) => [a.status, a.text])).toEqual(Array(4).fill([404, NOT_FOUND]));
    expect((await h.stores.runs.list({ hook: 'form' }, 100)).runs.length).toBe(before);
  });

  it('a reader cannot make or revoke a link (403); the token appears in no list answer', async () => {
    const made = (await create('form', { label: 'kept secret' })).body;
    expect((await create('form', {}, 'reader')).status).toBe(403);
    expect((await h.call(`/api/hooks/form/links/${made.link.id}`, { method: 'DELETE', role: 'reader' })).status).toBe(403);
    for (const role of ['reader', 'operator', 'admin'] as const) {
      const list = await h.call('/api/hooks/form/links', { role });
      expect(list.status).toBe(200);
      expect(list.body.links.map((l: { id: string }) => l.id)).toContain(made.link.id);
      expect(list.text).not.toContain(made.token);
      expect(list.text).not.toContain('token');
    }
    // Nor in the hook or its runs.
    expect((await h.call('/api/hooks/form', { role: 'reader' })).text).not.toContain(made.token);
  });

  it('bad fields are a 400 naming each; an unknown hook is 404; a hook on a platform topic gets no link', async () => {
    const bad = await create('form', { max_uses: 0, expires_in_seconds: -1, colour: 'red', label: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      "unknown field 'colour' (known: label, expires_in_seconds, expires_at, max_uses)",
      'label must be a string of at most 200 printable characters, got 5',
      'expires_in_seconds must be a whole number from 1 to 315360000, got -1',
      'max_uses must be a whole number from 1 to 1000000000, got 0',
    ]);
    const both = await create('form', { expires_in_seconds: 5, expires_at: '2030-01-01T00:00:00Z' });
    expect(both.body.error.details).toEqual(['give expires_in_seconds or expires_at, not both']);
    const past = await create('form', { expires_at: '2020-01-01T00:00:00Z' });
    expect(past.body.error.details[0]).toMatch(/^expires_at must be in the future, got "2020-01-01T00:00:00Z"/);
    const at = await create('form', { expires_at: '2030-01-01T00:00:00Z' });
    expect([at.status, at.body.link.expires_at]).toEqual([201, '2030-01-01T00:00:00.000Z']);
    expect((await create('ghost')).status).toBe(404);
    expect((await h.call('/api/hooks/form/links/tl_nonexistent', { method: 'DELETE', role: 'operator' })).status).toBe(404);
    await h.stores.hooks.putHook({ ...(hook('alerts', 'hooks_run_failed') as any), created_at: 'x', updated_at: 'x' });
    const platform = await create('alerts');
    expect([platform.status, platform.body.error.details]).toEqual([
      400,
      ['hook alerts is on platform topic hooks_run_failed, which only the platform fires; a link cannot fire it'],
    ]);
  });

  it("the door's caps and parsing apply: 413 naming the limit, a multipart file refused, GET 405; none spends a use", async () => {
    const { path, link } = (await create('form', { max_uses: 1 })).body;
    const big = await fire(path, JSON.stringify({ pad: 'x'.repeat(4000) }));
    expect([big.status, big.body]).toEqual([413, { error: 'body too large: the limit is 2048 bytes (HOOKS_BODY_MAX_BYTES)' }]);
    const form = new FormData();
    form.append('upload', new Blob(['file bytes']), 'a.txt');
    const file = await h.call(path, { method: 'POST', body: form });
    expect(file.status).toBe(400);
    expect(file.body.status).toBe('rejected');
    expect((await h.call(path, { method: 'GET' })).status).toBe(405);
    // A urlencoded form (what an HTML form posts) is kept as fields; the one use is still there.
    const ok = await fire(path, 'name=Ada&plan=pro', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(ok.status).toBe(200);
    const run = await h.stores.runs.get(ok.body.run_ids[0]);
    expect([run?.payload, run?.trigger_link]).toEqual([{ name: 'Ada', plan: 'pro' }, link.id]);
    expect((await fire(path)).text).toBe(NOT_FOUND);
  });

  it('removing the hook removes its links: the token is refused with the same 404', async () => {
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('brief', 'brief') })).status).toBe(201);
    const { path } = (await create('brief')).body;
    expect((await h.call('/api/hooks/brief', { method: 'DELETE', role: 'operator' })).status).toBe(200);
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('brief', 'brief') })).status).toBe(201);
    expect((await fire(path)).text).toBe(NOT_FOUND);
    expect((await h.call('/api/hooks/brief/links', { role: 'reader' })).body).toEqual({ links: [] });
  });
});
