import type { HookMetrics, Logger } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';

/** Most ids one door publish carries; small enough that one message does not pin much work on one executor. */
export const DOOR_PUBLISH_MAX_IDS = 50;
/** Publishes awaiting their broker ack at once before further ids wait for one of them (bounded by DOOR_PUBLISH_MAX_IDS). */
export const DOOR_PUBLISHES_IN_FLIGHT = 1;

/**
 * Publishes the door's kept run ids, coalescing the ids of every delivery
 * kept within one event-loop turn into one bus publish; while a publish awaits
 * its broker ack, later ids gather and go out together when it settles (or at
 * once when they fill a message). Under load that turns one broker round trip
 * per delivery into about one per ack round trip (the ids reach the bus at most
 * one ack later); when idle it is one publish per delivery as before.
 * Nobody waits on it: a failed publish is a warning, and the scheduler's sweep
 * dispatches any run that was kept but never published.
 */
export function createPublishBatcher(
  deps: { bus: RunBus; metrics: HookMetrics; logger: Logger },
  maxIds = DOOR_PUBLISH_MAX_IDS,
  maxInFlight = DOOR_PUBLISHES_IN_FLIGHT,
): (ids: readonly string[]) => void {
  let pending: string[] = [];
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
    pending = [];
    inFlight += 1;
    deps.bus
      .publish(batch)
      .then(
        () => deps.metrics.dispatched.inc({ source: 'door' }, batch.length),
        (err: unknown) => deps.logger.warn({ err, runs: batch }, 'publish of kept runs failed; the sweep will dispatch them'),
      )
      .finally(settled);
  };

  return (ids) => {
    if (ids.length === 0) return;
    for (const id of ids) pending.push(id);
    if (pending.length >= maxIds) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
