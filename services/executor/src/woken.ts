import { conflict, internal, timeoutError } from '@hookyard/core';
import type { HookyardError, Interaction, Run } from '@hookyard/core';
import type { CompletedStatus, InteractionStore } from '@hookyard/store';
import { parseIntent } from './door';

/** How a run woken from its interaction ends, or that it goes on (an approval to its tool call). */
export type WokenOutcome = { status: CompletedStatus; result: unknown } | { error: HookyardError; acted: boolean };

/**
 * A `wait` run woken from its interaction: resumed -> succeeded with the
 * resume payload as its result; expired -> `on_timeout` (fail: held failed,
 * kind timeout; succeed: `{"timed_out": true}`).
 */
export function waitOutcome(i: Interaction): WokenOutcome {
  switch (i.status) {
    case 'resumed':
    case 'taken':
    case 'approved':
      return { status: 'succeeded', result: i.resolution?.payload ?? null };
    case 'expired':
      if (i.on_timeout === 'succeed') return { status: 'succeeded', result: { timed_out: true, interaction: i.id } };
      return { error: timeoutError(`wait ${i.id} expired at ${i.expires_at} with no resume (on_timeout fail)`), acted: true };
    case 'denied':
      return { status: 'denied', result: { denied: i.id, reason: i.resolution?.reason ?? '' } };
    case 'cancelled':
      return { status: 'cancelled', result: { cancelled: i.id } };
    default:
      return { error: internal(`run woke while its wait ${i.id} is still ${i.status}`), acted: true };
  }
}

/** Does interaction `i` name run `runId` as the door that resolved it (`verb` resume/cancel) or took its outcome (`take`)? */
export function resolvedByRun(i: Interaction, verb: DoorVerb, runId: string): boolean {
  const by = verb === 'take' ? i.taken?.by : i.resolution?.by;
  return typeof by === 'string' && by.split(' ').includes(`run:${runId}`);
}

type DoorVerb = 'cancel' | 'resume' | 'take';

/**
 * A run stopped mid-claim (`claim_intent` set, nothing acted): are the
 * interactions it was claiming still open? Yes -> the claim did not commit,
 * the attempt goes on (answers the note to record). Every one resolved by
 * this very run (its resolution, or for a take who took it, names
 * `run:<id>`) -> the claim committed: the run records the act and ends with
 * its outcome. Otherwise -> the error to hold the run failed with.
 */
export async function checkStoppedClaim(
  run: Run,
  interactions: InteractionStore,
): Promise<{ note: string } | { committed: { verb: DoorVerb; ids: string[] }; note: string } | { error: HookyardError }> {
  const intent = parseIntent(run.claim_intent);
  if (!intent) return { error: internal(`run ${run.id} has an unreadable claim intent ${JSON.stringify(run.claim_intent)}`) };
  const closed: string[] = [];
  const ours: string[] = [];
  for (const id of intent.ids) {
    const i = await interactions.get(id);
    const open = !!i && (intent.verb === 'take' ? i.status === 'resumed' || i.status === 'approved' : i.status === 'open');
    if (open) continue;
    if (i && resolvedByRun(i, intent.verb, run.id)) ours.push(id);
    else closed.push(`${id} (${i ? i.status : 'gone'})`);
  }
  if (closed.length === 0 && ours.length === 0) {
    return { note: `stopped mid-claim (${run.claim_intent}); ${intent.ids.join(', ')} still open: the claim did not commit, trying again` };
  }
  if (closed.length === 0 && ours.length === intent.ids.length) {
    return {
      committed: { verb: intent.verb, ids: ours },
      note: `stopped mid-claim (${run.claim_intent}); ${ours.join(', ')} name${ours.length === 1 ? 's' : ''} this run as ${intent.verb === 'take' ? 'taker' : 'resolver'}: the claim committed, the run ends with its outcome`,
    };
  }
  if (closed.length === 0) {
    const open = intent.ids.filter((id) => !ours.includes(id));
    return {
      error: conflict(
        `this run stopped while making a ${intent.verb} claim on ${intent.ids.join(', ')}; its claim committed on ${ours.join(', ')} but not on ${open.join(', ')} (still open): ` +
          'check the interactions, then discard this run, or retry it as a fresh run whose door contract decides again',
      ),
    };
  }
  return {
    error: conflict(
      `this run stopped while making a ${intent.verb} claim on ${intent.ids.join(', ')}; ${closed.join(', ')} ${closed.length === 1 ? 'is' : 'are'} no longer open, ` +
        `and the platform cannot tell whether this run's claim or another door (an answer, an expiry, another run, an operator) resolved ${closed.length === 1 ? 'it' : 'them'}: ` +
        'check the interactions, then discard this run, or retry it as a fresh run whose door contract decides again',
    ),
  };
}

/**
 * What a committed door act ends its run with, read from the records: the
 * outcome an uninterrupted attempt gets (resume: `{resumed: ids}`, cancel:
 * `{cancelled: ids}`, take: the taken outcome's result). A commit that the
 * run's last claim intent shows was partial (it stopped at a refusal) is held
 * failed, as the uninterrupted attempt is.
 */
export async function committedOutcome(
  run: Run,
  verb: DoorVerb,
  ids: string[],
  interactions: InteractionStore,
): Promise<{ status: CompletedStatus; result: unknown } | { error: HookyardError; acted: true }> {
  const lastIntent = [...run.history].reverse().find((h) => h.event === 'claim_intent')?.detail;
  const intended = lastIntent ? parseIntent(lastIntent) : null;
  const missing = intended && intended.verb === verb ? intended.ids.filter((id) => !ids.includes(id)) : [];
  if (missing.length > 0) {
    return {
      error: conflict(
        `its ${verb} committed on ${ids.join(', ')} but not on ${missing.join(', ')} (its claim named ${intended!.ids.join(', ')}); held for an operator`,
      ),
      acted: true,
    };
  }
  if (verb === 'cancel') return { status: 'succeeded', result: { cancelled: ids } };
  if (verb === 'resume') return { status: 'succeeded', result: { resumed: ids } };
  const i = ids.length === 1 ? await interactions.get(ids[0]!) : null;
  if (!i || !i.outcome || !resolvedByRun(i, 'take', run.id)) {
    return {
      error: internal(`its take on ${ids.join(', ')} committed, but the interaction no longer shows the outcome this run took; held for an operator`),
      acted: true,
    };
  }
  return { status: 'succeeded', result: i.outcome.result ?? null };
}
