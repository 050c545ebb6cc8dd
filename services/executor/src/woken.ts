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

/**
 * A run stopped mid-claim (`claim_intent` set, nothing acted): are the
 * interactions it was claiming still open? Yes -> the claim did not commit,
 * the attempt goes on (answers the note to record). No -> the error to hold
 * the run failed with: the platform cannot tell who resolved them.
 */
export async function checkStoppedClaim(run: Run, interactions: InteractionStore): Promise<{ note: string } | { error: HookyardError }> {
  const intent = parseIntent(run.claim_intent);
  if (!intent) return { error: internal(`run ${run.id} has an unreadable claim intent ${JSON.stringify(run.claim_intent)}`) };
  const closed: string[] = [];
  for (const id of intent.ids) {
    const i = await interactions.get(id);
    const open = !!i && (intent.verb === 'take' ? i.status === 'resumed' || i.status === 'approved' : i.status === 'open');
    if (!open) closed.push(`${id} (${i ? i.status : 'gone'})`);
  }
  if (closed.length === 0) {
    return { note: `stopped mid-claim (${run.claim_intent}); ${intent.ids.join(', ')} still open: the claim did not commit, trying again` };
  }
  return {
    error: conflict(
      `this run stopped while making a ${intent.verb} claim on ${intent.ids.join(', ')}; ${closed.join(', ')} ${closed.length === 1 ? 'is' : 'are'} no longer open, ` +
        `and the platform cannot tell whether this run's claim or another door (an answer, an expiry, another run, an operator) resolved ${closed.length === 1 ? 'it' : 'them'}: ` +
        'check the interactions, then discard this run, or retry it as a fresh run whose door contract decides again',
    ),
  };
}
