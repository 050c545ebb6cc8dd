import { toHookyardError } from '@hookyard/core';
import type { Claimed, ClaimedPlanned } from '@hookyard/store';
import { OUTCOME_RETRY_CAP_MS, OUTCOME_RETRY_FIRST_MS, realSleep } from './attempt';
import type { Preplan } from './attempt';
import type { ExecutorParts } from './executor-parts';

/**
 * Claims run `runId` at `now`: the planned claim when a plan was made before
 * it, else the plain one. Null when there is nothing to do: not claimable (a
 * duplicate delivery, not due yet, or finished), gone, or the claim failed
 * (logged; the sweep dispatches the run again).
 */
export async function claimRun(x: ExecutorParts, runId: string, now: number, pre: Preplan | null): Promise<Claimed | ClaimedPlanned | null> {
  const { settings, stores, logger } = x.deps;
  try {
    return pre ? await claimPlanned(x, runId, now, pre) : await stores.runs.claim(runId, settings.instanceId, settings.leaseMs, now);
  } catch (err) {
    const e = toHookyardError(err);
    // not_found: the run was discarded or expired since it was published.
    if (e.kind === 'not_found') logger.debug({ run: runId, err: e.message }, 'run to claim is gone');
    else logger.warn({ run: runId, kind: e.kind, err: e.message }, 'claim failed; the sweep dispatches the run again');
    return null;
  }
}

/**
 * The planned claim, sent again with the same nonce while the store is
 * unreachable (for at most half a lease): a claim that recorded its start but
 * whose answer was lost must reach this attempt, or its run would lapse as
 * started without its tool ever called. A repeat of a call that landed
 * answers the claim it made (see PlannedClaim.nonce).
 */
async function claimPlanned(x: ExecutorParts, runId: string, now: number, pre: Preplan): Promise<ClaimedPlanned | null> {
  const { settings, stores, clock } = x.deps;
  const sleep = x.deps.sleep ?? realSleep;
  const until = clock.now() + settings.leaseMs / 2;
  for (let wait = OUTCOME_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, OUTCOME_RETRY_CAP_MS)) {
    try {
      return await stores.runs.claimPlanned(runId, settings.instanceId, settings.leaseMs, now, pre.claim);
    } catch (err) {
      const e = toHookyardError(err);
      if ((e.kind !== 'unavailable' && e.kind !== 'timeout') || clock.now() + wait > until || x.closed()) throw e;
      x.deps.logger.debug({ run: runId, err: e.message }, 'planned claim not answered; sending it again');
      await sleep(wait);
    }
  }
}
