import { Worker } from 'node:worker_threads';
import { HookyardError, internal, timeoutError, type Logger } from '@hookyard/core';
import { SANDBOX_WORKER_SOURCE } from './js-sandbox-worker-source';

export interface SandboxLimits {
  /** Time bound of a snippet when its call names none. */
  timeoutMs: number;
  memoryBytes: number;
  maxResultBytes: number;
  /** Extra time past `timeoutMs` before the worker thread is terminated outright (default 1000 ms). */
  hardKillGraceMs?: number;
}

export type SandboxResult = { ok: true; value: unknown } | { ok: false; error: string };

interface WorkerReply {
  id: number;
  started?: true;
  /** `timedOut`: the interrupt handler cut the snippet off at its deadline (a timeout, not the snippet's own failure). */
  result?: { ok: true; json: string } | { ok: false; error: string; timedOut?: boolean };
}

/** A thread that does not pick a job up within this long (stuck tearing down a previous one) is replaced. */
const PICKUP_MS = 10_000;

/** QuickJS's own stack check must trip before the host's (a larger value overflows the thread instead). */
const STACK_BYTES = 192 * 1024;

/**
 * Runs snippets in one QuickJS worker thread, one at a time. The thread keeps
 * the executor's event loop free while a snippet runs, and gives a hard stop:
 * a snippet that outlives its deadline by the grace (stuck inside a builtin
 * the interrupt handler cannot reach) has its thread terminated, and the next
 * snippet gets a new one.
 */
export class JsSandbox {
  private worker: Worker | null = null;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly limits: SandboxLimits,
    private readonly logger?: Logger,
  ) {}

  private spawn(): Worker {
    const worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: {
        quickjsPath: require.resolve('quickjs-emscripten'),
        variantPath: require.resolve('@jitl/quickjs-wasmfile-release-sync'),
        loaderPath: require.resolve('@jitl/quickjs-wasmfile-release-sync/emscripten-module'),
      },
      // The thread's own heap bound, beyond QuickJS's memory limit.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    worker.unref();
    worker.on('error', (err) => this.logger?.warn({ err }, 'js_execution: sandbox thread failed'));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    return worker;
  }

  /**
   * Runs one snippet within `timeoutMs` (default: the limits'); calls wait
   * their turn. Never rejects for what the snippet does (an exception, out of
   * memory: a result); a snippet cut off at its deadline rejects `timeout`.
   */
  run(code: string, input: unknown, signal: AbortSignal, timeoutMs = this.limits.timeoutMs): Promise<SandboxResult> {
    const job = this.queue.then(() => this.runNow(code, input, signal, timeoutMs));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private runNow(code: string, input: unknown, signal: AbortSignal, timeoutMs: number): Promise<SandboxResult> {
    if (signal.aborted) return Promise.reject(new HookyardError('cancelled', 'js_execution: aborted before it started'));
    let inputJson: string;
    try {
      inputJson = JSON.stringify(input ?? null);
    } catch (err) {
      return Promise.resolve({ ok: false, error: `input is not JSON: ${(err as Error).message}` });
    }
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    const { memoryBytes, maxResultBytes } = this.limits;
    return new Promise<SandboxResult>((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const kill = (why: () => void) => {
        finish(why);
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
      };
      const onMessage = (msg: WorkerReply) => {
        if (msg.id !== id) return;
        if (msg.started) {
          clearTimeout(timer);
          timer = setTimeout(
            () => kill(() => reject(timeoutError(`js_execution: the snippet ran past ${timeoutMs} ms and its sandbox thread was stopped`))),
            timeoutMs + (this.limits.hardKillGraceMs ?? 1000),
          );
          return;
        }
        const r = msg.result;
        if (!r) return;
        if (!r.ok && r.timedOut) return finish(() => reject(timeoutError(`js_execution: ${r.error}`)));
        finish(() => resolve(r.ok ? { ok: true, value: JSON.parse(r.json) as unknown } : { ok: false, error: r.error }));
      };
      const onExit = (code: number) => finish(() => reject(internal(`js_execution: sandbox thread exited (code ${code}) during the snippet`)));
      const onAbort = () => kill(() => reject(new HookyardError('cancelled', 'js_execution: aborted')));
      let timer = setTimeout(() => kill(() => reject(internal(`js_execution: the sandbox did not pick the snippet up within ${PICKUP_MS} ms`))), PICKUP_MS);
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, code, inputJson, timeoutMs, memoryBytes, maxResultBytes, stackBytes: STACK_BYTES });
    });
  }

  /** Stops the thread (tests and shutdown). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
