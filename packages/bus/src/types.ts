import type { RunPlanHint } from './run-hints';

/**
 * The dispatch channel. A message carries run ids, and may carry a plan
 * hint per id (run-hints.ts); the store is the truth. Delivery is at-least-once: a lost message is covered by the
 * scheduler's sweep, a duplicate by the executor's compare-and-set claim.
 */
export interface RunBus {
  /**
   * Publishes run ids for executors. Rejects when the bus refused them.
   * `traceparent` (W3C) travels with the ids (a JetStream message header) to
   * the handler, so the executor's spans continue the publisher's.
   */
  publish(runIds: readonly string[], options?: PublishOptions): Promise<void>;
  /**
   * Delivers each id to `handler`, at most `concurrency` at a time across this
   * subscription; a message is acknowledged once its handler settled (a handler
   * that throws is logged by the caller and still acknowledged: the sweep
   * re-dispatches whatever was not done).
   */
  subscribe(handler: RunHandler, options: { concurrency: number }): Promise<Subscription>;
  /** `memory` or `jetstream`. */
  readonly kind: string;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Subscription {
  /** Stops taking new messages; resolves when handlers in flight settled. */
  stop(): Promise<void>;
  /**
   * Changes `concurrency` from the next id admitted: growing takes more at
   * once; shrinking admits nothing new until fewer than `concurrency` run,
   * and never cancels a handler in flight.
   */
  resize(concurrency: number): void;
}

export interface PublishOptions {
  /** The W3C traceparent of the publishing span; absent when tracing is off. */
  traceparent?: string;
  /** Plan hints aligned with the run ids (run-hints.ts); an id without one, or past the bounds, travels bare. */
  hints?: ReadonlyArray<RunPlanHint | undefined>;
}

/** Takes one run id; `traceparent` is the one its message carried, if any; `hint` what the executor may plan from. */
export type RunHandler = (runId: string, traceparent?: string, hint?: RunPlanHint) => Promise<void>;
