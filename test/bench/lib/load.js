'use strict';
/** Runs a load generator (test/bench/loadgen.js, or another script of the same contract) as a child process and parses its JSON line. */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { BENCH_DIR } = require('./common');

const LOADGEN = path.join(BENCH_DIR, 'loadgen.js');

function runLoad(cfg, script = LOADGEN) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(cfg)], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited ${code}: ${err.slice(-2000)}`));
      try {
        const res = JSON.parse(out.trim().split('\n').pop());
        if (res.errors > 0 || res.non2xx > 0) {
          res.warning = `${res.non2xx} non-2xx answers, ${res.errors} errors of ${res.requests}`;
        }
        resolve(res);
      } catch (e) {
        reject(new Error(`load generator printed no JSON: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

module.exports = { runLoad };
