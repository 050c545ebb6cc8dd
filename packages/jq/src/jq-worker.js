'use strict';
/**
 * One jq-wasm instance in a worker thread. jq-wasm calls are synchronous and
 * cannot be interrupted, so the only way to stop a runaway expression is to
 * terminate the thread running it; the pool in `pool.ts` does that.
 *
 * Plain JavaScript on purpose: the same file is loaded from `src` under jest
 * and from the published package, with no build step in between.
 *
 * Messages in:  {id, op: 'run' | 'check', expr, input?: string (JSON text), vars: [name, jsonText][]}
 * Messages out: {ready: true} once, then {id, ok: true, outputs} | {id, ok: false, error: {jq, message}}
 *   where `jq` is true when jq itself refused (compile or runtime error), `memory` when jq-wasm ran out of memory.
 */
const { parentPort, workerData } = require('node:worker_threads');
const { loadJq } = require('jq-wasm');

function flagsFor(vars) {
  const flags = [];
  for (const [name, text] of vars) flags.push('--argjson', name, text);
  return flags;
}

function handle(jq, job) {
  const flags = flagsFor(job.vars || []);
  if (job.op === 'check') {
    // Empty input: jq compiles the program, then finds no input to run it on.
    const res = jq.raw('', job.expr, flags);
    if (res.exitCode !== 0 && res.stderr !== '') return { id: job.id, ok: false, error: { jq: true, message: res.stderr.trim() } };
    return { id: job.id, ok: true, outputs: [] };
  }
  try {
    return { id: job.id, ok: true, outputs: jq.json(job.input, job.expr, flags) };
  } catch (err) {
    const jqRefused = err && err.name === 'JqError';
    // jq-wasm aborts (a WebAssembly RuntimeError) when jq's allocations outgrow the wasm memory:
    // the expression asked for too much, which no retry changes. The instance is not trusted afterwards.
    const memory = !jqRefused && err && err.name === 'RuntimeError' && /Aborted\(|out of memory|memory access out of bounds/i.test(String(err.message));
    const message = jqRefused ? String(err.stderr || err.message).trim() : String((err && err.stack) || err);
    return { id: job.id, ok: false, error: { jq: jqRefused, memory, message } };
  }
}

(async () => {
  const jq = await loadJq(workerData && workerData.wasmModule ? { wasmModule: workerData.wasmModule } : undefined);
  parentPort.on('message', (job) => parentPort.postMessage(handle(jq, job)));
  parentPort.postMessage({ ready: true });
})().catch((err) => {
  parentPort.postMessage({ fatal: String((err && err.stack) || err) });
});
