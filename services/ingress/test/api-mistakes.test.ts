import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { createSecretResolver } from '../src/verify';
import { startHarness, type Harness } from './support/harness';

/** Mistakes caught where they are made: at registration, in the dry run, at binding (issue 26). */
describe('mistakes caught at registration, dry run and binding', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  const SECRET_VALUE = 'mistakes-secret-value-0123456789';
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    const env = { HOOKS_SECRET_MISTAKES_SET: SECRET_VALUE, HOOKS_SECRET_MISTAKES_EMPTY: '' } as NodeJS.ProcessEnv;
    h = await startHarness({ jq, deps: { secrets: createSecretResolver({ env }) } });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  const register = (record: Record<string, unknown>) =>
    h.call('/api/hooks', { method: 'POST', role: 'operator', json: { topic: 'mistakes', tool: 'echo', ...record } });

  describe('a condition whose top level is an assignment', () => {
    it('`=` for `==` is refused with the fix named', async () => {
      const r = await register({ name: 'assign-eq', condition: { content: '.action = "opened"' } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ kind: 'bad_input', message: 'hook registration refused' });
      expect(r.body.error.details).toEqual([
        'condition is an assignment (=), which outputs the updated event: always true, so the hook would fire on every event; did you mean `.action == "opened"`?',
      ]);
    });

    it('through a pipe, after `and` on its right side, and with `|=`, `//=`, `+=`', async () => {
      const lines = async (content: string) => (await register({ name: 'assign-x', condition: { content } })).body.error?.details;
      expect(await lines('.pull_request | .merged = true')).toEqual([expect.stringMatching(/did you mean `\.pull_request \| \.merged == true`\?$/)]);
      expect(await lines('.action = "opened" and .sender.login == "ada"')).toEqual([
        expect.stringMatching(/did you mean `\.action == "opened" and \.sender\.login == "ada"`\?$/),
      ]);
      expect(await lines('.labels |= contains(["bug"])')).toEqual([
        expect.stringMatching(/^condition is an assignment \(\|=\).*did you mean `\.labels \| contains\(\["bug"\]\)`\?$/),
      ]);
      expect(await lines('.a //= 1')).toEqual([expect.stringMatching(/did you mean `\.a \/\/ 1`\?$/)]);
      expect(await lines('.count += 1')).toEqual([
        'condition is an assignment (+=), which outputs the updated event: always true, so the hook would fire on every event; a condition compares (==, !=, <, <=, >, >=)',
      ]);
    });

    it('a stored template used as the condition is checked too', async () => {
      expect((await h.call('/api/jq-templates/jq/assigns', { method: 'PUT', role: 'operator', json: { content: '.kind = $want' } })).status).toBe(201);
      const r = await register({ name: 'assign-tpl', condition: { id: 'jq/assigns', kwargs: { want: 'x' } } });
      expect(r.status).toBe(400);
      expect(r.body.error.details).toEqual([
        expect.stringMatching(/^condition \(stored id 'jq\/assigns'\) is an assignment \(=\).*did you mean `\.kind == \$want`\?$/),
      ]);
    });

    it('comparisons, an assignment inside a comparison, and assignments in other fields are accepted', async () => {
      expect((await register({ name: 'cmp-ok', condition: { content: '.action == "opened"' } })).status).toBe(201);
      expect((await register({ name: 'cmp-inner', condition: { content: '(.a = 1) == .b' } })).status).toBe(201);
      expect((await register({ name: 'start-assign', start_expr: { content: '{x: 1} | .y = 2' } })).status).toBe(201);
    });
  });

  it('the dry run warns about a condition whose output is not one boolean, and not about one that is', async () => {
    const dry = (content: string) =>
      h.call('/api/hooks/dry-run', {
        method: 'POST',
        role: 'operator',
        json: { hook: { name: 'dry', topic: 'mistakes', tool: 'echo', condition: { content } }, payload: { action: 'opened', labels: ['a', 'b'] } },
      });
    const action = await dry('.action');
    expect(action.status).toBe(200);
    expect(action.body).toMatchObject({ outcome: 'start', condition: { output: ['opened'], matched: true } });
    expect(action.body.warnings).toEqual([
      'condition yielded "opened", not a boolean: the hook fires when the first output is anything but false or null (here it would); compare (==, !=, <, >) to get true or false',
    ]);
    expect((await dry('.labels[] == "a"')).body.warnings).toEqual([
      expect.stringMatching(/^condition yielded 2 outputs, not one boolean: .*any\(\.\.\.\) or all\(\.\.\.\)$/),
    ]);
    expect((await dry('.missing[]?')).body.warnings).toEqual([expect.stringMatching(/^condition yielded no output, not a boolean: counted as false/)]);
    expect((await dry('.action == "opened"')).body).toMatchObject({ outcome: 'start', warnings: [] });
  });

  it('did you mean: a misspelt tool, hook field, subject field or tool name in tool_names names the closest', async () => {
    const r = await register({
      name: 'typos',
      tool: 'ecoh',
      conditon: { content: '.a == 1' },
      subject: { scope: 's', kind: 'k', key_exp: { content: '.id' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      "unknown field 'conditon'; did you mean 'condition'?",
      "hook tool 'ecoh' is not a registered tool; did you mean 'echo'?",
      "subject has unknown field 'key_exp'; did you mean 'key_expr'?",
      'subject.key_expr is required (a jq field)',
    ]);
    // Nothing close: no guess.
    expect((await register({ name: 'typos', tool: 'zzzzzzzz' })).body.error.details).toEqual(["hook tool 'zzzzzzzz' is not a registered tool"]);
  });

  it('a jq compile error keeps its lines: the error, the program line and the caret under the column, each its own detail', async () => {
    const r = await register({ name: 'caret', condition: { content: '.action ==' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      'condition does not compile: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 9',
      '    .action ==',
      '            ^^',
    ]);
    const t = await h.call('/api/jq-templates/jq/broken', { method: 'PUT', role: 'operator', json: { content: '.a | foo(1)' } });
    expect(t.body.error.details).toEqual([
      'content does not compile: jq: error: foo/1 is not defined at <top-level>, line 1, column 6',
      '    .a | foo(1)',
      '         ^^^',
    ]);
  });

  it("the approval policy's `when` and a dedupe key's `expr` keep the same lines", async () => {
    const policy = await h.call('/api/approval-policy', {
      method: 'PUT',
      role: 'admin',
      json: { rules: [{ tools: ['*'], when: '.args ==', action: 'deny' }] },
    });
    expect(policy.status).toBe(400);
    expect(policy.body.error.details).toEqual([
      'rules[0].when does not compile: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 7',
      '    .args ==',
      '          ^^',
    ]);
    const dedupe = await h.call('/api/hooks/topics/mistakes/dedupe', { method: 'PUT', role: 'admin', json: { expr: '.body | foo(1)' } });
    expect(dedupe.status).toBe(400);
    expect(dedupe.body.error.details).toEqual([
      'expr ".body | foo(1)" does not compile: jq: error: foo/1 is not defined at <top-level>, line 1, column 9',
      '    .body | foo(1)',
      '            ^^^',
    ]);
  });

  describe('a verifier bound to a secret the ingress cannot read', () => {
    const bind = (json: unknown) => h.call('/api/hooks/topics/mistakes-signed/verifier', { method: 'PUT', role: 'admin', json });

    it('is refused at binding, naming the field and the reference and how to fix it', async () => {
      const r = await bind({
        kind: 'github',
        secrets: ['env:HOOKS_SECRET_MISTAKES_SET', 'env:HOOKS_SECRET_MISTAKES_UNSET', 'env:HOOKS_SECRET_MISTAKES_EMPTY'],
      });
      expect(r.status).toBe(400);
      expect(r.body.error.details).toEqual([
        "secrets[1] env:HOOKS_SECRET_MISTAKES_UNSET: the ingress cannot read it (secret reference env:HOOKS_SECRET_MISTAKES_UNSET is not set); set HOOKS_SECRET_MISTAKES_UNSET (non-empty) in the ingress's environment and restart it, then bind again",
        "secrets[2] env:HOOKS_SECRET_MISTAKES_EMPTY: the ingress cannot read it (secret reference env:HOOKS_SECRET_MISTAKES_EMPTY is empty); set HOOKS_SECRET_MISTAKES_EMPTY (non-empty) in the ingress's environment and restart it, then bind again",
      ]);
      const file = await bind({ kind: 'github', secret: 'file:/var/run/secrets/hookyard/mistakes-missing' });
      expect(file.status).toBe(400);
      expect(file.body.error.details).toEqual([
        expect.stringMatching(
          /^secret file:\/var\/run\/secrets\/hookyard\/mistakes-missing: the ingress cannot read it \(.*\); mount the file \/var\/run\/secrets\/hookyard\/mistakes-missing \(non-empty, readable by the ingress\), then bind again$/,
        ),
      ]);
      expect((await h.call('/api/hooks/topics/mistakes-signed/verifier', { role: 'reader' })).status).toBe(404);
    });

    it('a readable one binds, and no answer carries its value', async () => {
      const r = await bind({ kind: 'github', secret: 'env:HOOKS_SECRET_MISTAKES_SET' });
      expect(r.status).toBe(201);
      expect(r.text).not.toContain(SECRET_VALUE);
    });
  });

  describe('a path no route takes', () => {
    it('the 404 quotes the path as sent, /api prefix and escapes included, without the query', async () => {
      const r = await h.call('/api/hookz/a%20b?limit=5', { role: 'reader' });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: { kind: 'not_found', message: 'no route GET /api/hookz/a%20b: the routes are listed in GET /openapi.json' } });
      const outside = await h.call('/nowhere', { method: 'POST', role: 'reader', json: {} });
      expect(outside.status).toBe(404);
      expect(outside.body.error.message).toBe('no route POST /nowhere: the routes are listed in GET /openapi.json');
    });
  });
});
