import { notFound } from '@hookyard/core';
import type { Attempt, Preplan } from './attempt';
import { agentCallOf } from './agent-call';
import { argumentsStep } from './args-step';
import { callHookTool } from './call-step';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';
import { NOT_WOKEN, committedAct, endCommittedAct, stoppedClaimStep, wokenStep } from './resume-steps';
import { checkAllowed, startStep } from './start-step';

/**
 * The hook's steps up to the tool's result, in order. Throws the failure;
 * `state.acted` says on which side of acting.
 */
export async function runAttempt(x: ExecutorParts, a: Attempt, state: AttemptState): Promise<Outcome> {
  const { run } = a;
  // Planned before the claim, which recorded the start: on to the tool with what was planned.
  if (a.planned?.call) return callPlanned(x, a, a.planned, state);
  if (committedAct(run.acted)) return endCommittedAct(x, a, run.acted, state);
  // An agent's call: the call (tool, arguments, runtime allowlist) is the run's payload, and its agent's record
  // stands where a hook's would; there is no condition, door contract or subject.
  const call = run.door === 'agent' ? await agentCallOf(run, x.deps.stores.agents) : null;
  if (call && 'revoked' in call) {
    await a.write((token, now) => x.deps.stores.runs.note(run.id, token, 'agent', call.revoked, now));
    return { status: 'denied', result: { message: call.revoked, rule: null, policy_version: null } };
  }
  const hook = call ? call.hook : await x.hooks.get(run.hook, a.hookRevision);
  if (!hook) throw notFound(`hook '${run.hook}' is no longer registered`);
  // A start made before an operator's retry: the store resets attempts and keeps the start, and
  // every claim counts one, so a started run claimed at attempt 1 was retried (a crash replay
  // comes at 2 or later). Its call used up the approval it had (the retry dropped the link to
  // it): this start asks the current policy again, and may park or be denied.
  const retried = run.acted === 'start' && run.attempts === 1;
  const wake = run.interaction && !retried ? await wokenStep(x, a, hook) : NOT_WOKEN;
  if ('outcome' in wake) return wake.outcome;
  if (run.claim_intent && run.acted === '') {
    const stopped = await stoppedClaimStep(x, a, state);
    if (stopped) return stopped;
  }
  const args = await argumentsStep(x, a, hook, call, wake, state);
  if ('outcome' in args) return args.outcome;
  checkAllowed(x, hook, call);
  return startStep(x, a, hook, args, { ...wake, retried }, state);
}

/** The claim recorded the planned start: the call is what was planned, made by this attempt. */
function callPlanned(x: ExecutorParts, a: Attempt, planned: Preplan, state: AttemptState): Promise<Outcome> {
  state.acted = true;
  const { kwargs, extras, subject, decision, policy } = planned.call!;
  return callHookTool(x, a, planned.hook, { kwargs, extras, subject, decision, policy, startsHere: true }, state);
}
