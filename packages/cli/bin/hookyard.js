#!/usr/bin/env node
'use strict';
// `serve` sets its V8 heap defaults before the CLI loads (packages/cli/src/heap.ts). The young generation's
// size is fixed when the heap is made, so node starts again with it, unless the operator chose one: execve
// replaces this process (same pid, descriptors and environment) before anything else ran.
if (process.argv[2] === 'serve') {
  const heap = require('../dist/heap.js');
  const young = heap.youngGenerationFlag(process.execArgv, process.env.NODE_OPTIONS);
  if (young && typeof process.execve === 'function') {
    process.execve(process.execPath, [process.execPath, young, ...process.execArgv, ...process.argv.slice(1)], process.env);
  }
  heap.applyHeapDefaults();
  // Until the role listens: start-up would otherwise grow the young generation to its full size at rest.
  heap.holdYoungDuringStart();
}
// main() reports its own errors and sets the exit code; anything that still escapes is a bug, shown whole.
require('../dist/main.js')
  .main(process.argv.slice(2))
  .catch((err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exit(1);
  });
