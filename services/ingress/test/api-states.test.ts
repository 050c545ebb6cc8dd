import { STATE_HISTORY_MAX } from '@hookyard/core';
import { startHarness, type Harness } from './support/harness';

const base = '/api/states/github/pull_request';
const key = encodeURIComponent('acme/api#7');

describe('management API: subject state', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { stateMaxBytes: 128 } });
    // A state is declared before it is written (an open schema: any document).
    for (const d of ['github/pull_request', 'gitlab/mr']) {
      const r = await h.call(`/api/states/declarations/${d}`, { method: 'PUT', role: 'admin', json: { schema: {}, description: 'written by these tests' } });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => h.close());

  it('an operator creates (201) and replaces (200) a document; writes are attributed to door api and the token; a reader reads it', async () => {
    const created = await h.call(`${base}/${key}`, { method: 'PUT', role: 'operator', json: { document: { checks: 'pending' } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: 'github', kind: 'pull_request', key: 'acme/api#7', version: 1, document: { checks: 'pending' } });
    const replaced = await h.call(`${base}/${key}`, { method: 'PUT', role: 'admin', json: { document: { checks: 'green' }, if_version: 1 } });
    expect(replaced.status).toBe(200);
    const got = await h.call(`${base}/${key}`, { role: 'reader' });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ version: 2, document: { checks: 'green' } });
    expect(got.body.history).toEqual([
      { version: 1, op: 'set', door: 'api', actor: expect.stringMatching(/^operator:[0-9a-f]{8}$/), hook: null, at: expect.any(String) },
      { version: 2, op: 'set', door: 'api', actor: expect.stringMatching(/^admin:[0-9a-f]{8}$/), hook: null, at: expect.any(String) },
    ]);
    expect((await h.stores.states.get({ scope: 'github', kind: 'pull_request', key: 'acme/api#7' }))?.version).toBe(2);
  });

  it('a PUT on a stale if_version is 409 naming the kept version, and changes nothing', async () => {
    await h.call(`${base}/stale`, { method: 'PUT', role: 'operator', json: { document: { a: 1 } } });
    const r = await h.call(`${base}/stale`, { method: 'PUT', role: 'operator', json: { document: { a: 2 }, if_version: 0 } });
    expect(r.status).toBe(409);
    expect(r.body.error).toEqual({
      kind: 'conflict',
      message: 'state github/pull_request/"stale" is at version 1, not version 0 (if_version); read it again and retry',
    });
    expect((await h.call(`${base}/stale`, { role: 'reader' })).body.document).toEqual({ a: 1 });
  });

  it('a document past HOOKS_STATE_MAX_BYTES is 400 naming the setting', async () => {
    const r = await h.call(`${base}/big`, { method: 'PUT', role: 'operator', json: { document: { blob: 'x'.repeat(200) } } });
    expect(r.status).toBe(400);
    expect(r.body.error.kind).toBe('bad_input');
    expect(r.body.error.message).toMatch(/would be \d+ bytes, more than 128 \(HOOKS_STATE_MAX_BYTES\)$/);
    expect((await h.call(`${base}/big`, { role: 'reader' })).status).toBe(404);
  });

  it('answers one 400 line per miss of a PUT body and path', async () => {
    const r = await h.call('/api/states/Git%20Hub/pull_request/k', { method: 'PUT', role: 'operator', json: { document: [1], if_version: -1, extra: true } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('subject refused');
    expect(r.body.error.details).toEqual(['scope "Git Hub" must match ^[a-z0-9][a-z0-9_-]*$']);
    const b = await h.call(`${base}/k`, { method: 'PUT', role: 'operator', json: { document: [1], if_version: -1, extra: true } });
    expect(b.body.error.details).toEqual([
      "unknown field 'extra' (known: document, if_version)",
      'document is required, a JSON object, got [1]',
      'if_version must be a whole number >= 0 (the version the change was made against; 0: no document yet), got -1',
    ]);
  });

  it('lists one scope and kind by key with a cursor; scope and kind are required', async () => {
    for (const k of ['l-c', 'l-a', 'l-b']) await h.call(`/api/states/gitlab/mr/${k}`, { method: 'PUT', role: 'operator', json: { document: { k } } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: { states: Array<{ key: string; version: number; updated_by: unknown }>; next_cursor: string | null } } = await h.call(
        `/api/states?scope=gitlab&kind=mr&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { role: 'reader' },
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.states.map((s) => s.key));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['l-a', 'l-b', 'l-c']);
    const one = await h.call('/api/states?scope=gitlab&kind=mr&limit=1', { role: 'reader' });
    expect(one.body.states[0]).toEqual({
      scope: 'gitlab',
      kind: 'mr',
      key: 'l-a',
      version: 1,
      updated_at: expect.any(String),
      updated_by: { door: 'api', actor: expect.stringMatching(/^operator:/), hook: null },
    });
    const bad = await h.call('/api/states?kind=Mr&limit=0&color=red', { role: 'reader' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      "unknown query parameter 'color' (known: scope, kind, limit, cursor)",
      'scope is required (states are listed per scope and kind)',
      'kind "Mr" must match ^[a-z0-9][a-z0-9_-]*$',
      'limit must be a whole number from 1 to 500, got "0"',
    ]);
  });

  it('DELETE removes the document and its history (404 after); if_version guards it; a missing one is 404', async () => {
    await h.call(`${base}/del`, { method: 'PUT', role: 'operator', json: { document: { a: 1 } } });
    const stale = await h.call(`${base}/del?if_version=5`, { method: 'DELETE', role: 'operator' });
    expect([stale.status, stale.body.error.kind]).toEqual([409, 'conflict']);
    const r = await h.call(`${base}/del?if_version=1`, { method: 'DELETE', role: 'operator' });
    expect([r.status, r.body]).toEqual([200, { deleted: true, scope: 'github', kind: 'pull_request', key: 'del', version: 1 }]);
    expect((await h.call(`${base}/del`, { role: 'reader' })).status).toBe(404);
    expect((await h.call(`${base}/del`, { method: 'DELETE', role: 'operator' })).status).toBe(404);
    expect((await h.call(`${base}/del?since=1`, { method: 'DELETE', role: 'operator' })).body.error.details).toEqual([
      "unknown query parameter 'since' (known: if_version)",
    ]);
  });

  it('shows at most the last writes of a subject', async () => {
    for (let i = 0; i < STATE_HISTORY_MAX + 2; i += 1) await h.call(`${base}/many`, { method: 'PUT', role: 'operator', json: { document: { i } } });
    const r = await h.call(`${base}/many`, { role: 'reader' });
    expect([r.body.version, r.body.history.length, r.body.history[0].version]).toEqual([STATE_HISTORY_MAX + 2, STATE_HISTORY_MAX, 3]);
  });

  it('401 without a token and 403 for a reader on writes', async () => {
    expect((await h.call(`${base}/${key}`)).status).toBe(401);
    expect((await h.call('/api/states?scope=a&kind=b')).status).toBe(401);
    expect((await h.call(`${base}/${key}`, { method: 'PUT', role: 'reader', json: { document: {} } })).status).toBe(403);
    expect((await h.call(`${base}/${key}`, { method: 'DELETE', role: 'reader' })).status).toBe(403);
  });
});
