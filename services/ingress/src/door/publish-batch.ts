import type { HookMetrics, Logger } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';

/** Most ids one door publish carries; small enough that one message does not pin much work on one executor. */
export const DOOR_PUBLISH_MAX_IDS = 50;

/**
 * Publishes the door's kept run ids, coalescing the ids of every delivery
 * kept within one event-loop turn into one bus publish. Under load that turns
 * one broker round trip per delivery into one per turn (the ids reach the bus
 * at most one turn later); when idle it is one publish per delivery as before.
 * Nobody waits on it: a failed publish is a warning, and the scheduler's sweep
 * dispatches any run that was kept but never published.
 */
export function createPublishBatcher(deps: { bus: RunBus; metrics: HookMetrics; logger: Logger }, maxIds = DOOR_PUBLISH_MAX_IDS): (ids: readonly string[]) => void {
  let pending: string[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    deps.bus.publish(batch).then(
      () => deps.metrics.dispatched.inc({ source: 'door' }, batch.length),
      (err: unknown) => deps.logger.warn({ err, runs: batch }, 'publish of kept runs failed; the sweep will dispatch them'),
    );
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
