/**
 * The CLI's first-hour edges: a --url ending in /api, errors as JSON under
 * --json, completion of values the server knows (hook names, run ids) and of
 * statuses, and a --hook filter naming no registered hook.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { closedPort, lines, parseStdout, runCli } from './support';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

describe('CLI first-hour edges', () => {
  let server: RoleProcess;
  let env: Record<string, string>;
  let runId: string;
  const token = randomBytes(16).toString('hex');

  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${token}` });
    const url = await server.waitListening();
    env = { HOOKYARD_URL: url, HOOKYARD_TOKEN: token };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${url}/api/hooks`, { method: 'POST', headers, body: JSON.stringify({ name: 'greet', topic: 'demo', tool: 'echo' }) });
    const door = (await (await fetch(`${url}/universal_webhook/demo`, { method: 'POST', headers, body: '{}' })).json()) as { run_ids: string[] };
    runId = door.run_ids[0]!;
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('a --url ending in /api is exit 3 saying to point at the server root', async () => {
    const r = await runCli(['hooks', 'list', '--url', `${env.HOOKYARD_URL}/api`], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `hookyard: --url "${env.HOOKYARD_URL}/api" ends in /api: point it (or HOOKYARD_URL) at the server root, e.g. --url ${env.HOOKYARD_URL}; the CLI adds /api itself\n`,
    );
  });

  it('under --json an error is one JSON document on stdout, the exit code unchanged', async () => {
    const refused = await runCli(['hooks', 'show', 'nope', '--json'], { env });
    expect(refused.code).toBe(1);
    expect(parseStdout(refused)).toEqual({ error: { kind: 'not_found', message: expect.stringContaining('nope'), status: 404 } });
    const down = await runCli(['hooks', 'list', '--json', '--url', `http://127.0.0.1:${await closedPort()}`], { env });
    expect(down.code).toBe(3);
    expect(parseStdout(down)).toEqual({ error: { kind: 'unreachable', message: expect.stringContaining('cannot reach') } });
    const usage = await runCli(['runs', 'list', '--json', '--bogus'], { env });
    expect(usage.code).toBe(2);
    expect(parseStdout(usage)).toEqual({ error: { kind: 'usage', message: "unknown option '--bogus'" } });
  });

  it('a --hook filter naming no registered hook warns on stderr, naming the closest; exit 0 with the empty list', async () => {
    const r = await runCli(['runs', 'list', '--hook', 'gret'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('(none)\n');
    expect(r.stderr).toBe(`hookyard: warning: no hook named "gret" is registered (did you mean "greet"?); see 'hookyard hooks list'\n`);
    const known = await runCli(['runs', 'list', '--hook', 'greet'], { env });
    expect(known.stderr).toBe('');
  });

  /** What bash completes for the words typed so far, with `hookyard` on the PATH and the server in the environment. */
  async function complete(words: string[], extra: Record<string, string> = env): Promise<string[]> {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const quoted = words.map((w) => `'${w}'`).join(' ');
    const { stdout } = await run(
      'bash',
      ['-c', `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _hookyard; printf '%s\\n' "\${COMPREPLY[@]}"`],
      {
        env: { PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, ...extra },
      },
    );
    return lines(stdout).sort();
  }

  it('completion offers hook names, run ids and statuses; nothing from a server out of reach', async () => {
    await eventually(async () => ((await complete(['hookyard', 'runs', 'show', ''])).includes(runId) ? true : undefined), 10_000, 'the run id');
    expect(await complete(['hookyard', 'runs', 'list', '--hook', 'gr'])).toEqual(['greet']);
    expect(await complete(['hookyard', 'hooks', 'show', 'g'])).toEqual(['greet']);
    expect(await complete(['hookyard', 'runs', 'list', '--status', 'fa'])).toEqual(['failed']);
    expect(await complete(['hookyard', 'interactions', 'list', '--status', 'o'])).toEqual(['open']);
    const down = { HOOKYARD_URL: `http://127.0.0.1:${await closedPort()}`, HOOKYARD_TOKEN: token };
    expect(await complete(['hookyard', 'runs', 'list', '--hook', ''], down)).toEqual([]);
  });
});
