'use strict';
/** Conditions: evaluations/s of a realistic condition, Hookyard's engine vs one jq-wasm call per evaluation. */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { BENCH_DIR, log, ratio } = require('../lib/common');

function runChild(cfg) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, 'conditions-child.js'), JSON.stringify(cfg)], {
      env: { PATH: process.env.PATH ?? '', ...(process.env.BENCH_OWN_CONDITIONS ? { BENCH_OWN_CONDITIONS: '1' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`conditions child exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        reject(new Error(`conditions child printed no JSON: ${out.slice(-500)}`));
      }
    });
  });
}

async function conditions(ctx) {
  const res = await runChild({ seconds: ctx.smoke ? 0.5 : 2, runs: ctx.runs, scale: ctx.smoke ? 0.02 : 0.5 });
  const r = ratio(res.engine.sequential.median, res.jqWasm.perCall.median);
  const extra = res.engine.workerFallback
    ? ratio(res.engine.workerFallback.median, res.jqWasm.perCall.median)
    : ratio(res.engine.concurrent16.median, res.jqWasm.perCall.median);
  log(`conditions: engine ${res.engine.sequential.median}/s, jq-wasm per call ${res.jqWasm.perCall.median}/s (${r}x)`);
  return { ...res, ratio: { value: r, other: extra } };
}

module.exports = { conditions };
