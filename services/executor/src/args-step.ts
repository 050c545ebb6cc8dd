import { TOOL_EXTRA_IDEMPOTENCY_KEY, assignOwn, idempotencyKeyOf, traced } from '@hookyard/core';
import type { Hook, SubjectKey } from '@hookyard/core';
import { actStep } from './act-step';
import type { AgentCall } from './agent-call';
import type { Attempt } from './attempt';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';
import { TOOL_EXTRA_SUBJECT } from './hook-plan';
import type { Wake } from './resume-steps';
import { SPAN } from './tracing';

/** The arguments, extras and subject of the tool call an attempt makes. */
export interface CallArgs {
  kwargs: Record<string, unknown>;
  extras: Record<string, unknown>;
  subject: SubjectKey | null;
}

/**
 * What the attempt calls its tool with: an agent's call its arguments, a
 * replayed start its kept input, a fresh run what its hook's plan says — or
 * the run ends here (the condition skips it, or the door contract acts).
 */
export async function argumentsStep(
  x: ExecutorParts,
  a: Attempt,
  hook: Hook,
  call: AgentCall | null,
  wake: Exclude<Wake, { outcome: unknown }>,
  state: AttemptState,
): Promise<CallArgs | { outcome: Outcome }> {
  const { run } = a;
  const replayed = state.acted && !wake.approved;
  if (call) {
    // A replayed start calls with the kept input, like a hook's; a fresh one with the call's arguments.
    return { kwargs: replayed ? (run.input ?? {}) : call.args, extras: { [TOOL_EXTRA_IDEMPOTENCY_KEY]: idempotencyKeyOf(run) }, subject: null };
  }
  if (replayed) {
    // A replayed start: the kept input, the same extras; no condition or door contract.
    const subject = await x.evaluator.subject(hook, run);
    return { kwargs: run.input ?? {}, subject, extras: await x.evaluator.extras(hook, run, subject) };
  }
  const plan = await traced(SPAN.condition, async (span) => {
    const p = await x.evaluator.plan(hook, run);
    span?.setAttribute('hookyard.condition.matched', !p.skip);
    return p;
  });
  if (plan.skip) return { outcome: { status: 'skipped', result: plan.result } };
  if (plan.act) return { outcome: await actStep(x, a, hook, plan.act, plan.handOn, state) };
  const { kwargs, extras, subject } = plan;
  // Extras the answering run handed on are merged in; the platform's own (idempotency key, subject) stay.
  const handedOn = wake.answered?.resolution?.extras;
  if (handedOn) {
    const own = { [TOOL_EXTRA_IDEMPOTENCY_KEY]: extras[TOOL_EXTRA_IDEMPOTENCY_KEY], [TOOL_EXTRA_SUBJECT]: extras[TOOL_EXTRA_SUBJECT] };
    assignOwn(extras, handedOn);
    for (const [k, v] of Object.entries(own))
      if (v === undefined) delete extras[k];
      else extras[k] = v;
  }
  return { kwargs, extras, subject };
}
