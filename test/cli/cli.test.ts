import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../../packages/cli/src/main';
import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { closedPort, inBatches, lines, parseStdout, runCli, type CliResult } from './support';

/**
 * The built `hookyard` CLI against one embedded server (`serve --role all`, in-memory):
 * every command's happy path with --json, the server's refusals on stderr with exit 1,
 * and the CLI's own exit codes (2 usage, 3 unreachable).
 */

const ADMIN = 'cli-test-admin-token-0123456789ab';
const OPERATOR = 'cli-test-operator-token-0123456789';
const READER = 'cli-test-reader-token-0123456789ab';

let server: RoleProcess;
let url = '';

/** The CLI as an admin of the test server, through the environment. */
function hy(args: readonly string[], opts: { token?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: opts.token ?? ADMIN, ...opts.env }, input: opts.input });
}

/** A --json command that must succeed: exit 0, nothing on stderr, one JSON document on stdout. */
async function ok<T = Record<string, unknown>>(args: readonly string[], opts: Parameters<typeof hy>[1] = {}): Promise<T> {
  const r = await hy([...args, '--json'], opts);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  expect(r.stderr).toBe('');
  return parseStdout<T>(r);
}

/**
 * A refusal: exit `code`, `hookyard: ...` first on stderr; stdout empty, or
 * under --json one JSON error document (`{"error":{"kind","message",...}}`).
 */
function expectRefused(r: CliResult, code: number, firstLine: RegExp): string[] {
  expect(r.code).toBe(code);
  if (r.stdout !== '') {
    const doc = JSON.parse(r.stdout) as { error?: { kind?: unknown; message?: unknown } };
    expect(doc.error).toEqual(expect.objectContaining({ kind: expect.any(String), message: expect.any(String) }));
  }
  const err = lines(r.stderr);
  expect(err[0]).toMatch(firstLine);
  return err;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function sendEvent(topic: string, payload: unknown): Promise<void> {
  const res = await fetch(`${url}/universal_webhook/${topic}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  expect(res.status).toBe(200);
}

/** Waits until the hook has `n` runs in `status` and returns them. */
async function runsOf(hook: string, status: string, n: number): Promise<any[]> {
  return eventually(
    async () => {
      const page = await api('GET', `/api/hook-runs?hook=${hook}&status=${status}`);
      return page.body.runs.length >= n ? (page.body.runs as any[]) : undefined;
    },
    15_000,
    `${n} ${status} run(s) of hook ${hook}`,
  );
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-test', 'all', {
    HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR},reader:${READER}`,
    // A verifier binding is refused when the ingress cannot read its secret.
    HOOKS_SECRET_CLI_TEST_SECRET: 'cli-test-secret-value',
  });
  url = server.url;
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

describe('help, version and usage errors', () => {
  /** Every command path of the program, e.g. ['hooks', 'verifier', 'set']. */
  type Cmd = ReturnType<typeof buildProgram>;
  function commandPaths(cmd: Cmd, prefix: string[] = []): string[][] {
    return cmd.commands.flatMap((c: Cmd): string[][] => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
  }

  it('--help on the program and on every command: exit 0, usage on stdout', async () => {
    const paths = [[], ...commandPaths(buildProgram())];
    expect(paths.length).toBeGreaterThan(20);
    const results = await inBatches(paths, 4, async (p) => ({ p, r: await runCli([...p, '--help']) }));
    for (const { p, r } of results) {
      expect({ p, code: r.code, stderr: r.stderr }).toEqual({ p, code: 0, stderr: '' });
      expect(r.stdout).toContain(`Usage: hookyard${p.length ? ` ${p.join(' ')}` : ''}`);
    }
  }, 60_000);

  it('--version prints the package version and exits 0', async () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'packages', 'cli', 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it.each([
    [['bogus'], /^hookyard: unknown command 'bogus'/],
    [['hooks', 'list', '--bogus'], /^hookyard: unknown option '--bogus'/],
    [['runs', 'show'], /^hookyard: missing required argument 'id'/],
    [['serve', '--role', 'nope'], /^hookyard: option '--role <role>' argument 'nope' is invalid/],
  ])('%j: one line on stderr, exit 2', async (args, line) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([expect.stringMatching(line)]);
  });

  it('a command group without its subcommand shows its help on stderr and exits 2', async () => {
    const r = await runCli(['runs']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: hookyard runs');
  });

  it('bad option values the CLI can check itself are usage errors (exit 2)', async () => {
    expectRefused(await hy(['runs', 'list', '--status', 'nope']), 2, /^hookyard: --status must be one of .*failed/);
    expectRefused(await hy(['runs', 'list', '--limit', '0']), 2, /^hookyard: --limit must be a whole number from 1 to 500/);
    expectRefused(await hy(['hooks', 'register', '--params', '{nope']), 2, /^hookyard: --params is not valid JSON/);
    expectRefused(await hy(['hooks', 'register']), 2, /^hookyard: the hook record is required/);
    expectRefused(await hy(['hooks', 'verifier', 'set', 't', '--kind', 'hmac', '--setting', 'novalue']), 2, /is not key=value/);
    expectRefused(await hy(['--url', 'not a url', 'hooks', 'list']), 2, /^hookyard: --url "not a url" is not a URL/);
  });
});

describe('connection and credentials', () => {
  it('no token: exit 2 with a hint', async () => {
    const r = await runCli(['hooks', 'list'], { env: { HOOKYARD_URL: url } });
    expectRefused(r, 2, /^hookyard: no API token: pass --token or set HOOKYARD_TOKEN/);
  });

  it('server not reachable: exit 3 with a hint', async () => {
    const port = await closedPort();
    const r = await hy(['hooks', 'list', '--json'], { env: { HOOKYARD_URL: `http://127.0.0.1:${port}` } });
    const err = expectRefused(r, 3, new RegExp(`^hookyard: cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
    expect(err).toHaveLength(1);
    expect(err[0]).toContain('HOOKYARD_URL');
  });

  it("a bad token is the server's 401: exit 1", async () => {
    const err = expectRefused(await hy(['hooks', 'list'], { token: 'not-a-token-of-this-server' }), 1, /^hookyard: 401 unauthorized: /);
    expect(err).toHaveLength(1);
  });

  it("a reader registering a hook is the server's 403: exit 1", async () => {
    const r = await hy(['hooks', 'register', '--params', '{"name":"by-reader","topic":"t","tool":"echo"}'], { token: READER });
    expectRefused(r, 1, /^hookyard: 403 forbidden: this route needs the operator role; the token has reader$/);
  });

  it('--url and --token win over HOOKYARD_URL and HOOKYARD_TOKEN', async () => {
    const port = await closedPort();
    const r = await runCli(['--url', url, '--token', READER, 'hooks', 'list', '--json'], {
      env: { HOOKYARD_URL: `http://127.0.0.1:${port}`, HOOKYARD_TOKEN: 'not-a-token-of-this-server' },
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(parseStdout(r)).toHaveProperty('hooks');
  });
});

describe('hooks', () => {
  const record = { name: 'cli-greet', topic: 'cli-demo', tool: 'echo', tool_kwargs: { greeting: 'hello' } };

  it('register, list, show, remove with --json', async () => {
    const created = await ok(['hooks', 'register', '--params', JSON.stringify(record)], { token: OPERATOR });
    expect(created).toMatchObject({ created: true, hook: record });
    const replaced = await ok(['hooks', 'register', '--file', '-'], { token: OPERATOR, input: JSON.stringify({ ...record, topic: 'cli-demo2' }) });
    expect(replaced).toMatchObject({ created: false, hook: { ...record, topic: 'cli-demo2' } });

    const list = await ok<{ hooks: { name: string }[] }>(['hooks', 'list'], { token: READER });
    expect(list.hooks.map((h) => h.name)).toContain('cli-greet');
    const onTopic = await ok<{ hooks: { name: string }[] }>(['hooks', 'list', '--topic', 'cli-demo2']);
    expect(onTopic.hooks.map((h) => h.name)).toEqual(['cli-greet']);
    expect(await ok(['hooks', 'show', 'cli-greet'])).toMatchObject({ ...record, topic: 'cli-demo2' });

    expect(await ok(['hooks', 'remove', 'cli-greet'], { token: OPERATOR })).toEqual({ removed: true, name: 'cli-greet' });
    expectRefused(await hy(['hooks', 'show', 'cli-greet', '--json']), 1, /^hookyard: 404 not_found: no hook named "cli-greet"$/);
  });

  it('a refused registration: the status line, then every detail the server gave, exit 1', async () => {
    const bad = { name: 'Bad Name', topic: 'cli-demo', tool: 'ghost', condition: { content: '.a |' }, start_expr: { content: '{' } };
    const direct = await api('POST', '/api/hooks', bad);
    expect(direct.status).toBe(400);
    const details = direct.body.error.details as string[];
    expect(details.length).toBeGreaterThanOrEqual(3);

    const r = await hy(['hooks', 'register', '--params', JSON.stringify(bad), '--json']);
    const err = expectRefused(r, 1, /^hookyard: 400 bad_input: hook registration refused$/);
    // A detail that starts with spaces (jq's program line, its caret) is printed as is under the one before.
    expect(err.slice(1)).toEqual(details.map((d) => (/^\s/.test(d) ? `    ${d.trimEnd()}` : `  - ${d.replace(/\s*\n\s*/g, ' ').trim()}`)));
    expect(err.slice(1).join('\n')).toMatch(/name "Bad Name" must match/);
    expect(err.slice(1).join('\n')).toMatch(/hook tool 'ghost' is not a registered tool/);
  });

  it('a jq syntax error prints the program line and a caret under the column; a misspelt tool names the closest', async () => {
    const record = { name: 'cli-caret', topic: 'cli-caret', tool: 'ecoh', condition: { content: '.action ==' } };
    const err = expectRefused(await hy(['hooks', 'register', '--params', JSON.stringify(record)]), 1, /^hookyard: 400 bad_input: hook registration refused$/);
    expect(err.slice(1)).toEqual([
      "  - hook tool 'ecoh' is not a registered tool; did you mean 'echo'?",
      '  - condition does not compile: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 9',
      '        .action ==',
      '                ^^',
    ]);
    // Column 9 of the program is where the caret stands, under the bullet's text.
    expect(err[4]!.indexOf('^') - err[3]!.indexOf('.action')).toBe(9 - 1);
  });

  it('dedupe set, show, remove with --json; a refused key lists its details', async () => {
    const set = await ok(['hooks', 'dedupe', 'set', 'cli-open', '--expr', '.headers["x-event-id"]', '--horizon', '3600']);
    expect(set).toMatchObject({ created: true, dedupe: { topic: 'cli-open', expr: '.headers["x-event-id"]', horizon_seconds: 3600 } });
    expect(await ok(['hooks', 'dedupe', 'show', 'cli-open'], { token: READER })).toMatchObject({
      topic: 'cli-open',
      expr: '.headers["x-event-id"]',
      horizon_seconds: 3600,
    });
    expect(await ok(['hooks', 'dedupe', 'set', 'cli-open', '--expr', '.body.id'])).toMatchObject({
      created: false,
      dedupe: { expr: '.body.id', horizon_seconds: 86400 },
    });
    expect(await ok(['hooks', 'dedupe', 'remove', 'cli-open'])).toEqual({ removed: true, topic: 'cli-open' });
    expectRefused(await hy(['hooks', 'dedupe', 'show', 'cli-open']), 1, /^hookyard: 404 not_found: /);
    expectRefused(
      await hy(['hooks', 'dedupe', 'set', 'cli-open', '--expr', '.id', '--horizon', '2h']),
      2,
      /^hookyard: --horizon must be a whole number of seconds, got "2h"/,
    );

    const err = expectRefused(
      await hy(['hooks', 'dedupe', 'set', 'cli-open', '--expr', '.id |||', '--horizon', '0']),
      1,
      /^hookyard: 400 bad_input: dedupe key refused$/,
    );
    expect(err.slice(1)).toEqual([
      expect.stringMatching(/^ {2}- expr ".id \|\|\|" does not compile: /),
      // jq's program line and the caret under its column, aligned.
      '        .id |||',
      '             ^',
      '  - horizon_seconds must be a whole number from 1 to 604800 (7 days), got 0',
    ]);
  });

  it('verifier set, show, remove with --json; a refused binding lists its details', async () => {
    const set = await ok([
      'hooks',
      'verifier',
      'set',
      'cli-signed',
      '--kind',
      'hmac',
      '--secret',
      'env:HOOKS_SECRET_CLI_TEST_SECRET',
      '--setting',
      'header=X-Sig',
      'algorithm=sha512',
    ]);
    expect(set).toMatchObject({
      created: true,
      verifier: { topic: 'cli-signed', kind: 'hmac', secrets: ['env:HOOKS_SECRET_CLI_TEST_SECRET'], settings: { header: 'x-sig', algorithm: 'sha512' } },
    });
    expect(await ok(['hooks', 'verifier', 'show', 'cli-signed'], { token: READER })).toMatchObject({ topic: 'cli-signed', kind: 'hmac' });
    // --nats trusted lets the NATS door keep the topic's messages; any other value is refused, naming the field.
    const trusted = await ok([
      'hooks',
      'verifier',
      'set',
      'cli-signed',
      '--kind',
      'github',
      '--secret',
      'env:HOOKS_SECRET_CLI_TEST_SECRET',
      '--nats',
      'trusted',
    ]);
    expect(trusted).toMatchObject({ created: false, verifier: { topic: 'cli-signed', kind: 'github', nats: 'trusted' } });
    const loose = expectRefused(
      await hy(['hooks', 'verifier', 'set', 'cli-signed', '--kind', 'github', '--secret', 'env:HOOKS_SECRET_CLI_TEST_SECRET', '--nats', 'yes']),
      1,
      /^hookyard: 400 bad_input: verifier binding refused$/,
    );
    expect(loose.slice(1)).toEqual(['  - nats must be "trusted" (or left out: the NATS door refuses the topic), got "yes"']);
    expect(await ok(['hooks', 'verifier', 'remove', 'cli-signed'])).toEqual({ removed: true, topic: 'cli-signed' });
    expectRefused(await hy(['hooks', 'verifier', 'show', 'cli-signed']), 1, /^hookyard: 404 not_found: /);

    const r = await hy(['hooks', 'verifier', 'set', 'cli-signed', '--kind', 'hmac', '--setting', 'bogus=1', 'tolerance_seconds=60']);
    const err = expectRefused(r, 1, /^hookyard: 400 bad_input: verifier binding refused$/);
    expect(err.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}- secrets is required/),
        expect.stringMatching(/^ {2}- settings\.bogus is not a setting of kind hmac/),
      ]),
    );
  });
});

describe('tools and templates', () => {
  it('tools list, show, register, remove with --json', async () => {
    const list = await ok<{ tools: { name: string; provider: string }[]; registered: unknown[] }>(['tools', 'list'], { token: READER });
    expect(list.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'echo', provider: 'local' })]));
    expect(Array.isArray(list.registered)).toBe(true);
    expect(await ok(['tools', 'show', 'echo'])).toMatchObject({ name: 'echo', provider: 'local', parameters: expect.any(Object) });
    const exported = await hy(['tools', 'export', '--format', 'anthropic'], { token: READER });
    expect(exported.code).toBe(0);
    const defs = JSON.parse(exported.stdout) as { name: string; input_schema: { type: string } }[];
    expect(defs.find((d) => d.name === 'echo')).toEqual(expect.objectContaining({ name: 'echo', input_schema: expect.objectContaining({ type: 'object' }) }));
    expectRefused(
      await hy(['tools', 'export', '--format', 'cohere'], { token: READER }),
      1,
      /^hookyard: 400 bad_input: format must be one of openai, openai-responses, anthropic, gemini, mcp, got "cohere"$/,
    );

    const port = await closedPort();
    const rec = { name: 'cli-remote', endpoint: `http://127.0.0.1:${port}/call`, protocol: 'openai' };
    const reg = await ok(['tools', 'register', '--params', JSON.stringify(rec)]);
    expect(reg).toMatchObject({ created: true, tool: rec });
    expectRefused(await hy(['tools', 'register', '--params', JSON.stringify(rec)], { token: OPERATOR }), 1, /^hookyard: 403 forbidden: /);
    expect(await ok(['tools', 'remove', 'cli-remote'])).toEqual({ removed: true, name: 'cli-remote' });

    const r = await hy(['tools', 'register', '--params', JSON.stringify({ name: 'cli-bad', endpoint: 'nope', protocol: 'morse' })]);
    const err = expectRefused(r, 1, /^hookyard: 400 bad_input: tool registration refused$/);
    expect(err.slice(1).join('\n')).toMatch(/protocol must be one of/);
  });

  it('tools register --no-discover keeps an openapi service unchecked; tools list shows its last discovery error', async () => {
    const port = await closedPort();
    const rec = { name: 'cli-pets', kind: 'openapi', endpoint: `http://127.0.0.1:${port}` };
    // Discovered now (by the executor of this embedded server), it cannot be read: refused, nothing kept.
    expectRefused(
      await hy(['tools', 'register', '--params', JSON.stringify(rec)]),
      1,
      /^hookyard: 502 (unavailable|forbidden): openapi tool 'cli-pets' could not be discovered/,
    );
    const reg = await hy(['tools', 'register', '--no-discover', '--params', JSON.stringify(rec)]);
    expect(reg.code).toBe(0);
    expect(reg.stdout.trim()).toBe(`registered tool service cli-pets (${rec.endpoint}): not discovered (--no-discover)`);
    // Listing asks the executor to describe it, which fails: the failure is kept and shown, with its time.
    const listed = await eventually(
      async () => {
        const r = await hy(['tools', 'list'], { token: READER });
        return r.stdout.split('\n').find((l) => l.startsWith('cli-pets ')) ? r.stdout : undefined;
      },
      15_000,
      'the discovery status of cli-pets',
    );
    expect(listed).toMatch(/^REGISTRATION +LAST_SUCCESS +LAST_DISCOVERY_ERROR$/m);
    expect(listed).toMatch(/^cli-pets +never +\d{4}-\d\d-\d\dT[\d:.]+Z (unavailable|forbidden): /m);
    const shown = await ok<{ discovery: { last_error: { kind: string } | null } }>(['tools', 'show', 'cli-pets']);
    expect(shown.discovery.last_error?.kind).toMatch(/^(unavailable|forbidden)$/);
    expect(await ok(['tools', 'remove', 'cli-pets'])).toEqual({ removed: true, name: 'cli-pets' });
  });

  it('templates put, list, show, remove with --json (ids with a slash)', async () => {
    const put = await ok(['templates', 'put', 'cli/has-label', '--content', '.labels | index($label) != null', '--description', 'a label is set'], {
      token: OPERATOR,
    });
    expect(put).toMatchObject({ created: true, template: { id: 'cli/has-label' } });
    const list = await ok<{ templates: { id: string }[] }>(['templates', 'list']);
    expect(list.templates.map((t) => t.id)).toContain('cli/has-label');
    expect(await ok(['templates', 'show', 'cli/has-label'])).toMatchObject({ id: 'cli/has-label', description: 'a label is set' });
    expect(await ok(['templates', 'remove', 'cli/has-label'])).toEqual({ removed: true, id: 'cli/has-label' });
    expectRefused(await hy(['templates', 'put', 'cli/bad', '--content', '.a |']), 1, /^hookyard: 400 bad_input: template refused$/);
  });
});

describe('runs', () => {
  it('a failed run: list and show it, retry it (it fails again), discard it; retrying a discarded run is 409', async () => {
    // A condition that indexes into a string raises: bad_input, no retry, the run is held as failed.
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-fails', topic: 'cli-fail', tool: 'echo', condition: { content: '.a.b.c' } })]);
    await sendEvent('cli-fail', { a: 'a string' });
    const [failed] = await runsOf('cli-fails', 'failed', 1);
    const id = failed.id as string;

    const list = await ok<{ runs: { id: string; status: string }[]; next_cursor: string | null }>(
      ['runs', 'list', '--hook', 'cli-fails', '--status', 'failed'],
      {
        token: READER,
      },
    );
    expect(list.runs.map((r) => [r.id, r.status])).toEqual([[id, 'failed']]);
    const shown = await ok(['runs', 'show', id]);
    expect(shown).toMatchObject({ id, hook: 'cli-fails', status: 'failed', attempts: 1, error: { kind: 'bad_input' } });

    const retried = await ok<{ id: string; status: string }>(['runs', 'retry', id], { token: OPERATOR });
    expect(retried.id).toBe(id);
    expect(['pending', 'running', 'failed']).toContain(retried.status);
    await eventually(
      async () =>
        ((await api('GET', `/api/hook-runs/${id}`)).body.history as { event: string }[]).filter((h) => h.event === 'failed').length === 2 || undefined,
      15_000,
      'the retried run to fail again',
    );

    const discarded = await ok(['runs', 'discard', id], { token: OPERATOR });
    expect(discarded).toMatchObject({ id, status: 'discarded' });
    const again = await hy(['runs', 'retry', id, '--json'], { token: OPERATOR });
    expectRefused(again, 1, new RegExp(`^hookyard: 409 conflict: run ${id} is discarded; only a failed run can be retried$`));
  });

  it('retrying a run that succeeded is refused: 409, exit 1', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-works', topic: 'cli-ok', tool: 'echo' })]);
    await sendEvent('cli-ok', { n: 1 });
    const [done] = await runsOf('cli-works', 'succeeded', 1);
    const r = await hy(['runs', 'retry', done.id]);
    expectRefused(r, 1, /^hookyard: 409 conflict: run \S+ is succeeded; only a failed run can be retried$/);
    expectRefused(await hy(['runs', 'show', 'no-such-run']), 1, /^hookyard: 404 not_found: no run "no-such-run"$/);
  });

  it('runs list --all follows next_cursor to the last page', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-paged', topic: 'cli-pages', tool: 'echo' })]);
    for (let n = 0; n < 3; n++) await sendEvent('cli-pages', { n });
    const done = await runsOf('cli-paged', 'succeeded', 3);

    const one = await ok<{ runs: { id: string }[]; next_cursor: string | null }>(['runs', 'list', '--hook', 'cli-paged', '--limit', '1']);
    expect(one.runs).toHaveLength(1);
    expect(one.next_cursor).toEqual(expect.any(String));
    const next = await ok<{ runs: { id: string }[] }>(['runs', 'list', '--hook', 'cli-paged', '--limit', '1', '--cursor', one.next_cursor!]);
    expect(next.runs).toHaveLength(1);
    expect(next.runs[0]!.id).not.toBe(one.runs[0]!.id);

    const all = await ok<{ runs: { id: string }[]; next_cursor: string | null }>(['runs', 'list', '--hook', 'cli-paged', '--limit', '1', '--all']);
    expect(all.next_cursor).toBeNull();
    expect(all.runs.map((r) => r.id).sort()).toEqual(done.map((r) => r.id as string).sort());

    const human = await hy(['runs', 'list', '--hook', 'cli-paged', '--all']);
    expect(human.code).toBe(0);
    expect(lines(human.stdout)).toHaveLength(4); // header + 3 runs, no "more:" line
  });
});

describe('interactions', () => {
  it('a wait parks its run: list, show and cancel its interaction (the run ends cancelled); a second cancel is 409', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-waits', topic: 'cli-wait', tool: 'wait', tool_kwargs: { timeout_seconds: 600 } })]);
    await sendEvent('cli-wait', { n: 1 });
    const [run] = await runsOf('cli-waits', 'parked', 1);
    const parkedOn = run.parked_on as string[];
    expect(parkedOn).toHaveLength(1);
    const list = await ok<{ interactions: { id: string; status: string; run: string }[] }>(
      ['interactions', 'list', '--hook', 'cli-waits', '--status', 'open'],
      { token: READER },
    );
    expect(list.interactions.map((i) => [i.id, i.status, i.run])).toEqual([[parkedOn[0], 'open', run.id]]);
    expect(await ok(['interactions', 'show', parkedOn[0]!])).toMatchObject({ id: parkedOn[0], kind: 'wait', tool: 'wait', on_timeout: 'fail' });
    expect(await ok(['interactions', 'cancel', parkedOn[0]!, '--reason', 'not needed'], { token: OPERATOR })).toMatchObject({
      status: 'cancelled',
      resolution: { by: expect.stringMatching(/^operator:[0-9a-f]{8}$/), via: 'api', reason: 'not needed' },
    });
    expect((await api('GET', `/api/hook-runs/${run.id as string}`)).body).toMatchObject({ status: 'cancelled', parked_on: [] });
    expectRefused(
      await hy(['interactions', 'cancel', parkedOn[0]!], { token: OPERATOR }),
      1,
      new RegExp(`^hookyard: 409 conflict: interaction ${parkedOn[0]} is already cancelled`),
    );
    expectRefused(await hy(['interactions', 'list', '--kind', 'job']), 2, /^hookyard: --kind must be one of approval, wait/);
  });
});

describe('settings and serve refusals', () => {
  it('settings --json lists every variable with its doc', async () => {
    const r = await runCli(['settings', '--json']);
    expect(r.code).toBe(0);
    const { settings } = parseStdout<{ settings: { variable: string; doc: string }[] }>(r);
    expect(settings.map((s) => s.variable)).toEqual(expect.arrayContaining(['HOOKS_RUN_MAX_ATTEMPTS', 'HOOKS_REDIS_URL', 'HOOKS_API_TOKENS']));
    for (const s of settings) expect(s.doc.startsWith(s.variable)).toBe(true);
  });

  it('serve with a bad setting: one line naming the variable, exit 2', async () => {
    const r = await runCli(['serve'], { env: { HOOKS_HTTP_PORT: '0', HOOKS_RUN_MAX_ATTEMPTS: 'abc' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([expect.stringMatching(/^hookyard: bad setting HOOKS_RUN_MAX_ATTEMPTS: /)]);
  });

  it('serve --role executor without Redis and NATS: one line saying why, exit 2', async () => {
    const r = await runCli(['serve', '--role', 'executor'], { env: { HOOKS_HTTP_PORT: '0' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(/^hookyard: role 'executor' .*HOOKS_REDIS_URL and HOOKS_NATS_URL.*in-memory form lives in one process only/),
    ]);
  });
});
