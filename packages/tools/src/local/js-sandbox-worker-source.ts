/**
 * The body of the sandbox worker thread, as plain JavaScript: a worker runs a
 * file or a string, and a string works the same from `src` (jest) and `dist`.
 * Module paths come in through workerData, resolved by the parent.
 *
 * Each job gets a fresh QuickJS runtime with a memory limit, a stack limit and
 * an interrupt handler at the deadline; the snippet's completion value is
 * returned as JSON. A snippet stuck inside a builtin (which the interrupt
 * handler cannot reach) is handled by the parent terminating this thread.
 */
export const SANDBOX_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant } = require(workerData.quickjsPath);
const variant = require(workerData.variantPath).default;
let modulePromise = null;
const getModule = () => (modulePromise = modulePromise || newQuickJSWASMModuleFromVariant({
  ...variant,
  // The stock loader uses import(); require the CommonJS build instead.
  importModuleLoader: async () => require(workerData.loaderPath),
}));

function describe(vm, handle) {
  try {
    const e = vm.dump(handle);
    if (e && typeof e === 'object' && typeof e.message === 'string') return typeof e.name === 'string' ? e.name + ': ' + e.message : e.message;
    return typeof e === 'string' ? e : JSON.stringify(e);
  } catch (_) {
    return 'the snippet failed and its error could not be read';
  }
}

async function run(job) {
  const qjs = await getModule();
  const runtime = qjs.newRuntime();
  runtime.setMemoryLimit(job.memoryBytes);
  runtime.setMaxStackSize(job.stackBytes);
  const deadline = Date.now() + job.timeoutMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted = interrupted || Date.now() > deadline));
  const vm = runtime.newContext();
  const step = (source, filename) => {
    const r = vm.evalCode(source, filename);
    if (r.error) {
      const msg = interrupted ? 'the snippet ran past ' + job.timeoutMs + ' ms and was interrupted' : describe(vm, r.error);
      r.error.dispose();
      return interrupted ? { error: msg, timedOut: true } : { error: msg };
    }
    return { handle: r.value };
  };
  const cleanup = () => {
    try {
      vm.dispose();
      runtime.dispose();
    } catch (_) {
      // A runtime that cannot be torn down may leave the module unusable: load a fresh one next time.
      modulePromise = null;
    }
  };
  try {
    return { cleanup, result: evaluate(job, step, vm) };
  } catch (err) {
    cleanup();
    throw err;
  }
}

function evaluate(job, step, vm) {
  {
    // A cut-off at the deadline is not the snippet's own failure: it comes back marked timedOut.
    const setup = step('globalThis.input = JSON.parse(' + JSON.stringify(job.inputJson) + ');', 'input.js');
    if (setup.timedOut) return { ok: false, error: setup.error, timedOut: true };
    if (setup.error !== undefined) return { ok: false, error: 'input could not be loaded: ' + setup.error };
    setup.handle.dispose();
    const ran = step(job.code, 'snippet.js');
    if (ran.error !== undefined) return { ok: false, error: ran.error, timedOut: ran.timedOut === true };
    vm.setProp(vm.global, '__hookyard_result', ran.handle);
    ran.handle.dispose();
    const out = step('JSON.stringify(globalThis.__hookyard_result)', 'result.js');
    if (out.timedOut) return { ok: false, error: out.error, timedOut: true };
    if (out.error !== undefined) return { ok: false, error: 'the result is not JSON: ' + out.error };
    const json = vm.typeof(out.handle) === 'string' ? vm.getString(out.handle) : undefined;
    out.handle.dispose();
    if (json === undefined) return { ok: true, json: 'null' };
    if (json.length > job.maxResultBytes) return { ok: false, error: 'the result is ' + json.length + ' characters of JSON; the limit is ' + job.maxResultBytes };
    return { ok: true, json };
  }
}

// The reply goes out before the runtime is torn down: freeing a heap a
// snippet filled can take seconds, and the caller need not wait for it.
parentPort.on('message', (job) => {
  // The deadline starts now, not when the job was queued behind a teardown.
  parentPort.postMessage({ id: job.id, started: true });
  run(job).then(
    ({ result, cleanup }) => {
      parentPort.postMessage({ id: job.id, result });
      cleanup();
    },
    (err) => parentPort.postMessage({ id: job.id, result: { ok: false, error: 'sandbox failure: ' + (err && err.message) } }),
  );
});
`;
