/**
 * The workspace's package graph as the sources have it: what each package's
 * sources import from the workspace is exactly what its package.json
 * declares and its tsconfig references, the graph has no cycle, every
 * package is built, linted and mapped for jest, and the seams the layout
 * promises hold (tools never reaches the store, only core knows pino, the
 * console imports no server code).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

interface WorkspacePackage {
  name: string;
  dir: string;
  /** Workspace packages in `dependencies` (devDependencies serve its tests only). */
  deps: string[];
  /** Workspace packages its sources (tests excluded) import, `import type` included. */
  imports: string[];
  /** Workspace packages its tsconfig.json references. */
  references: string[];
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Module names a file imports or requires (static imports, re-exports, `require`, `require.resolve`, `import()`). */
function importedModules(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:from\s+|require(?:\.resolve)?\(\s*|import\(\s*|^import\s+)'([^']+)'/gm)) found.add(m[1]!);
  return [...found];
}

/**
 * The operator console: a browser app that Vite builds into its dist/ (scripts/build.js),
 * not a tsc project; the ingress depends on it for those assets, never for code.
 */
const CONSOLE = '@hookyard/console';

function readJsonc(path: string): any {
  const parsed = ts.parseConfigFileTextToJson(path, readFileSync(path, 'utf8'));
  if (parsed.error) throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(parsed.error.messageText, '\n')}`);
  return parsed.config;
}

const dirs = ['packages', 'services'].flatMap((top) =>
  readdirSync(join(ROOT, top))
    .map((d) => join(top, d))
    .filter((d) => existsSync(join(ROOT, d, 'package.json'))),
);
const byDir = new Map<string, string>(dirs.map((d) => [resolve(ROOT, d), JSON.parse(readFileSync(join(ROOT, d, 'package.json'), 'utf8')).name as string]));
const names = new Set(byDir.values());

const workspace: WorkspacePackage[] = dirs.map((dir) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
  const imports = new Set<string>();
  for (const f of sourceFiles(join(ROOT, dir, 'src'))) {
    for (const m of importedModules(readFileSync(f, 'utf8'))) {
      const name = m.split('/').slice(0, 2).join('/');
      if (names.has(name) && name !== pkg.name) imports.add(name);
    }
  }
  const tsconfig = readJsonc(join(ROOT, dir, 'tsconfig.json'));
  const references = ((tsconfig.references ?? []) as { path: string }[]).map((r) => {
    const target = byDir.get(resolve(ROOT, dir, r.path));
    if (!target) throw new Error(`${dir}/tsconfig.json references ${r.path}, which is no workspace package`);
    return target;
  });
  return {
    name: pkg.name,
    dir,
    // The console is bundled, so all it takes is a devDependency (@hookyard/api, for its types).
    deps: Object.keys({ ...pkg.dependencies, ...(pkg.name === CONSOLE ? pkg.devDependencies : {}) }).filter((d) => names.has(d)),
    imports: [...imports],
    references,
  };
});

const sorted = (xs: readonly string[]) => [...xs].sort();

/** The API's plain enumerations (packages/api/src/values.ts): the one value import the console may make from a workspace package. */
const CONSOLE_VALUES = '@hookyard/api/values';

describe('the workspace layout', () => {
  it.each(workspace.map((p) => [p.name, p] as const))('%s declares exactly the workspace packages its sources import', (_name, p) => {
    expect(sorted(p.deps)).toEqual(sorted(p.imports));
  });

  it.each(workspace.map((p) => [p.name, p] as const))('%s references in its tsconfig exactly the workspace packages it depends on', (_name, p) => {
    expect(sorted(p.references)).toEqual(sorted(p.deps.filter((d) => d !== CONSOLE)));
  });

  it('has no cycle between packages', () => {
    const deps = new Map(workspace.map((p) => [p.name, p.deps]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
        return;
      }
      state.set(name, 'visiting');
      for (const d of deps.get(name) ?? []) visit(d, [...path, name]);
      state.set(name, 'done');
    };
    for (const p of workspace) visit(p.name, []);
    expect(cycles).toEqual([]);
  });

  it('keeps the seams: tools does not depend on the store, core depends on nothing, the reporter on core and bus only', () => {
    const of = (name: string) => workspace.find((p) => p.name === name)!;
    expect(of('@hookyard/tools').deps).not.toContain('@hookyard/store');
    expect(of('@hookyard/core').deps).toEqual([]);
    expect(sorted(of('@hookyard/report').deps)).toEqual(['@hookyard/bus', '@hookyard/core']);
    expect(of('@hookyard/bus').imports).not.toContain('@hookyard/store');
  });

  it('keeps the hook plan one package both services import: it reads through narrow interfaces (no store, no bus), and no service depends on another', () => {
    const of = (name: string) => workspace.find((p) => p.name === name)!;
    expect(sorted(of('@hookyard/plan').deps)).toEqual(['@hookyard/core', '@hookyard/jq', '@hookyard/tools']);
    expect(of('@hookyard/executor').deps).toContain('@hookyard/plan');
    expect(of('@hookyard/ingress').deps).toContain('@hookyard/plan');
    const services = workspace.filter((p) => p.dir.startsWith('services'));
    const crossing = services.flatMap((p) => p.deps.filter((d) => services.some((s) => s.name === d)).map((d) => `${p.name} -> ${d}`));
    expect(crossing).toEqual([]);
  });

  it("imports pino only in core's logger: every other package speaks core's Logger", () => {
    const pinoImports = workspace
      .flatMap((p) => sourceFiles(join(ROOT, p.dir, 'src')))
      .filter((f) => importedModules(readFileSync(f, 'utf8')).some((m) => m === 'pino' || m.startsWith('pino/')))
      .map((f) => relative(ROOT, f));
    expect(pinoImports).toEqual([join('packages', 'core', 'src', 'logger.ts')]);
  });

  it('builds every package (tsconfig.build.json), lints each against its sources (tsconfig.eslint.json) and maps each library for jest', () => {
    const build = readJsonc(join(ROOT, 'tsconfig.build.json'));
    const built = (build.references as { path: string }[]).map((r) => byDir.get(resolve(ROOT, r.path)));
    const compiled = [...names].filter((n) => n !== CONSOLE);
    expect(sorted(built as string[])).toEqual(sorted(compiled));

    const paths = readJsonc(join(ROOT, 'tsconfig.eslint.json')).compilerOptions.paths as Record<string, string[]>;
    // Besides each package, only the API's plain values the console bundles (CONSOLE_VALUES).
    expect(sorted(Object.keys(paths))).toEqual(sorted([...compiled, CONSOLE_VALUES]));

    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const jest = require(join(ROOT, 'jest.config.js')) as { moduleNameMapper: Record<string, string> };
    const mapped = (name: string) =>
      Object.entries(jest.moduleNameMapper).some(([pattern, target]) => new RegExp(pattern).test(name) && target.includes('/src/index.ts'));
    const libraries = workspace.filter((p) => p.dir.startsWith('packages') && p.name !== '@hookyard/cli' && p.name !== CONSOLE).map((p) => p.name);
    expect(libraries.filter((n) => !mapped(n))).toEqual([]);
  });

  it('builds the console as its own package: Vite into its dist/, which the ingress resolves through the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', 'console', 'package.json'), 'utf8'));
    expect(pkg.name).toBe(CONSOLE);
    expect(pkg.scripts.build).toMatch(/\bvite build\b/);
    // `pnpm deploy` copies what `files` lists: the built assets, not the sources.
    expect(pkg.files).toEqual(['dist']);
    const ingress = workspace.find((p) => p.name === '@hookyard/ingress')!;
    expect(ingress.deps).toContain(CONSOLE);
    // The console's frontend libraries are its own, not the ingress's (both may take the API's declarations).
    const ingressPkg = JSON.parse(readFileSync(join(ROOT, 'services', 'ingress', 'package.json'), 'utf8'));
    const ingressDeps = Object.keys({ ...ingressPkg.dependencies, ...ingressPkg.devDependencies });
    expect(ingressDeps.filter((d) => d in pkg.devDependencies && !names.has(d))).toEqual([]);
  });

  it('keeps the console free of server code: it imports only its own modules and its declared frontend libraries, a workspace package only as types', () => {
    const dir = join(ROOT, 'packages', 'console');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => d !== 'vite'));
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) files.push(p);
      }
    };
    walk(join(dir, 'src'));
    expect(files.length).toBeGreaterThan(10);
    const refused: string[] = [];
    for (const f of files) {
      // Type-only imports vanish from the bundle; everything else is code the browser runs.
      const code = readFileSync(f, 'utf8').replace(/^(?:import|export) type\s[^;]*;/gm, '');
      for (const m of importedModules(code)) {
        if (m.startsWith('.') || m === CONSOLE_VALUES) continue;
        const name = m.startsWith('@') ? m.split('/').slice(0, 2).join('/') : m.split('/')[0]!;
        if (!declared.has(name) || names.has(name)) refused.push(`${relative(ROOT, f)} imports ${m}`);
      }
    }
    expect(refused).toEqual([]);
    // The one value module it takes from a workspace package is plain data: it imports nothing.
    expect(importedModules(readFileSync(join(ROOT, 'packages', 'api', 'src', 'values.ts'), 'utf8'))).toEqual([]);
  });
});
