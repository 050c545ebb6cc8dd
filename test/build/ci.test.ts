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
