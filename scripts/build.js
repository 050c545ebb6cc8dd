#!/usr/bin/env node
'use strict';
/**
 * `pnpm build`: the workspace's build, each step only when its outputs are
 * behind its inputs, so `pnpm start` with nothing changed starts in seconds.
 * `tsc -b` always runs (it is incremental and knows its own graph); the Lua
 * copy and the console's type check and vite build run only when
 * test/support/build-freshness.js (the check jest runs before the tests)
 * finds them stale. `--force` runs every step.
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const { staleSteps } = require('../test/support/build-freshness');

const root = join(__dirname, '..');
const force = process.argv.includes('--force');

/** Runs a node script from the workspace, its output shown; a failure ends the build with its code. */
function node(args, cwd = root) {
  try {
    execFileSync(process.execPath, args, { cwd, stdio: 'inherit' });
  } catch (err) {
    process.exit(typeof err.status === 'number' ? err.status : 1);
  }
}

const consoleDir = join(root, 'packages', 'console');
/** A tool's script, resolved from the console package (vite is its own devDependency; typescript is the workspace's). */
const bin = (pkg, path) => join(require.resolve(`${pkg}/package.json`, { paths: [consoleDir] }), '..', path);

node([bin('typescript', 'bin/tsc'), '-b', 'tsconfig.build.json']);
const stale = staleSteps(root);
if (force || stale.lua.length > 0) node([join(root, 'packages', 'store', 'scripts', 'copy-lua.js')]);
else process.stdout.write('store: Lua scripts up to date\n');
if (force || stale.console.length > 0) {
  // The same steps as the console's own `build` script (packages/console/package.json).
  node([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], consoleDir);
  node([bin('vite', 'bin/vite.js'), 'build', '--logLevel', 'warn'], consoleDir);
} else process.stdout.write('console: assets up to date\n');
