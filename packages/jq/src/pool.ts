import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HookyardError, badInput, internal } from '@hookyard/core';
import type { Logger } from '@hookyard/core';
import { jqErrorLines, tidyJqMessage } from './message';

/** What a worker is asked to do (see `jq-worker.js`). */
export interface WorkerJob {
  op: 'run' | 'check';
  expr: string;
  /** JSON text of the input; unused by `check`. */
  input?: string;
  /** `[name, JSON text]` pairs bound with `--argjson`. */
  vars: [string, string][];
}

interface Pending {
  job: WorkerJob;
  timeoutMs: number;
  /** Fires when the job waited its pool's wait bound for a worker (see `JqWaitBound`). */
  waitTimer?: NodeJS.Timeout;
  resolve: (outputs: unknown[]) => void;
  reject: (err: HookyardError) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current: (Pending & { id: number; timer: NodeJS.Timeout }) | null;
  /** Set while the worker waits for work; when it fires the worker stops. */
  idle?: NodeJS.Timeout;
}

/** How long a jq-wasm worker may wait for work before it stops (the next job that needs one starts one again). */
export const DEFAULT_WORKER_IDLE_MS = 30_000;

/**
 * How long a job may wait in the queue for a worker; past it the job leaves
 * the queue and fails with `refusal(ms)`. Without one, jobs wait their turn.
 */
export interface JqWaitBound {
  ms: number;
  refusal: (ms: number) => HookyardError;
}

type Reply =
  | { ready: true }
  | { fatal: string }
  | { id: number; ok: true; outputs: unknown[] }
  | { id: number; ok: false; error: { jq: boolean; memory?: boolean; message: string } };

/** The worker script ships as plain JS in `src`; from `dist` we reach back into `../src`. */
export function workerScriptPath(): string {
  const here = join(__dirname, 'jq-worker.js');
  return existsSync(here) ? here : join(__dirname, '..', 'src', 'jq-worker.js');
}

/**
 * Up to `size` jq-wasm worker threads and a FIFO queue. Workers start when work
 * first waits for one (most conditions never leave the compiled path, and an
 * idle worker costs about 10 MiB of RSS) and stop after `idleMs` without work:
 * a role that only checked its hooks' expressions once (at registration or
 * first use) does not keep a worker for its whole life. Each job gets its own time bound,
 * started when a worker takes it; a worker that overruns is terminated and
 * replaced, so the jobs queued behind it carry on. With a wait bound, a job
 * that waited that long for a worker is refused instead of queueing on.
 */
export class JqWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers that died before becoming ready, in a row; past a few we stop respawning. */
  private startFailures = 0;
  private lastStartFailure = '';

  constructor(
    private readonly size: number,
    /** A compiled `WebAssembly.Module` of jq.wasm, shared with every worker (asked for when a worker starts). */
    private readonly wasmModule: () => object | undefined,
    private readonly logger?: Logger,
    private readonly idleMs: number = DEFAULT_WORKER_IDLE_MS,
    private readonly waitBound?: JqWaitBound,
  ) {}

  /** Workers alive (starting, busy or idle). */
  workerCount(): number {
    return this.slots.length;
  }

  run(job: WorkerJob, timeoutMs: number): Promise<unknown[]> {
    if (this.closed) return Promise.reject(internal('jq engine is closed'));
    if (this.startFailures >= 3 * this.size) return Promise.reject(internal(`jq workers cannot start: ${this.lastStartFailure}`));
    return new Promise((resolve, reject) => {
      const pending: Pending = { job, timeoutMs, resolve, reject };
      const bound = this.waitBound;
      if (bound) {
        pending.waitTimer = setTimeout(() => {
          const at = this.queue.indexOf(pending);
          if (at < 0) return;
          this.queue.splice(at, 1);
          reject(bound.refusal(bound.ms));
        }, bound.ms);
      }
      this.queue.push(pending);
      this.grow();
      this.dispatch();
    });
  }

  /** One more worker when more jobs wait than workers are free, up to `size`. */
  private grow(): void {
    if (this.slots.length >= this.size) return;
    let free = 0;
    for (const slot of this.slots) if (!slot.current) free++;
    if (this.queue.length > free) this.slots.push(this.spawn());
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) {
      clearTimeout(p.waitTimer);
      p.reject(internal('jq engine closed before the evaluation ran'));
    }
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        clearTimeout(slot.idle);
        if (slot.current) {
          clearTimeout(slot.current.timer);
          slot.current.reject(internal('jq engine closed during the evaluation'));
          slot.current = null;
        }
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(workerScriptPath(), { workerData: { wasmModule: this.wasmModule() } });
    const slot: Slot = { worker, ready: false, current: null };
    worker.unref(); // an idle engine must not keep the process alive; referenced again while busy
    worker.on('message', (msg: Reply) => this.onMessage(slot, msg));
    // A worker can throw anything, not only an Error (@types/node 24 types it `any`).
    worker.on('error', (err: unknown) => this.onCrash(slot, `jq worker crashed: ${err instanceof Error ? err.message : String(err)}`, err));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.onCrash(slot, `jq worker exited with code ${code}`);
    });
    return slot;
  }

  private onMessage(slot: Slot, msg: Reply): void {
    if ('ready' in msg) {
      slot.ready = true;
      this.startFailures = 0;
      this.dispatch();
      return;
    }
    if ('fatal' in msg) {
      this.onCrash(slot, `jq worker failed to start: ${msg.fatal}`);
      return;
    }
    const current = slot.current;
    if (!current || current.id !== msg.id) return; // a reply for a job already timed out
    clearTimeout(current.timer);
    slot.current = null;
    slot.worker.unref();
    if (msg.ok) current.resolve(msg.outputs);
    else if (msg.error.memory) {
      // One line, no WebAssembly stack: the expression's fault (bad_input, not retried), and a fresh worker after it.
      current.reject(badInput('memory bound exceeded'));
      this.onCrash(slot, 'jq worker ran out of memory');
      return;
    } else if (msg.error.jq) current.reject(badInput(tidyJqMessage(msg.error.message), jqErrorLines(msg.error.message)));
    else current.reject(internal(`jq engine failed: ${msg.error.message}`));
    this.dispatch();
  }

  /** Replace the slot's worker; the job it held (if any) fails with `internal`. */
  private onCrash(slot: Slot, message: string, cause?: unknown): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    clearTimeout(slot.idle);
    this.logger?.warn({ err: cause, message }, 'jq worker replaced');
    const current = slot.current;
    slot.current = null;
    if (current) {
      clearTimeout(current.timer);
      current.reject(internal(message, cause));
    }
    this.slots.splice(index, 1);
    void slot.worker.terminate();
    if (!slot.ready) {
      // A worker that cannot even start would crash-loop: after a few tries, fail what waits.
      this.startFailures++;
      this.lastStartFailure = message;
      if (this.startFailures >= 3 * this.size) {
        for (const p of this.queue.splice(0)) {
          clearTimeout(p.waitTimer);
          p.reject(internal(message, cause));
        }
        return;
      }
    }
    if (!this.closed) {
      const fresh = this.spawn();
      this.slots.splice(index, 0, fresh);
    }
  }

  private onTimeout(slot: Slot): void {
    const current = slot.current;
    if (!current) return;
    slot.current = null;
    current.reject(badInput(`jq expression exceeded its time bound of ${current.timeoutMs} ms`));
    const index = this.slots.indexOf(slot);
    this.slots.splice(index, 1);
    void slot.worker.terminate();
    if (!this.closed) this.slots.splice(index, 0, this.spawn());
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.current) continue;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      const next = this.queue.shift() as Pending;
      clearTimeout(next.waitTimer);
      const id = this.nextId++;
      const timer = setTimeout(() => this.onTimeout(slot), next.timeoutMs);
      slot.current = { ...next, id, timer };
      slot.worker.ref();
      slot.worker.postMessage({ id, ...next.job });
    }
    // Every ready worker left without work starts its idle clock (once; a job stops it).
    for (const slot of this.slots) {
      if (!slot.ready || slot.current || slot.idle || this.closed) continue;
      slot.idle = setTimeout(() => this.retire(slot), this.idleMs);
      slot.idle.unref();
    }
  }

  /** Stops a worker that waited `idleMs` for work; out of `slots` first, so its exit is not a crash. */
  private retire(slot: Slot): void {
    slot.idle = undefined;
    const index = this.slots.indexOf(slot);
    if (index < 0 || slot.current) return;
    this.slots.splice(index, 1);
    void slot.worker.terminate();
  }
}
