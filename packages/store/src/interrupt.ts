import type { Acted, ErrorInfo } from '@hookyard/core';
import type { InterruptPolicy, LapsedOutcome } from './types';

export interface InterruptedAttempt {
  acted: Acted;
  actedIds: string[];
  resumable: boolean;
  attempts: number;
}

/** The history line of a run made due again by an interrupt (`replay`). */
export const replayDetail = (acted: Acted) =>
  acted === 'start' ? 'its start replays on the next attempt' : `its committed ${acted} ends the run on the next attempt`;

/**
 * The error of a run interrupted after its non-resumable tool started;
 * interrupt.lua builds the same words.
 */
export const unknownOutcomeMessage = (reason: string) =>
  `outcome unknown: interrupted after its tool started (${reason}); the tool may have acted and does not declare crash-resume, ` +
  'so it is not called again; held for an operator to check what the tool did and resolve the run';

export interface InterruptDecision {
  outcome: LapsedOutcome['outcome'];
  error: ErrorInfo;
}

/**
 * What becomes of an attempt that was interrupted (lapsed lease or shutdown
 * hand-back). The memory store calls this; redis/lua/interrupt.lua is the same
 * table, row for row, and the conformance suite holds both to it.
 *
 * - nothing acted: retry after `retryDelayMs`, or fail once attempts are used up;
 * - started a crash-resumable tool: replay the start now, or fail when used up;
 * - started any other tool: held as failed, `outcome_unknown` (the tool may have
 *   acted; no retry can tell), until an operator checks and resolves it;
 * - committed cancel/resume/take: due now, and the next attempt ends the run
 *   with what the commit did (the executor reads it from the records, acting
 *   on nothing again; attempts left do not matter).
 */
export function decideInterrupt(a: InterruptedAttempt, policy: InterruptPolicy, reason: string): InterruptDecision {
  const spent = a.attempts >= policy.maxAttempts;
  const used = `(${a.attempts} of ${policy.maxAttempts})`;
  if (a.acted === '') {
    return spent
      ? { outcome: 'failed', error: { kind: 'unavailable', message: `${reason}; no attempts left ${used}` } }
      : { outcome: 'retry', error: { kind: 'unavailable', message: reason } };
  }
  if (a.acted === 'start') {
    if (!a.resumable) {
      return { outcome: 'failed', error: { kind: 'outcome_unknown', message: unknownOutcomeMessage(reason) } };
    }
    return spent
      ? { outcome: 'failed', error: { kind: 'unavailable', message: `${reason}; no attempts left to replay its start ${used}` } }
      : { outcome: 'replay', error: { kind: 'unavailable', message: `${reason}; replaying its start` } };
  }
  const message = `${reason}; it committed a ${a.acted} on ${JSON.stringify(a.actedIds)}, which ends the run on the next attempt`;
  return { outcome: 'replay', error: { kind: 'unavailable', message } };
}
