import { INTERACTION_ID_PATTERN, badInput, conflict, notFound, unavailable } from '@hookyard/core';
import type { Interaction, KeptOutcome, ResolvedStatus, SubjectKey } from '@hookyard/core';
import type { InteractionFilter } from './types';

/**
 * Rules both interaction stores share, so memory and Redis say the same words.
 * The Lua scripts receive the history lines as arguments.
 */

/** Bound on one page and on `openOnSubject`. */
export const INTERACTION_LIST_MAX = 1000;

/** The partition an interaction id carries (its last 2 chars), or null when it is not an interaction id. */
export function interactionPartition(id: string, partitions: number): number | null {
  if (!INTERACTION_ID_PATTERN.test(id)) return null;
  const p = parseInt(id.slice(42, 44), 36);
  return Number.isInteger(p) && p < partitions ? p : null;
}

export function checkCursor(cursor: string | null | undefined): void {
  if (cursor !== undefined && cursor !== null && !INTERACTION_ID_PATTERN.test(cursor)) {
    throw badInput(`cursor ${JSON.stringify(cursor)} is not an interaction list cursor`);
  }
}

export const missing = (id: string) => notFound(`interaction ${id} not found`);

/** A second answer: names who answered first. */
export function alreadyResolved(id: string, status: string, by: string, via: string, at: string): Error {
  return conflict(`interaction ${id} is already ${status}${by ? ` (by ${by} via ${via} at ${at})` : ''}`);
}

export const alreadyTaken = (id: string, by: string, at: string) =>
  conflict(`interaction ${id} was already taken (by ${by} at ${at}); a kept outcome is consumed once`);
export const takeOpen = (id: string) => conflict(`interaction ${id} is open; only a resumed interaction's outcome can be taken`);
export const takeWrongStatus = (id: string, status: string) =>
  conflict(`interaction ${id} is ${status}; only a resumed or approved interaction keeps an outcome to take`);
export const takeNotReady = (id: string, run: string, runStatus: string) =>
  unavailable(`interaction ${id}: its run ${run} has not finished yet (${runStatus}); take it once the run has finished`);
export const takeNothingKept = (id: string, run: string, runStatus: string) =>
  conflict(`interaction ${id}: its run ${run} ended ${runStatus} without an outcome to keep`);

/** A stable text for a subject, used to key its index (scope, kind and key, unambiguous). */
export const subjectText = (s: SubjectKey) => JSON.stringify([s.scope, s.kind, s.key]);

export const parkDetail = (kind: string, id: string, expiresAt: number) => `parked on ${kind} ${id} (expires ${new Date(expiresAt).toISOString()})`;

export const wakeDetail = (id: string, status: ResolvedStatus, by: string, via: string) => `interaction ${id} ${status} by ${by} via ${via}`;

/** The reason an expired interaction's resolution carries. */
export const EXPIRE_REASON = 'not answered before it expired';

export const DISCARD_REASON = 'its parked run was discarded by an operator';

export function matchesFilter(i: Interaction, f: InteractionFilter): boolean {
  return (!f.status || i.status === f.status) && (!f.kind || i.kind === f.kind) && (!f.run || i.run === f.run) && (!f.hook || i.hook === f.hook);
}

/** A kept outcome: only a run that ended with a result keeps one (succeeded, denied, cancelled, skipped). */
export function keptOutcome(run: string, status: string, result: unknown, now: number): KeptOutcome {
  return { run, status, result, at: new Date(now).toISOString() };
}
