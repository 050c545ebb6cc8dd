import { createSecretResolver } from '../src/verify';
import { startHarness, type Harness } from './support/harness';

describe('management API: hooks, templates, tools, verifiers', () => {
  let h: Harness;
  beforeAll(async () => {
    // The verifier's secret is set: a binding is refused when the ingress cannot read it.
    h = await startHarness({ deps: { secrets: createSecretResolver({ env: { HOOKS_SECRET_GH_SECRET: 'api-hooks-gh-secret' } }) } });
  });
  afterAll(() => h.close());

  const register = (json: unknown) => h.call('/api/hooks', { method: 'POST', role: 'operator', json });

  it('registers (201), replaces (200, keeps created_at, moves topic), gets, lists and removes a hook', async () => {
    const a = await register({ name: 'h1', topic: 't1', tool: 'echo', tool_kwargs: { x: 1 } });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ created: true, hook: { name: 'h1', topic: 't1', tool: 'echo' } });
    const b = await register({ name: 'h1', topic: 't2', tool: 'print' });
    expect(b.status).toBe(200);
    expect(b.body.created).toBe(false);
    expect(b.body.hook.created_at).toBe(a.body.hook.created_at);
    expect((await h.stores.hooks.hooksOnTopic('t1')).map((x) => x.name)).toEqual([]);
    expect((await h.call('/api/hooks/h1', { role: 'reader' })).body).toMatchObject({ name: 'h1', topic: 't2', tool: 'print' });
    expect((await h.call('/api/hooks', { role: 'reader' })).body.hooks.map((x: any) => x.name)).toContain('h1');
    expect((await h.call('/api/hooks/h1', { method: 'DELETE', role: 'operator' })).body).toEqual({ removed: true, name: 'h1' });
    expect((await h.call('/api/hooks/h1', { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/hooks/h1', { method: 'DELETE', role: 'operator' })).status).toBe(404);
  });

  it.each([
    [{ name: 'Bad', topic: 't', tool: 'echo' }, 'name "Bad" must match ^[a-z0-9][a-z0-9_-]*$'],
    [{ name: 'ok', topic: 'a b', tool: 'echo' }, 'topic "a b" must match ^[a-z0-9][a-z0-9_-]*$'],
    [{ name: 'ok', topic: 't', tool: 'ghost' }, "hook tool 'ghost' is not a registered tool"],
    [{ name: 'ok', topic: 't', tool: 'fetcher', tool_kwargs: { url: 1 } }, 'tool_kwargs/url must be string'],
    [{ name: 'ok', topic: 't', tool: 'echo', tool_kwargs: { tool_names: ['ghost'] } }, "tool_kwargs.tool_names entry 'ghost' is not a registered tool"],
    [{ name: 'ok', topic: 't', tool: 'echo', condition: { id: 'jq/missing' } }, "stored id 'jq/missing' at condition is not a stored template"],
    [{ name: 'ok', topic: 't', tool: 'echo', start_expr: { content: '{a: (' } }, /^start_expr does not compile: jq: error/],
    [{ name: 'ok', topic: 't', tool: 'echo', subject: { scope: 's', kind: 'k' } }, 'subject.key_expr is required (a jq field)'],
    [{ name: 'ok', topic: 't', tool: 'echo', extra: 1 }, "unknown field 'extra'"],
    [{ name: 'ok', topic: 't', tool: 'echo', tools_allow: ['print'] }, "hook tool 'echo' is not allowed by the tool allowlist"],
  ])('refuses %j with a 400 line', async (input, line) => {
    const r = await register(input);
    expect(r.status).toBe(400);
    expect(r.body.error.kind).toBe('bad_input');
    expect(r.body.error.message).toBe('hook registration refused');
    expect(r.body.error.details).toContainEqual(typeof line === 'string' ? line : expect.stringMatching(line));
    expect(await h.stores.hooks.getHook('ok')).toBeNull();
  });

  it('malformed JSON to /api is 400 bad_input; unknown /api route is JSON 404', async () => {
    const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error.kind).toBe('bad_input');
    expect(r.body.error.message).toMatch(/not valid JSON/);
    const u = await h.call('/api/nothing-here', { role: 'reader' });
    expect(u.status).toBe(404);
    expect(u.body.error.kind).toBe('not_found');
    expect(u.headers.get('cache-control')).toBe('no-store');
  });

  it('stores jq templates with / in the id (literal or encoded), compiled on write', async () => {
    const put = await h.call('/api/jq-templates/jq/is-order', { method: 'PUT', role: 'operator', json: { content: '.kind == $kind' } });
    expect(put.status).toBe(201);
    expect((await h.call('/api/jq-templates/jq%2Fis-order', { role: 'reader' })).body).toEqual({ id: 'jq/is-order', content: '.kind == $kind' });
    const bad = await h.call('/api/jq-templates/jq/bad', { method: 'PUT', role: 'operator', json: { content: '.a | (' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatch(/^content does not compile: jq: error/);
    // A hook may now use the template; its kwargs are checked where it is used.
    const ok = await register({ name: 'uses-tpl', topic: 't', tool: 'echo', condition: { id: 'jq/is-order', kwargs: { kind: 'order' } } });
    expect(ok.status).toBe(201);
    const inUse = await h.call('/api/jq-templates/jq/is-order', { method: 'DELETE', role: 'operator' });
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.message).toBe("stored template 'jq/is-order' is used by hook(s) uses-tpl");
    expect((await h.call('/api/jq-templates', { role: 'reader' })).body.templates).toHaveLength(1);
  });

  it('lists every tool with its schema and provider', async () => {
    const r = await h.call('/api/tools', { role: 'reader' });
    const fetcher = r.body.tools.find((t: any) => t.name === 'fetcher');
    expect(fetcher).toMatchObject({ provider: 'local', parameters: { required: ['url'] } });
    expect((await h.call('/api/tools/echo', { role: 'reader' })).body.name).toBe('echo');
    expect((await h.call('/api/tools/ghost', { role: 'reader' })).status).toBe(404);
  });

  it('registers a tool service (admin) validated on write, and removes it', async () => {
    const bad = await h.call('/api/tools', { method: 'POST', role: 'admin', json: { name: 'svc', endpoint: 'nope', protocol: 'soap' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.length).toBeGreaterThan(0);
    const good = await h.call('/api/tools', {
      method: 'POST',
      role: 'admin',
      json: { name: 'svc', kind: 'http', endpoint: 'http://127.0.0.1:9/x', protocol: 'openai' },
    });
    expect(good.status).toBe(201);
    expect(await h.stores.tools.getTool('svc')).not.toBeNull();
    expect((await h.call('/api/tools/svc', { method: 'DELETE', role: 'admin' })).body).toEqual({ removed: true, name: 'svc' });
  });

  it('refuses a secret reference to the process own settings, for a tool and a verifier, naming the field', async () => {
    const tool = await h.call('/api/tools', {
      method: 'POST',
      role: 'admin',
      json: { name: 'leak', endpoint: 'https://collector.example/x', protocol: 'openai', headers: { Authorization: { secret: 'env:HOOKS_API_TOKENS' } } },
    });
    expect(tool.status).toBe(400);
    expect(tool.body.error.details).toEqual([
      "headers.Authorization.secret names HOOKS_API_TOKENS, one of Hookyard's own settings, which a secret reference may never read",
    ]);
    const verifier = await h.call('/api/hooks/topics/t8/verifier', {
      method: 'PUT',
      role: 'admin',
      json: { kind: 'github', secrets: ['file:/var/run/secrets/kubernetes.io/serviceaccount/token'] },
    });
    expect(verifier.status).toBe(400);
    expect(verifier.body.error.details).toEqual([
      'secrets[0] names /var/run/secrets/kubernetes.io/serviceaccount/token, the Kubernetes service account, which a secret reference may never read',
    ]);
    expect(await h.stores.tools.getTool('leak')).toBeNull();
  });

  it('binds a verifier (admin), shows references only, removes it', async () => {
    const bad = await h.call('/api/hooks/topics/t9/verifier', { method: 'PUT', role: 'admin', json: { kind: 'github', secrets: ['literal-secret-value'] } });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('literal-secret-value');
    const put = await h.call('/api/hooks/topics/t9/verifier', {
      method: 'PUT',
      role: 'admin',
      json: { kind: 'github', secrets: ['env:HOOKS_SECRET_GH_SECRET'] },
    });
    expect(put.status).toBe(201);
    const got = await h.call('/api/hooks/topics/t9/verifier', { role: 'reader' });
    expect(got.body).toMatchObject({ topic: 't9', kind: 'github', secrets: ['env:HOOKS_SECRET_GH_SECRET'] });
    expect((await h.call('/api/hooks/topics/t9/verifier', { method: 'DELETE', role: 'admin' })).body).toEqual({ removed: true, topic: 't9' });
    expect((await h.call('/api/hooks/topics/t9/verifier', { role: 'reader' })).status).toBe(404);
  });

  it('serves /healthz, /readyz and /metrics with refreshed gauges', async () => {
    expect((await h.call('/healthz')).body).toEqual({ status: 'ok' });
    expect((await h.call('/readyz')).body).toEqual({ status: 'ready' });
    const m = await h.call('/metrics');
    expect(m.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(m.text).toContain('tai42_hook_runs_pending 0');
    expect(m.text).toContain('tai42_hook_runs_held_failed 0');
  });
});

describe('readiness', () => {
  it('answers 503 with the reason when a co-hosted role is not ready', async () => {
    const h = await startHarness({ deps: { readiness: async () => Promise.reject(new Error('executor draining')) } });
    try {
      const r = await h.call('/readyz');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'unready', reason: 'co-hosted roles not ready: executor draining' });
    } finally {
      await h.close();
    }
  });
});
