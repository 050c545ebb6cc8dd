#!/usr/bin/env node
'use strict';
// `serve` sets its V8 heap defaults before the CLI loads: loading it alone grows the young generation
// to 16 MiB, which the growth factor set later could not undo (packages/cli/src/heap.ts; the command sets them too).
if (process.argv[2] === 'serve') require('../dist/heap.js').applyHeapDefaults();
// main() reports its own errors and sets the exit code; anything that still escapes is a bug, shown whole.
require('../dist/main.js')
  .main(process.argv.slice(2))
  .catch((err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exit(1);
  });
