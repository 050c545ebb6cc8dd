import { badInput, unavailable } from '@hookyard/core';
import type { RunPlanHint } from './run-hints';
import type { RunBus, RunHandler, Subscription } from './types';

type Handler = RunHandler;
/** A queued id, the traceparent it was published with, and its plan hint. */
type Queued = { id: string; traceparent: string | undefined; hint: RunPlanHint | undefined };

interface MemorySubscription {
  handler: Handler;
  concurrency: number;
  inFlight: number;
  stopped: boolean;
  idle: Array<() => void>;
}

function checkConcurrency(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw badInput(`subscribe concurrency must be a positive integer, got ${JSON.stringify(n)}`);
}

/**
 * The in-process bus of the embedded default: one queue, shared by every
 * subscription of this bus (each one a "replica"), each bounded by its own
 * concurrency. Nothing survives the process; the sweep covers that.
 */
export function createMemoryBus(): RunBus {
  const queue: Queued[] = [];
  const subs: MemorySubscription[] = [];
  let closed = false;
  // Round-robin start point, so two subscriptions share the work.
  let turn = 0;

  const run = (sub: MemorySubscription, q: Queued) => {
    sub.inFlight += 1;
    // Fire and forget: the handler's failure is caught in the chain, and nothing after it throws.
    void Promise.resolve()
      .then(() => sub.handler(q.id, q.traceparent, q.hint))
      // A handler that throws is the caller's to log; the id counts as delivered.
      .catch(() => undefined)
      .then(() => {
        sub.inFlight -= 1;
        if (sub.inFlight === 0) for (const resolve of sub.idle.splice(0)) resolve();
        dispatch();
      });
  };

  const dispatch = () => {
    let progressed = true;
    while (queue.length > 0 && progressed) {
      progressed = false;
      for (let i = 0; i < subs.length && queue.length > 0; i += 1) {
        const sub = subs[(turn + i) % subs.length]!;
        if (sub.stopped || sub.inFlight >= sub.concurrency) continue;
        run(sub, queue.shift()!);
        progressed = true;
      }
      turn = subs.length === 0 ? 0 : (turn + 1) % subs.length;
    }
  };

  return {
    kind: 'memory',
    async publish(runIds, options) {
      if (closed) throw unavailable(`memory bus is closed; ${runIds.length} run id(s) not published`);
      const traceparent = options?.traceparent;
      const hints = options?.hints;
      for (let i = 0; i < runIds.length; i += 1) queue.push({ id: runIds[i]!, traceparent, hint: hints?.[i] });
      dispatch();
    },
    async subscribe(handler, options): Promise<Subscription> {
      if (closed) throw unavailable('memory bus is closed; cannot subscribe');
      checkConcurrency(options.concurrency);
      const sub: MemorySubscription = { handler, concurrency: options.concurrency, inFlight: 0, stopped: false, idle: [] };
      subs.push(sub);
      dispatch();
      return {
        resize(concurrency) {
          checkConcurrency(concurrency);
          sub.concurrency = concurrency;
          dispatch();
        },
        async stop() {
          sub.stopped = true;
          const at = subs.indexOf(sub);
          if (at >= 0) subs.splice(at, 1);
          if (sub.inFlight > 0) await new Promise<void>((resolve) => sub.idle.push(resolve));
        },
      };
    },
    async ping() {
      if (closed) throw unavailable('memory bus is closed');
    },
    async close() {
      closed = true;
      // Like a process exit: what was queued is gone (the sweep re-dispatches it).
      queue.length = 0;
      for (const sub of subs.splice(0)) sub.stopped = true;
    },
  };
}
