/**
 * The README's Quick start, pasted as a newcomer would: the first block in
 * one shell (in the repository, with a fresh HOME; the two installs are
 * already done here, so they are stubbed), its banner checked line by line
 * against the README's; the second block in another shell with the banner's
 * export line pasted where it says; then Ctrl-C. `pnpm test:quick` is a real
 * script that runs fewer files than `pnpm test`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, requireBuiltCli } from '../support/processes';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = README.slice(README.indexOf('## Quick start\n'), README.indexOf('\n## ', README.indexOf('## Quick start\n') + 3));
const blocks = (lang: string) => [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

describe('README Quick start, pasted', () => {
  let home: string;

  beforeAll(() => {
    requireBuiltCli();
    home = mkdtempSync(join(tmpdir(), 'hookyard-quickstart-'));
  });

  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('the server block prints the banner the README shows; the second-terminal block reaches it with the pasted export line; Ctrl-C stops it', async () => {
    // The blocks after the one that gets Node 24 (checked against .nvmrc by test/build/ci.test.ts).
    const sh = blocks('sh');
    const serverBlock = sh.find((b) => b.includes('pnpm start'));
    const secondBlock = sh.find((b) => b.includes('hookyard hooks list'));
    const testsBlock = sh.find((b) => /^pnpm test:quick /m.test(b));
    expect(serverBlock).toBeDefined();
    expect(testsBlock).toBeDefined();
    // Installs done already: npm and `pnpm install` do nothing; `pnpm start` runs for real (port 0: a free one).
    const stubs = 'npm() { :; }\npnpm() { if [ "$1" = install ]; then return 0; fi; command pnpm "$@"; }\n';
    const server = spawn('bash', ['-c', stubs + serverBlock!], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: home, HOOKS_HTTP_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let err = '';
    server.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    server.stdout.resume();
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    try {
      await eventually(async () => (/HOOKYARD_TOKEN=\S+\n[\s\S]*to keep them/.test(err) ? true : undefined), 60_000, 'the banner');
      const url = /listening on (http:\/\/\S+)/.exec(err)![1]!;
      const token = /HOOKYARD_TOKEN=(\S+)/.exec(err)![1]!;
      // The banner as the README shows it, with this start's address and token.
      const shown = blocks('text')[0]!.replaceAll('http://127.0.0.1:8080', url).replaceAll('<token>', token).trimEnd().split('\n');
      const printed = err.split('\n');
      const at = printed.indexOf(shown[0]!);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(printed.slice(at, at + shown.length)).toEqual(shown);
      const exportLine = printed.find((l) => l.trim().startsWith('export HOOKYARD_URL='))!.trim();
      // The second terminal: the block as written, the banner's export line pasted where it says.
      expect(secondBlock).toContain("# paste the banner's export line here");
      const second = secondBlock!.replace("# paste the banner's export line here", exportLine);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', second], {
        cwd: ROOT,
        env: { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: home },
      });
      expect(stdout).toBe('(none)\n');
      const page = await fetch(`${url}/console`);
      expect(page.status).toBe(200);
    } finally {
      // Ctrl-C: SIGINT to the whole foreground group, as a terminal sends it.
      process.kill(-server.pid!, 'SIGINT');
      await exited;
    }
    expect(err).toContain('hookyard: SIGINT: stopping; no run in flight; Ctrl-C again exits at once\n');
    expect(err).toContain('hookyard: stopped; lost with the in-memory store: nothing\n');
  }, 90_000);

  it('pnpm test:quick runs fewer test files than pnpm test, none of the spawned-process suites under test/', async () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const quick = /jest --ci (.*)$/.exec(scripts['test:quick']!)?.[1];
    expect(quick).toBeDefined();
    const jest = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const list = async (args: string[]) => (await run('bash', ['-c', `node ${jest} --listTests ${args.join(' ')}`], { cwd: ROOT })).stdout.trim().split('\n');
    const [all, some] = await Promise.all([list([]), list([quick!])]);
    expect(some.length).toBeGreaterThan(50);
    expect(some.length).toBeLessThan(all.length);
    expect(some.filter((f) => f.startsWith(join(ROOT, 'test') + '/'))).toEqual([]);
  });
});
