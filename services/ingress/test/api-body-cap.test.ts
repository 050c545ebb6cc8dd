import { startHarness, type Harness } from './support/harness';

describe('management API: body cap and mark', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { apiBodyMaxBytes: 1024 } });
  });
  afterAll(() => h.close());

  it('a body past HOOKS_API_BODY_MAX_BYTES is 413 with a kind and the cap; one under it is read', async () => {
    const big = { name: 'h1', topic: 't1', tool: 'echo', description: 'x'.repeat(2000) };
    const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: big });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: { kind: 'bad_input', message: 'request body is larger than 1024 bytes (HOOKS_API_BODY_MAX_BYTES)' } });
    const small = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { ...big, description: 'short' } });
    expect(small.status).toBe(201);
  });

  it('a body nested deeper than the door allows is 400 naming the cap, whatever the route (no stack overflow, no 500)', async () => {
    const deep = (n: number) => `{"document":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
    for (const path of ['/api/states/s/k/deep', '/api/hooks']) {
      const r = await h.call(path, {
        method: path === '/api/hooks' ? 'POST' : 'PUT',
        role: 'operator',
        body: deep(100),
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: { kind: 'bad_input', message: 'request body nests deeper than 64 levels' } });
    }
    expect((await h.call('/api/states/declarations/s/k', { method: 'PUT', role: 'admin', json: { schema: {}, description: 'any document' } })).status).toBe(
      201,
    );
    const ok = await h.call('/api/states/s/k/shallow', { method: 'PUT', role: 'operator', body: deep(10), headers: { 'content-type': 'application/json' } });
    expect(ok.status).toBe(201);
  });

  it('every management answer, refusals included, carries X-Hookyard-Api', async () => {
    for (const [path, role] of [
      ['/api/hooks', 'reader'],
      ['/api/hooks', undefined],
      ['/api/nowhere', 'reader'],
    ] as const) {
      const r = await h.call(path, role ? { role } : {});
      expect(r.headers.get('x-hookyard-api')).toBe('1');
    }
  });
});
