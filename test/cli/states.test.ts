import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard states list|show|set|delete` against one embedded server: a
 * hook's state_merge writes a subject's state (attributed to its run), the
 * CLI lists, shows, replaces and deletes it; refusals exit 1 quoting the
 * server, usage errors exit 2.
 */

const ADMIN = 'cli-states-admin-token-0123456789';
const OPERATOR = 'cli-states-operator-token-0123456789';
const READER = 'cli-states-reader-token-0123456789';

let server: RoleProcess;
let url = '';

function hy(args: readonly string[], token = OPERATOR): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: token } });
}

async function ok<T = Record<string, any>>(args: readonly string[], token = OPERATOR): Promise<T> {
  const r = await hy([...args, '--json'], token);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  expect(r.stderr).toBe('');
  return parseStdout<T>(r);
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-states', 'all', {
    HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR},reader:${READER}`,
    HOOKS_DOOR_RATE: '0',
    HOOKS_STATE_MAX_BYTES: '256',
  });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe('states', () => {
  let runId = '';

  it("a hook's state_merge writes the subject's state; list and show name the hook and its run", async () => {
    const hook = {
      name: 'pr-checks',
      topic: 'ci',
      tool: 'state_merge',
      subject: { scope: 'github', kind: 'pull_request', key_expr: { content: '"\\(.repo)#\\(.pr)"' } },
      start_expr: { content: '{patch: {checks: .checks}}' },
    };
    // The state is declared before a hook binds it or anyone writes it: until then both are 404.
    const early = await hy(['hooks', 'register', '--params', JSON.stringify(hook)], ADMIN);
    expect([early.code, lines(early.stderr)[0]]).toEqual([1, expect.stringContaining('404 not_found: subject github/pull_request is not a declared state')]);
    const unset = await hy(['states', 'set', 'github', 'pull_request', 'acme/api#7', '--document', '{}']);
    expect([unset.code, lines(unset.stderr)[0]]).toEqual([
      1,
      expect.stringContaining('404 not_found: state github/pull_request/"acme/api#7": github/pull_request is not a declared state'),
    ]);
    await ok(['states', 'declare', 'github', 'pull_request', '--schema', '{}', '--description', 'a pull request'], ADMIN);
    await ok(['hooks', 'register', '--params', JSON.stringify(hook)], ADMIN);
    const sent = await ok<{ run_ids: string[] }>(['send', 'ci', '--data', '{"repo":"acme/api","pr":7,"checks":"pending"}']);
    runId = sent.run_ids[0]!;
    await eventually(
      async () => {
        const r = await hy(['runs', 'show', runId, '--json']);
        return r.code === 0 && parseStdout<{ status: string }>(r).status === 'succeeded' ? true : undefined;
      },
      15_000,
      `run ${runId} to succeed`,
    );

    const list = await ok(['states', 'list', '--scope', 'github', '--kind', 'pull_request'], READER);
    expect(list).toEqual({
      states: [
        {
          scope: 'github',
          kind: 'pull_request',
          key: 'acme/api#7',
          version: 1,
          updated_at: expect.any(String),
          updated_by: { door: 'hook', actor: runId, hook: 'pr-checks' },
        },
      ],
      next_cursor: null,
    });
    const human = await hy(['states', 'list', '--scope', 'github', '--kind', 'pull_request'], READER);
    expect(human.code).toBe(0);
    expect(lines(human.stdout)[0]).toMatch(/^KEY\s+VERSION\s+UPDATED_AT\s+UPDATED_BY$/);
    expect(lines(human.stdout)[1]).toMatch(new RegExp(`^acme/api#7\\s+1\\s+\\S+\\s+hook pr-checks run ${runId}$`));

    const shown = await ok(['states', 'show', 'github', 'pull_request', 'acme/api#7'], READER);
    expect(shown).toMatchObject({
      version: 1,
      document: { checks: 'pending' },
      history: [{ version: 1, op: 'merge', door: 'hook', actor: runId, hook: 'pr-checks' }],
    });
    const text = await hy(['states', 'show', 'github', 'pull_request', 'acme/api#7'], READER);
    expect(text.stdout).toMatch(/^github\/pull_request\/"acme\/api#7" version 1 \(created \S+, updated \S+\)\n\{\n {2}"checks": "pending"\n\}\n/);
    expect(text.stdout).toContain(`hook pr-checks run ${runId}`);
  });

  it('set replaces the document as the operator (door api); a stale --if-version exits 1 quoting the 409', async () => {
    const stale = await hy(['states', 'set', 'github', 'pull_request', 'acme/api#7', '--document', '{"checks":"green"}', '--if-version', '0']);
    expect(stale.code).toBe(1);
    expect(lines(stale.stderr)[0]).toBe(
      'hookyard: 409 conflict: state github/pull_request/"acme/api#7" is at version 1, not version 0 (if_version); read it again and retry',
    );
    const set = await hy(['states', 'set', 'github', 'pull_request', 'acme/api#7', '--document', '{"checks":"green"}', '--if-version', '1']);
    expect([set.code, set.stdout]).toEqual([0, 'set github/pull_request/"acme/api#7": version 2\n']);
    // Empty stdin is not JSON: a usage error.
    expect((await hy(['states', 'set', 'github', 'pull_request', 'acme/api#8', '--file', '-'])).code).toBe(2);
    const fromStdin = await runCli(['states', 'set', 'github', 'pull_request', 'acme/api#8', '--file', '-', '--json'], {
      env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: OPERATOR },
      input: '{"checks":"none"}',
    });
    expect(fromStdin.code).toBe(0);
    expect(parseStdout(fromStdin)).toMatchObject({
      key: 'acme/api#8',
      version: 1,
      history: [{ door: 'api', actor: expect.stringMatching(/^operator:[0-9a-f]{8}$/), hook: null }],
    });
    const shown = await ok(['states', 'show', 'github', 'pull_request', 'acme/api#7'], READER);
    expect(shown.history.map((w: { door: string }) => w.door)).toEqual(['hook', 'api']);
  });

  it('refusals exit 1 quoting the server: a reader writing (403), a document past HOOKS_STATE_MAX_BYTES (400), no state (404)', async () => {
    const weak = await hy(['states', 'set', 'github', 'pull_request', 'x', '--document', '{}'], READER);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('needs the operator role');
    const big = await hy(['states', 'set', 'github', 'pull_request', 'x', '--document', JSON.stringify({ blob: 'x'.repeat(300) })]);
    expect(big.code).toBe(1);
    expect(lines(big.stderr)[0]).toMatch(
      /^hookyard: 400 bad_input: state github\/pull_request\/"x": the document would be \d+ bytes, more than 256 \(HOOKS_STATE_MAX_BYTES\)$/,
    );
    const none = await hy(['states', 'show', 'github', 'pull_request', 'x'], READER);
    expect([none.code, lines(none.stderr)[0]]).toEqual([1, 'hookyard: 404 not_found: subject github/pull_request/"x" has no state']);
  });

  it('usage errors exit 2 without asking the server', async () => {
    for (const args of [
      ['states', 'list', '--scope', 'GitHub', '--kind', 'pr'],
      ['states', 'list', '--kind', 'pr'],
      ['states', 'set', 'github', 'pr', 'k'],
      ['states', 'set', 'github', 'pr', 'k', '--document', '[1]'],
      ['states', 'set', 'github', 'pr', 'k', '--document', '{}', '--if-version', '-1'],
      ['states', 'delete', 'Bad', 'pr', 'k'],
    ]) {
      const r = await hy(args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
    }
  });

  it('delete removes the state (404 after); a stale --if-version exits 1', async () => {
    const stale = await hy(['states', 'delete', 'github', 'pull_request', 'acme/api#7', '--if-version', '1']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('409 conflict');
    const del = await hy(['states', 'delete', 'github', 'pull_request', 'acme/api#7', '--if-version', '2']);
    expect([del.code, del.stdout]).toEqual([0, 'deleted github/pull_request/"acme/api#7" (it was at version 2)\n']);
    expect((await hy(['states', 'show', 'github', 'pull_request', 'acme/api#7'], READER)).code).toBe(1);
    expect((await ok(['states', 'list', '--scope', 'github', '--kind', 'pull_request'], READER)).states.map((s: { key: string }) => s.key)).toEqual([
      'acme/api#8',
    ]);
  });
});

describe('state declarations', () => {
  it('declare (admin), declarations (list and one, with the hooks that bind it), undeclare; refusals exit 1 quoting the server', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { at: { type: 'string' } } });
    const weak = await hy(['states', 'declare', 'acme', 'deploy', '--schema', schema, '--description', 'deploys']);
    expect([weak.code, weak.stderr]).toEqual([1, expect.stringContaining('needs the admin role')]);
    const made = await ok(
      ['states', 'declare', 'acme', 'deploy', '--schema', schema, '--description', 'deploys', '--template', 'key_expr={"content":".service"}'],
      ADMIN,
    );
    expect(made).toMatchObject({ created: true, declaration: { scope: 'acme', kind: 'deploy', version: 1, templates: { key_expr: { content: '.service' } } } });
    const text = await hy(['states', 'declare', 'acme', 'deploy', '--schema', schema, '--description', 'deploys v2'], ADMIN);
    expect([text.code, text.stdout]).toEqual([0, 'changed acme/deploy: version 2\n']);
    const bad = await hy(['states', 'declare', 'acme', 'other', '--schema', '{"type":"nope"}', '--description', 'x'], ADMIN);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('schema does not compile (JSON Schema draft 2020-12)')]);
    const list = await ok(['states', 'declarations'], READER);
    expect(list.declarations.map((d: { scope: string; kind: string }) => `${d.scope}/${d.kind}`)).toContain('acme/deploy');
    const one = await ok(['states', 'declarations', 'acme', 'deploy'], READER);
    expect(one).toMatchObject({ description: 'deploys v2', bound_by: [] });
    const gone = await hy(['states', 'undeclare', 'acme', 'deploy'], ADMIN);
    expect([gone.code, gone.stdout]).toEqual([0, 'undeclared acme/deploy (it was at version 2)\n']);
    expect((await hy(['states', 'declarations', 'acme', 'deploy'], READER)).code).toBe(1);
    expect((await hy(['states', 'declarations', 'acme'], READER)).code).toBe(2);
  });
});
