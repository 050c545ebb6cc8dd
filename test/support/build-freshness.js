'use strict';
/**
 * Whether the workspace's build output is older than its sources. Jest maps the
 * packages to their sources, but the services, the CLI and every spawned role run
 * from dist/, so a test after an edit without `pnpm build` would test old code.
 * Checked once per jest run by test/support/global-setup.js.
 */
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

/** Newest mtime (ms) of the files under `dir` that `keep` accepts, with that file; null when there are none. */
function newest(dir, keep) {
  let best = null;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (keep(e.name)) {
        const t = statSync(p).mtimeMs;
        if (!best || t > best.t) best = { t, file: p };
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return best;
}

/** What tsc compiles for a project: src/**\/*.ts and *.json, tests excluded (see the projects' tsconfig.json). */
const compiled = (name) => (name.endsWith('.ts') && !name.endsWith('.test.ts')) || name.endsWith('.json');

/** The console's build inputs beside its src/. */
const CONSOLE_INPUTS = ['index.html', 'vite.config.mts', 'tsconfig.json', 'package.json'];

/**
 * Every way the build under `root` is behind its sources, one sentence each
 * (empty when it is fresh): a tsc project whose sources are newer than its
 * tsconfig.tsbuildinfo, a Lua script in dist that differs from src (or is
 * missing or left over), the console's assets (packages/console/dist) older than its sources.
 */
function staleBuilds(root) {
  const steps = staleSteps(root);
  return [...steps.tsc, ...steps.lua, ...steps.console];
}

/**
 * The same, by build step (`tsc`, `lua`, `console`), so `pnpm build`
 * (scripts/build.js) runs only the steps whose outputs are behind.
 */
function staleSteps(root) {
  /** @type {{ tsc: string[], lua: string[], console: string[] }} */
  const steps = { tsc: [], lua: [], console: [] };
  const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
  for (const ref of build.references ?? []) {
    const dir = join(root, ref.path);
    const info = join(dir, 'tsconfig.tsbuildinfo');
    const src = newest(join(dir, 'src'), compiled);
    if (!existsSync(info)) steps.tsc.push(`${ref.path} was never built`);
    else if (src && src.t > statSync(info).mtimeMs) steps.tsc.push(`${relative(root, src.file)} is newer than the build of ${ref.path}`);
    const lua = join(dir, 'src', 'redis', 'lua');
    if (existsSync(lua)) steps.lua.push(...staleCopies(root, lua, join(dir, 'dist', 'redis', 'lua'), '.lua'));
  }
  const consoleDir = join(root, 'packages', 'console');
  if (existsSync(consoleDir)) {
    const assets = join(consoleDir, 'dist', 'index.html');
    // What vite reads: its sources and the files at the package's top (not its tests, node_modules or dist).
    const top = CONSOLE_INPUTS.map((f) => join(consoleDir, f)).filter((f) => existsSync(f));
    const src = [newest(join(consoleDir, 'src'), () => true), ...top.map((file) => ({ t: statSync(file).mtimeMs, file }))]
      .filter((x) => x !== null)
      .sort((a, b) => b.t - a.t)[0];
    if (!existsSync(assets)) steps.console.push('the operator console was never built');
    else if (src && src.t > statSync(assets).mtimeMs) steps.console.push(`${relative(root, src.file)} is newer than the console's build`);
  }
  return steps;
}

/** Files with `ext` in `from` that `to` lacks or holds with other bytes, and those `to` holds that `from` does not. */
function staleCopies(root, from, to, ext) {
  const problems = [];
  const names = (d) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith(ext)) : []);
  const shipped = new Set(names(to));
  for (const f of names(from)) {
    if (!shipped.has(f)) problems.push(`${relative(root, join(to, f))} is missing`);
    else if (!readFileSync(join(from, f)).equals(readFileSync(join(to, f)))) problems.push(`${relative(root, join(to, f))} differs from src`);
    shipped.delete(f);
  }
  for (const f of shipped) problems.push(`${relative(root, join(to, f))} has no source any more`);
  return problems;
}

module.exports = { staleBuilds, staleSteps };
