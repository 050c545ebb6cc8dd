import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { staleBuilds } = require('../support/build-freshness') as { staleBuilds(root: string): string[] };

/** A workspace of one tsc project (`pkg`, with Lua scripts) and the console package, every file at a given time. */
function workspace(): { root: string; file(rel: string, body: string, at: number): void } {
  const root = mkdtempSync(join(tmpdir(), 'hy-fresh-'));
  const file = (rel: string, body: string, at: number) => {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, body);
    utimesSync(p, at, at); // seconds: no clock, no sleeps
  };
  file('tsconfig.build.json', JSON.stringify({ files: [], references: [{ path: 'pkg' }] }), 1000);
  return { root, file };
}

describe('build freshness (jest globalSetup refuses a build older than its sources)', () => {
  let ws: ReturnType<typeof workspace>;
  const built = () => {
    ws.file('pkg/src/index.ts', 'export {};', 1000);
    ws.file('pkg/tsconfig.tsbuildinfo', '{}', 2000);
    ws.file('pkg/src/redis/lua/claim.lua', 'return 1', 1000);
    ws.file('pkg/dist/redis/lua/claim.lua', 'return 1', 2000);
    ws.file('packages/console/src/main.tsx', '', 1000);
    ws.file('packages/console/index.html', '', 1000);
    ws.file('packages/console/dist/index.html', '', 2000);
  };
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => rmSync(ws.root, { recursive: true, force: true }));

  it('passes a build newer than every source, and ignores test files', () => {
    built();
    ws.file('pkg/src/index.test.ts', 'it.todo', 3000);
    expect(staleBuilds(ws.root)).toEqual([]);
  });

  it('names a source newer than its project build, and a project never built', () => {
    built();
    ws.file('pkg/src/deep/edited.ts', 'export const x = 1;', 3000);
    expect(staleBuilds(ws.root)).toEqual(['pkg/src/deep/edited.ts is newer than the build of pkg']);
    rmSync(join(ws.root, 'pkg', 'tsconfig.tsbuildinfo'));
    expect(staleBuilds(ws.root)).toContain('pkg was never built');
  });

  it('compares the shipped Lua scripts by content: changed, missing, left over', () => {
    built();
    ws.file('pkg/src/redis/lua/claim.lua', 'return 2', 1000);
    ws.file('pkg/src/redis/lua/renew.lua', 'return 3', 1000);
    ws.file('pkg/dist/redis/lua/gone.lua', 'return 4', 2000);
    expect(staleBuilds(ws.root).sort()).toEqual([
      'pkg/dist/redis/lua/claim.lua differs from src',
      'pkg/dist/redis/lua/gone.lua has no source any more',
      'pkg/dist/redis/lua/renew.lua is missing',
    ]);
  });

  it("names the operator console's sources newer than its assets", () => {
    built();
    ws.file('packages/console/src/pages/runs.tsx', '', 3000);
    expect(staleBuilds(ws.root)).toEqual(["packages/console/src/pages/runs.tsx is newer than the console's build"]);
    rmSync(join(ws.root, 'packages', 'console', 'dist'), { recursive: true });
    expect(staleBuilds(ws.root)).toEqual(['the operator console was never built']);
  });

  it("reads the console's page and config beside its sources, never its tests, node_modules or its own build", () => {
    built();
    ws.file('packages/console/test/times.test.ts', '', 3000);
    ws.file('packages/console/node_modules/preact/index.js', '', 3000);
    ws.file('packages/console/dist/assets/index-abc.js', '', 3000);
    expect(staleBuilds(ws.root)).toEqual([]);
    ws.file('packages/console/index.html', '', 3000);
    expect(staleBuilds(ws.root)).toEqual(["packages/console/index.html is newer than the console's build"]);
  });
});
