import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { loadSettings } from '@hookyard/core';
import { heapFlags, youngGenerationFlag } from '../../packages/cli/src/heap';
import { DEPLOY, REPO, renderKustomization } from './support';

/**
 * There is no container engine on CI, so the Dockerfile is checked as text
 * against the repository: every file it copies exists and is not ignored, the
 * commands are the ones CI runs, the packages it filters exist, and the
 * entrypoint it names is the CLI's bin.
 */

interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let acc = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!acc && (line === '' || line.startsWith('#'))) continue;
    if (acc && line.startsWith('#')) continue; // comments inside a continued instruction
    if (line.endsWith('\\')) {
      acc += line.slice(0, -1) + ' ';
      continue;
    }
    acc += line;
    const m = /^(\S+)\s+([\s\S]*)$/.exec(acc.trim());
    if (m) out.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim() });
    acc = '';
  }
  return out;
}

/** COPY flags and operands: `--from=build --chown=x a b dest`. */
function copyParts(args: string): { flags: Record<string, string>; sources: string[]; dest: string } {
  const words = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [k, v] = words.shift()!.slice(2).split('=');
    flags[k!] = v ?? '';
  }
  return { flags, sources: words.slice(0, -1), dest: words[words.length - 1]! };
}

/** .dockerignore patterns (Go filepath.Match plus `**`), enough for the patterns we write. */
function ignoreMatchers(text: string): { re: RegExp; negate: boolean }[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pat = posix.normalize(negate ? l.slice(1) : l).replace(/^\/+/, '');
      const src = pat
        .split('/')
        .map((seg) =>
          seg === '**'
            ? '(?:.*)'
            : seg
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return { re: new RegExp(`^${src}(?:/.*)?$`), negate };
    });
}

function ignored(path: string, matchers: { re: RegExp; negate: boolean }[]): boolean {
  let out = false;
  for (const m of matchers) if (m.re.test(path)) out = !m.negate;
  return out;
}

const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);
const dockerignore = ignoreMatchers(readFileSync(join(DEPLOY, 'Dockerfile.dockerignore'), 'utf8'));
const rootPkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

function workspacePackages(): Map<string, string> {
  const globs = readFileSync(join(REPO, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .map((l) => /^\s*-\s*['"]?([^'"\s]+)\/\*['"]?\s*$/.exec(l)?.[1])
    .filter((g): g is string => !!g);
  const out = new Map<string, string>();
  for (const g of globs) {
    for (const d of readdirSync(join(REPO, g))) {
      const pj = join(REPO, g, d, 'package.json');
      if (existsSync(pj)) out.set(JSON.parse(readFileSync(pj, 'utf8')).name, `${g}/${d}`);
    }
  }
  return out;
}

/** Splits the file into stages: FROM image [AS name] and what follows it. */
function stages(): { image: string; name?: string; body: Instruction[] }[] {
  const out: { image: string; name?: string; body: Instruction[] }[] = [];
  for (const i of instructions) {
    if (i.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(i.args)!;
      out.push({ image: m[1]!, name: m[2], body: [] });
    } else out[out.length - 1]!.body.push(i);
  }
  return out;
}

describe('deploy/Dockerfile', () => {
  const all = stages();
  const build = all[0]!;
  const runtime = all[all.length - 1]!;
  const runs = build.body.filter((i) => i.op === 'RUN').map((i) => i.args);

  test('is multi-stage on node:<version>-bookworm-slim, the exact Node .ci/run pins, of the major package.json asks for', () => {
    const pinned = /^NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(readFileSync(join(REPO, '.ci', 'run'), 'utf8'))?.[1];
    expect(pinned).toBeDefined();
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const s of all) expect(s.image).toBe(`node:${pinned}-bookworm-slim`);
    expect(rootPkg.engines.node).toBe(`>=${pinned!.split('.')[0]}`);
    expect(Number(pinned!.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  test('the build stage runs the commands CI runs, with the pnpm the workspace pins', () => {
    const pinned = String(rootPkg.packageManager).replace(/^pnpm@/, '');
    expect(runs).toContain(`npm i -g pnpm@${pinned}`);
    expect(runs).toContain('pnpm install --frozen-lockfile');
    expect(runs).toContain('pnpm build');
    expect(rootPkg.scripts.build).toBeDefined();
    const deploy = runs.find((r) => /\bpnpm\b.*\bdeploy\b/.test(r));
    expect(deploy).toMatch(/--prod\b/);
    expect(deploy).toMatch(/\s\/out$/);
    // pnpm 10 refuses to deploy a workspace without injected packages unless --legacy.
    const npmrc = existsSync(join(REPO, '.npmrc')) ? readFileSync(join(REPO, '.npmrc'), 'utf8') : '';
    if (!/inject-workspace-packages\s*=\s*true/.test(npmrc)) expect(deploy).toMatch(/--legacy\b/);
  });

  test('every package it filters exists in the workspace', () => {
    const pkgs = workspacePackages();
    const filters = [...dockerfile.matchAll(/--filter[= ](\S+)/g)].map((m) => m[1]!);
    expect(filters).toEqual(['@hookyard/cli']);
    for (const f of filters) expect([...pkgs.keys()]).toContain(f);
  });

  test('every COPY source from the context exists and is not excluded by Dockerfile.dockerignore', () => {
    const copies = build.body.concat(runtime.body).filter((i) => i.op === 'COPY' || i.op === 'ADD');
    const fromContext = copies.map((c) => copyParts(c.args)).filter((c) => c.flags.from === undefined);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const c of fromContext) {
      for (const s of c.sources) {
        const rel = posix.normalize(s).replace(/\/$/, '');
        expect({ source: s, exists: existsSync(join(REPO, rel)) }).toEqual({ source: s, exists: true });
        expect({ source: s, ignored: ignored(rel, dockerignore) }).toEqual({ source: s, ignored: false });
      }
    }
    // What `pnpm install` and `tsc -b` read must be in the build stage before they run.
    const copied = new Set(fromContext.flatMap((c) => c.sources.map((s) => posix.normalize(s).replace(/\/$/, ''))));
    for (const f of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'tsconfig.build.json']) expect(copied).toContain(f);
    for (const dir of new Set(workspacePackages().values())) {
      expect(copied).toContain(dir.split('/')[0]);
      const ts = JSON.parse(readFileSync(join(REPO, dir, 'tsconfig.json'), 'utf8'));
      if (ts.extends) expect(copied).toContain(posix.normalize(posix.join(dir, ts.extends)));
    }
  });

  test('the context ignore file keeps out node_modules, build output and .git', () => {
    for (const p of ['node_modules', 'packages/core/node_modules', 'packages/core/dist', '.git', 'packages/cli/tsconfig.tsbuildinfo']) {
      expect({ path: p, ignored: ignored(p, dockerignore) }).toEqual({ path: p, ignored: true });
    }
    for (const p of ['packages/core/src/index.ts', 'pnpm-lock.yaml'])
      expect({ path: p, ignored: ignored(p, dockerignore) }).toEqual({ path: p, ignored: false });
  });

  test('the runtime copies the deployed CLI and its entrypoint is the CLI bin', () => {
    const copy = runtime.body.filter((i) => i.op === 'COPY').map((i) => copyParts(i.args));
    const fromBuild = copy.find((c) => c.flags.from === build.name);
    expect(fromBuild?.sources).toEqual(['/out']);
    const appDir = fromBuild!.dest.replace(/\/$/, '');
    const entry = JSON.parse(runtime.body.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    expect(entry[0]).toBe('node');
    expect(entry[1]!.startsWith(`${appDir}/`)).toBe(true);
    const binRel = entry[1]!.slice(appDir.length + 1);
    const cli = JSON.parse(readFileSync(join(REPO, workspacePackages().get('@hookyard/cli')!, 'package.json'), 'utf8'));
    expect(cli.bin.hookyard).toBe(binRel);
    expect(existsSync(join(REPO, workspacePackages().get('@hookyard/cli')!, binRel))).toBe(true);
    // pnpm deploy copies what `files` lists: the bin and the compiled code must be in it.
    expect(cli.files).toEqual(expect.arrayContaining([binRel.split('/')[0], 'dist']));
    expect(JSON.parse(runtime.body.find((i) => i.op === 'CMD')!.args)).toEqual(['serve', '--role', 'all']);
  });

  test('runs as a non-root numeric user the Kubernetes manifests agree with', () => {
    const user = runtime.body.filter((i) => i.op === 'USER').pop()?.args ?? '';
    const uid = Number(user.split(':')[0]);
    expect(Number.isInteger(uid) && uid > 0).toBe(true);
    const deps = renderKustomization(join(DEPLOY, 'k8s', 'base')).filter((o) => o.kind === 'Deployment');
    expect(deps.length).toBe(3);
    for (const d of deps) expect(d.spec.template.spec.securityContext.runAsUser).toBe(uid);
  });

  test('stops on SIGTERM and exposes the default HTTP port on all interfaces', () => {
    expect(runtime.body.find((i) => i.op === 'STOPSIGNAL')?.args).toBe('SIGTERM');
    const defaults = loadSettings({});
    expect(runtime.body.find((i) => i.op === 'EXPOSE')?.args).toBe(String(defaults.httpPort));
    const env = runtime.body
      .filter((i) => i.op === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/HOOKS_HTTP_HOST=0\.0\.0\.0/);
  });

  test("every role starts with serve's own heap defaults, as deploy/README.md describes them", () => {
    const env = runtime.body
      .filter((i) => i.op === 'ENV')
      .map((i) => i.args)
      .join(' ');
    // A semi-space size in the image's NODE_OPTIONS would replace serve's young generation default.
    expect(env).not.toMatch(/NODE_OPTIONS=/);
    const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
    const young = youngGenerationFlag([], '');
    expect(young).not.toBeNull();
    // Started again with the size, serve sets the old generation's factor only.
    const flags = [young!, ...heapFlags([young!], '')];
    expect(flags.length).toBe(2);
    for (const f of flags) expect(readme).toContain(f);
  });
});
