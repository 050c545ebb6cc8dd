#!/usr/bin/env node
'use strict';
/**
 * Ships the store's Lua scripts in dist/: src/redis/lua/*.lua -> dist/redis/lua/,
 * mirrored (a script removed from src is removed from dist). `pnpm build` runs it
 * after `tsc -b`; the loader (src/redis/scripts.ts) reads them beside the compiled file.
 */
const { mkdirSync, readdirSync, copyFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const from = join(__dirname, '..', 'src', 'redis', 'lua');
const to = join(__dirname, '..', 'dist', 'redis', 'lua');
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
const scripts = readdirSync(from).filter((f) => f.endsWith('.lua'));
for (const f of scripts) copyFileSync(join(from, f), join(to, f));
process.stdout.write(`store: ${scripts.length} Lua scripts copied to dist/redis/lua\n`);
