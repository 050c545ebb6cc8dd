import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { startHarness, type Harness } from './support/harness';

const DECL = '/api/states/declarations/github/pull_request';
const declaration = {
  schema: {
    type: 'object',
    properties: { checks: { type: 'object', properties: { status: { enum: ['pending', 'green', 'red'] } } }, reviews: { type: 'object' } },
  },
  description: 'a pull request as the hooks see it',
  templates: { key_expr: { content: '"\\(.repo)#\\(.pr)"' } },
};
const hookWith = (name: string, subject: Record<string, unknown>) => ({
  name,
  topic: 'gh',
  tool: 'echo',
  subject: { scope: 'github', kind: 'pull_request', key_expr: { content: '.pr' }, ...subject },
});

describe('management API: declared states and checked bindings', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('an admin declares a state (201), changes it (200, version 2); readers list and read it with the hooks that bind it; an operator may not declare', async () => {
    expect((await h.call(DECL, { method: 'PUT', role: 'operator', json: declaration })).status).toBe(403);
    const made = await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ created: true, declaration: { scope: 'github', kind: 'pull_request', version: 1, ...declaration }, reattached: [] });
    const changed = await h.call(DECL, { method: 'PUT', role: 'admin', json: { ...made.body.declaration, description: 'v2' } });
    expect([changed.status, changed.body.declaration.version]).toEqual([200, 2]);
    expect((await h.call(`/api/hooks`, { method: 'POST', role: 'operator', json: hookWith('ci', { attach: '/checks' }) })).status).toBe(201);
    const one = await h.call(DECL, { role: 'reader' });
    expect(one.body).toMatchObject({ description: 'v2', bound_by: [{ hook: 'ci', attach: '/checks' }] });
    const list = await h.call('/api/states/declarations', { role: 'reader' });
    expect(list.body.declarations.map((d: { kind: string }) => d.kind)).toEqual(['pull_request']);
    expect((await h.call('/api/states/declarations/github/issue', { role: 'reader' })).status).toBe(404);
  });

  it('a schema that does not compile is 400 quoting ajv; a template that is not a hook field is one line', async () => {
    const r = await h.call(DECL, {
      method: 'PUT',
      role: 'admin',
      json: { ...declaration, schema: { type: 'object', properties: { a: { type: 'nope' } } }, templates: { keys: { content: '.' } } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      expect.stringMatching(
        /^schema does not compile \(JSON Schema draft 2020-12\): schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/,
      ),
      expect.stringMatching(/^templates.keys is not a template name/),
    ]);
    expect(await h.stores.declarations.getDeclaration('github', 'pull_request')).toBeNull();
  });

  it('a binding of an undeclared state is 404 naming scope and kind and the nearest declared one; no hook stored', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const r = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { ...hookWith('ci', { attach: '/checks' }), subject: { scope: 'github', kind: 'pull_requests', key_expr: { content: '.pr' }, attach: '/checks' } },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe(
      "subject github/pull_requests is not a declared state; did you mean 'github/pull_request'? (declare it: PUT /api/states/declarations/github/pull_requests); no hook stored",
    );
    expect(await h.stores.hooks.getHook('ci')).toBeNull();
  });

  it('a subject without attach on an undeclared state is 404 naming scope and kind and the nearest declared one; no hook stored, nothing declared', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const typo = { name: 'ci', topic: 'gh', tool: 'echo', subject: { scope: 'github', kind: 'pull_requests', key_expr: { content: '.pr' } } };
    const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: typo });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe(
      "subject github/pull_requests is not a declared state; did you mean 'github/pull_request'? (declare it: PUT /api/states/declarations/github/pull_requests); no hook stored",
    );
    expect(await h.stores.hooks.getHook('ci')).toBeNull();
    expect(await h.stores.declarations.getDeclaration('github', 'pull_requests')).toBeNull();
    // On the declared state it binds the whole document, shared with other hooks without attach.
    for (const name of ['ci', 'lint']) {
      expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { ...hookWith(name, {}) } })).status).toBe(201);
    }
    expect(await h.stores.declarations.bindings('github', 'pull_request')).toEqual([
      { hook: 'ci', attach: null },
      { hook: 'lint', attach: null },
    ]);
  });

  it('a PUT of a state nobody declared is 404 naming it and how to declare it; nothing written, and it reads as before (404)', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const url = `/api/states/github/pull_requests/${encodeURIComponent('acme/api#7')}`;
    const r = await h.call(url, { method: 'PUT', role: 'operator', json: { document: { checks: { status: 'green' } } } });
    expect([r.status, r.body.error.kind]).toEqual([404, 'not_found']);
    expect(r.body.error.message).toBe(
      'state github/pull_requests/"acme/api#7": github/pull_requests is not a declared state (did you mean \'github/pull_request\'?); nothing written. Declare it first: PUT /api/states/declarations/github/pull_requests or hookyard states declare github pull_requests',
    );
    expect(await h.stores.states.kinds()).toEqual([]);
    expect((await h.call(url, { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/states?scope=github&kind=pull_requests', { role: 'reader' })).body).toEqual({ states: [], next_cursor: null });
  });

  it('an attach path another hook holds is 409 naming that hook, for the same path and for one inside or around it; no hook stored', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hookWith('ci', { attach: '/checks' }) })).status).toBe(201);
    for (const attach of ['/checks', '/checks/lint', '']) {
      const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hookWith('lint', { attach }) });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain(`attach path ${JSON.stringify(attach)} overlaps hook 'ci', which binds attach path "/checks"`);
      expect(await h.stores.hooks.getHook('lint')).toBeNull();
    }
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hookWith('reviews', { attach: '/reviews' }) })).status).toBe(201);
    // The declaration cannot go while hooks bind it: 409 naming them.
    const gone = await h.call(DECL, { method: 'DELETE', role: 'admin' });
    expect([gone.status, gone.body.error.message]).toEqual([409, "state github/pull_request is bound by hooks 'ci', 'reviews'; remove or rebind them first"]);
  });

  it('a states-store failure while the binding is checked is 500 and stores no hook', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const spy = jest.spyOn(h.stores.declarations, 'bindings').mockRejectedValue(new Error('READONLY You cannot write against a read only replica'));
    try {
      const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hookWith('ci', { attach: '/checks' }) });
      expect(r.status).toBe(500);
      expect(r.body.error.kind).toBe('internal');
      expect(r.body.error.message).toContain("the states store failed while checking hook 'ci''s binding of github/pull_request: READONLY");
    } finally {
      spy.mockRestore();
    }
    expect(await h.stores.hooks.getHook('ci')).toBeNull();
    expect(await h.stores.declarations.bindings('github', 'pull_request')).toEqual([]);
  });

  it('the declared templates a binding names are attached at registration, and re-attached (a new revision, audited) when the declaration changes', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const r = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'ci', topic: 'gh', tool: 'echo', subject: { scope: 'github', kind: 'pull_request', attach: '/checks', templates: ['key_expr'] } },
    });
    expect(r.status).toBe(201);
    expect(r.body.hook.subject).toEqual({
      scope: 'github',
      kind: 'pull_request',
      attach: '/checks',
      templates: ['key_expr'],
      key_expr: declaration.templates.key_expr,
      declaration_version: 1,
    });
    const before = (await h.stores.hooks.getHookRevision('ci'))!.revision;
    const changed = await h.call(DECL, { method: 'PUT', role: 'admin', json: { ...declaration, templates: { key_expr: { content: '.number | tostring' } } } });
    expect(changed.body.reattached).toEqual(['ci']);
    const after = await h.stores.hooks.getHookRevision('ci');
    expect(after!.revision).not.toBe(before);
    expect(after!.hook.subject).toMatchObject({ key_expr: { content: '.number | tostring' }, declaration_version: 2 });
    const audit = await h.call('/api/audit?action=state_declaration.put', { role: 'admin' });
    expect(audit.body.entries[0]).toMatchObject({ action: 'state_declaration.put', target: 'github/pull_request', detail: { reattached: ['ci'] } });
    // A GET-edit-POST round trip keeps working, with or without the server-stamped version.
    const kept = (await h.call('/api/hooks/ci', { role: 'reader' })).body;
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: kept })).status).toBe(200);
    const { declaration_version: _v, ...bare } = kept.subject;
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { ...kept, subject: bare } })).status).toBe(200);
    const clash = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { ...kept, subject: { ...bare, key_expr: { content: '.other' } } } });
    expect([clash.status, clash.body.error.details]).toEqual([
      400,
      ['subject.key_expr is given and differs from the declared template subject.templates names; keep one'],
    ]);
    // A template the declaration does not have is one 400 line.
    const bad = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hookWith('x', { attach: '/x', templates: ['start_expr'] }) });
    expect([bad.status, bad.body.error.details]).toEqual([
      400,
      ["subject.templates names 'start_expr', which state github/pull_request does not declare (it declares: key_expr)"],
    ]);
  });

  it("the operator's whole-document writes are validated against the declared schema: 400 with the JSON pointer and ajv's message, nothing written", async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const url = `/api/states/github/pull_request/${encodeURIComponent('acme/api#7')}`;
    const bad = await h.call(url, { method: 'PUT', role: 'operator', json: { document: { checks: { status: 'purple' } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual(['/checks/status must be equal to one of the allowed values']);
    expect((await h.call(url, { role: 'reader' })).status).toBe(404);
    const good = await h.call(url, { method: 'PUT', role: 'operator', json: { document: { checks: { status: 'green' }, reviews: {} } } });
    expect(good.status).toBe(201);
  });
});

describe('management API: a dry run attaches the declared templates a binding names (real jq)', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ jq });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  it('renders the subject with the declared key_expr, as the registered hook will', async () => {
    await h.call(DECL, { method: 'PUT', role: 'admin', json: declaration });
    const record = { name: 'dry', topic: 'gh', tool: 'echo', subject: { scope: 'github', kind: 'pull_request', attach: '/checks', templates: ['key_expr'] } };
    const r = await h.call('/api/hooks/dry-run', { method: 'POST', role: 'operator', json: { hook: record, payload: { repo: 'acme/api', pr: 7 } } });
    expect([r.status, r.body.subject]).toEqual([200, { scope: 'github', kind: 'pull_request', key: 'acme/api#7' }]);
  });
});
