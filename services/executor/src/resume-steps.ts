import { internal } from '@hookyard/core';
import type { Acted, Hook, Interaction } from '@hookyard/core';
import { answeredStep } from './approval-step';
import type { Attempt } from './attempt';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';
import { recordWait, tracingOn } from './tracing';
import { checkStoppedClaim, committedOutcome, waitOutcome } from './woken';

/** What a run learnt from the interaction it woke from: ended by it, or on to its call (approved, with the approval it answered). */
export type Wake = { outcome: Outcome } | { approved: boolean; answered: Interaction | null };

/** A run that did not wake from an answered interaction. */
export const NOT_WOKEN: Wake = { approved: false, answered: null };

/** A door act the store committed: the run ends with what it did, never committing it twice. */
export function committedAct(acted: Acted): acted is 'cancel' | 'resume' | 'take' {
  return acted === 'cancel' || acted === 'resume' || acted === 'take';
}

/**
 * Interrupted after its door act committed (the store made it due again): the
 * commit is done and is never made twice; the run ends with what it did, read
 * from the records.
 */
export async function endCommittedAct(x: ExecutorParts, a: Attempt, acted: 'cancel' | 'resume' | 'take', state: AttemptState): Promise<Outcome> {
  const { run } = a;
  const { stores } = x.deps;
  state.acted = true;
  await a.write((token, now) =>
    stores.runs.note(run.id, token, 'committed', `its ${acted} on ${run.acted_ids.join(', ')} committed before the interruption: ending with its outcome`, now),
  );
  return committedOutcome(run, acted, run.acted_ids, stores.interactions);
}

/** A run woken from its interaction goes on from the answer (one still open: as if not woken). */
export async function wokenStep(x: ExecutorParts, a: Attempt, hook: Hook): Promise<Wake> {
  const i = await x.deps.stores.interactions.get(a.run.interaction!);
  if (!i || i.status === 'open') return NOT_WOKEN;
  if (tracingOn()) recordWait(i);
  const woken = await wokenOutcome(x, a, hook, i);
  if (woken !== 'proceed') return { outcome: woken };
  return { approved: true, answered: i.kind === 'approval' ? i : null };
}

/** A run woken from interaction `i`: a wait ends from its answer; an approval asks the approval continuation. */
async function wokenOutcome(x: ExecutorParts, a: Attempt, hook: Hook, i: Interaction): Promise<Outcome | 'proceed'> {
  const { run } = a;
  if (i.kind === 'wait') return waitOutcome(i);
  if (x.deps.approvals) return x.deps.approvals({ run, hook, interaction: i });
  // Approved, or expired with on_timeout allow: on to the call (its arguments are checked against args_hash there).
  if (i.status === 'approved' || (i.status === 'expired' && i.on_timeout === 'allow')) return 'proceed';
  const step = answeredStep(x.gate, i, hook.tool, {});
  if (step.next !== 'deny') return { error: internal(`run woke from approval ${i.id} in status ${i.status}`), acted: run.acted !== '' };
  await a.write((token, now) => x.deps.stores.runs.note(run.id, token, 'approval policy', step.detail, now));
  return { status: 'denied', result: step.result };
}

/**
 * Stopped mid-claim last time: goes on (null) only if the claim provably did
 * not commit; a claim that committed before the stop is recorded as the
 * attempt would have, and the run ends with its outcome.
 */
export async function stoppedClaimStep(x: ExecutorParts, a: Attempt, state: AttemptState): Promise<Outcome | null> {
  const { run } = a;
  const { stores } = x.deps;
  const check = await checkStoppedClaim(run, stores.interactions);
  if ('error' in check) return { error: check.error, acted: false };
  await a.write((token, now) => stores.runs.note(run.id, token, 'claim_checked', check.note, now));
  if (!('committed' in check)) return null;
  const { verb, ids } = check.committed;
  await a.write((token, now) => stores.runs.act(run.id, token, { acted: verb, actedIds: ids }, now));
  state.acted = true;
  return committedOutcome(run, verb, ids, stores.interactions);
}
