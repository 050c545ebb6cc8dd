import type { HookMetrics, Logger } from '@hookyard/core';
import type { RunBus, RunPlanHint } from '@hookyard/bus';
import { publishTraced } from './tracing';

/** Most ids one door publish carries; small enough that one message does not pin much work on one executor. */
export const DOOR_PUBLISH_MAX_IDS = 50;
/**
 * Publishes awaiting their broker ack at once (the window); past it further
 * ids gather until an ack frees a place, so a stalled broker holds at most
 * this many publishes of ids in memory (plus one gathering batch per turn).
 */
export const DOOR_PUBLISHES_IN_FLIGHT = 16;

/**
 * Publishes the door's kept run ids, coalescing the ids of every delivery
 * kept within one event-loop turn into one bus publish. A publish does not
 * wait for the ack of the one before: up to `maxInFlight` await their broker
 * acks side by side, so ids reach the bus one turn after their keep instead
 * of one ack round trip later; only past that window do ids gather until an
 * ack settles (or at once when they fill a message). Each ack is tracked (the
 * dispatched counter; a refusal is a warning). Nobody waits on it: the runs
 * were kept before the door answered, and the scheduler's sweep dispatches
 * any run that was kept but never published.
 */
export function createPublishBatcher(
  deps: { bus: RunBus; metrics: HookMetrics; logger: Logger },
  maxIds = DOOR_PUBLISH_MAX_IDS,
  maxInFlight = DOOR_PUBLISHES_IN_FLIGHT,
): (ids: readonly string[], traceparent?: string, hints?: readonly RunPlanHint[]) => void {
  let pending: string[] = [];
  // The plan hint of each pending id, kept once a delivery with hints waits (run-hints in the bus).
  let hints: (RunPlanHint | undefined)[] | null = null;
  // The traceparent of each pending id, kept only once a traced delivery's ids wait (tracing on).
  let traces: (string | undefined)[] | null = null;
  let scheduled = false;
  let inFlight = 0;

  const settled = () => {
    inFlight -= 1;
    if (!scheduled) flush();
  };

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    // Wait for an ack unless the batch is full: the settle flushes what gathered meanwhile.
    if (inFlight >= maxInFlight && pending.length < maxIds) return;
    const batch = pending;
    const batchTraces = traces;
    const batchHints = hints;
    pending = [];
    traces = null;
    hints = null;
    inFlight += 1;
    (batchTraces ? publishTraced(deps.bus, batch, batchTraces) : deps.bus.publish(batch, batchHints ? { hints: batchHints } : undefined))
      .then(
        () => deps.metrics.dispatched.inc({ source: 'door' }, batch.length),
        (err: unknown) => deps.logger.warn({ err, runs: batch }, 'publish of kept runs failed; the sweep will dispatch them'),
      )
      .finally(settled);
  };

  return (ids, traceparent, idHints) => {
    if (ids.length === 0) return;
    if (traceparent !== undefined && traces === null) traces = new Array<string | undefined>(pending.length).fill(undefined);
    if (idHints && hints === null) hints = new Array<RunPlanHint | undefined>(pending.length).fill(undefined);
    for (const id of ids) pending.push(id);
    if (traces) for (let i = 0; i < ids.length; i += 1) traces.push(traceparent);
    if (hints) for (let i = 0; i < ids.length; i += 1) hints.push(idHints?.[i]);
    if (pending.length >= maxIds) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
