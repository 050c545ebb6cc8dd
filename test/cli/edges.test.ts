import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI_BIN, eventually, requireBuiltCli, startRole } from '../support/processes';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { lines, runCli } from './support';

/**
 * The edges a new user meets: `hookyard` as a real command on the PATH (the
 * README's line, under xargs too), shell completion, a closed pipe, and a URL
 * that points at something that is not Hookyard.
 */

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

beforeAll(() => requireBuiltCli());

describe('hookyard on the PATH', () => {
  it("the README's PATH line makes `hookyard` a command that xargs can run", async () => {
    // The workspace's bin (the Quick start's Node-from-npm block has a PATH line of its own, for node).
    const line = README.split('\n').find((l) => l.startsWith('export PATH=') && l.includes('$PWD/node_modules/.bin'));
    expect(line).toBeDefined();
    const version = (JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }).version;
    // A bare PATH without the workspace: only the README's line can put hookyard on it.
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `${line}\necho --version | xargs hookyard\ncommand -v hookyard`], {
      cwd: ROOT,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    });
    const out = lines(stdout);
    expect(out[0]).toBe(version);
    expect(out[1]).toBe(join(ROOT, 'node_modules', '.bin', 'hookyard'));
  });
});

/** What bash completes for the words typed so far (the last one is being typed). */
async function complete(words: string[]): Promise<string[]> {
  const script = (await runCli(['completion', 'bash'])).stdout;
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const { stdout } = await run('bash', [
    '-c',
    `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _hookyard; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return lines(stdout).sort();
}

describe('shell completion', () => {
  it('bash: commands, subcommands, options and option values, from the command tree', async () => {
    expect(await complete(['hookyard', ''])).toEqual(expect.arrayContaining(['completion', 'hooks', 'runs', 'serve', 'settings', 'tools', 'templates']));
    expect(await complete(['hookyard', 'ru'])).toEqual(['runs']);
    expect(await complete(['hookyard', 'runs', 'l'])).toEqual(['list']);
    expect(await complete(['hookyard', '--json', 'hooks', 'verifier', 's'])).toEqual(['set', 'show']);
    expect(await complete(['hookyard', 'runs', 'list', '--st'])).toEqual(['--status']);
    expect(await complete(['hookyard', 'serve', '--role', 'ex'])).toEqual(['executor']);
    // A positional argument does not change the command path.
    expect(await complete(['hookyard', 'runs', 'show', 'abc', '--j'])).toEqual(['--json']);
  });

  it('zsh: the same function through bashcompinit; an unknown shell is a usage error', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef hookyard\n/);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -F _hookyard hookyard');
    const fish = await runCli(['completion', 'fish']);
    expect(fish.code).toBe(2);
    expect(fish.stderr).toMatch(/^hookyard: completion: shell must be one of bash, zsh, got "fish"/);
  });
});

describe('a closed pipe', () => {
  it('output to a reader that went away (`| head`) ends quietly: no EPIPE, no stack trace', async () => {
    // `settings` prints dozens of lines without a server; the reader closes before the first.
    const child = spawn(process.execPath, [CLI_BIN, 'settings'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('`hookyard settings | head -1` in a shell: one line, exit 0, nothing on stderr', async () => {
    const { stdout, stderr } = await run('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${CLI_BIN}" settings | head -1`]);
    expect(lines(stdout)).toHaveLength(1);
    expect(stderr).toBe('');
  });
});

describe('a URL that is not Hookyard', () => {
  let server: MockServer;
  let url = '';

  beforeAll(async () => {
    // Answers every request 200 with a JSON body the CLI would otherwise try to read as a page of hooks.
    server = await startMockServer(() => ({ body: '{"ok":true}' }));
    url = server.url;
  });

  afterAll(() => server.close());

  it('says so in one line and exits 3, instead of failing on the answer', async () => {
    const r = await runCli(['hooks', 'list'], { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: 'any-token-0123456789abcdef' } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      `hookyard: ${url} is not a Hookyard management API: GET /api/hooks answered 200 without the x-hookyard-api header (application/json: "{\\"ok\\":true}"); point --url or HOOKYARD_URL at a Hookyard ingress`,
    ]);
  });
});

describe('settings at boot', () => {
  it.each([
    [{ HOOKS_KEY_PREFIX: '' }, 'hookyard: bad setting HOOKS_KEY_PREFIX: must not be empty (unset it for the default hookyard)'],
    [{ HOOKS_NATS_PREFIX: 'a b' }, 'hookyard: bad setting HOOKS_NATS_PREFIX: must be NATS subject tokens (letters, digits, _ and -) joined by dots, got "a b"'],
    [{ HOOKS_TRUSTED_PROXIES: 'lb' }, 'hookyard: bad setting HOOKS_TRUSTED_PROXIES: entry "lb" is not an IP address or CIDR range'],
    [{ HOOKS_HTTP_HOST: 'a_b c' }, 'hookyard: bad setting HOOKS_HTTP_HOST: must be an IP address or a host name to bind, got "a_b c"'],
    [
      { HOOKS_TOOLS_ALLOW: '!echo' },
      'hookyard: bad setting HOOKS_TOOLS_ALLOW: allows no tool: "!echo" only excludes; add * (e.g. "*,!echo") or the names to allow',
    ],
    [
      { HOOKS_LOCAL_FS_ROOT: '/nonexistent-hookyard-root' },
      'hookyard: bad setting HOOKS_LOCAL_FS_ROOT: /nonexistent-hookyard-root does not exist or cannot be read (ENOENT)',
    ],
    [
      { HOOKS_REDIS_URL: 'redis://127.0.0.1:1', HOOKS_NATS_URL: 'nats://127.0.0.1:1' },
      'hookyard: bad setting HOOKS_API_TOKENS: no management token configured; set role:token pairs (only the embedded default makes one up)',
    ],
  ])('serve with %j: exit 2, one line naming the variable', async (env, line) => {
    const r = await runCli(['serve'], { env: { HOOKS_HTTP_PORT: '0', ...env }, killAfterMs: 15_000 });
    expect({ code: r.code, stderr: lines(r.stderr) }).toEqual({ code: 2, stderr: [line] });
  });

  it('an unknown HOOKS_* variable is warned about at boot with the nearest known name', async () => {
    const server = startRole('typo', 'all', { HOOKS_API_TOKENS: 'admin:typo-test-admin-token-0123456', HOOKS_RUN_MAX_ATTEMPT: '3' });
    try {
      await server.waitListening();
      const warned = await eventually(async () => server.logs().find((l) => l.variable === 'HOOKS_RUN_MAX_ATTEMPT'), 5_000, 'the warning');
      expect(warned).toMatchObject({
        level: 40,
        suggestion: 'HOOKS_RUN_MAX_ATTEMPTS',
        msg: 'HOOKS_RUN_MAX_ATTEMPT is not a Hookyard setting and is ignored; did you mean HOOKS_RUN_MAX_ATTEMPTS?',
      });
      // Logs carry each key once: the base keys (service, role, instance) are never repeated on a line.
      await eventually(async () => server.logs().find((l) => l.msg === 'executor started'), 5_000, 'the executor line');
      for (const line of server.lines.filter((l) => l.startsWith('{'))) {
        for (const key of ['service', 'role', 'instance']) expect([line, line.split(`"${key}":`).length - 1]).toEqual([line, 1]);
      }
    } finally {
      await server.stop();
    }
  });
});
