#!/usr/bin/env node
'use strict';
// main() reports its own errors and sets the exit code; anything that still escapes is a bug, shown whole.
require('../dist/main.js')
  .main(process.argv.slice(2))
  .catch((err) => {
    process.stderr.write(`${(err && err.stack) || err}\n`);
    process.exit(1);
  });
