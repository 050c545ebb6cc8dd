import { allows, randomHex16, toHookyardError } from '@hookyard/core';
import type { Run } from '@hookyard/core';
import type { RunPlanHint } from '@hookyard/bus';
import { toolPolicy } from '@hookyard/tools';
import { decideFresh, policyCall } from './approval-step';
import { hookAllowlist } from './hook-plan';
import type { Preplan } from './attempt';
import type { ExecutorParts } from './executor-parts';

/**
 * Plans a fresh run from its dispatch hint, before any store write: the
 * condition, the arguments, the allowlist and the approval policy. Only a
 * plan the claim can apply alone comes back (skip, or start this tool with
 * these arguments); anything else — a hook with a subject (`$state`,
 * `$parked` are reads), a door contract act, an approval that parks or
 * denies, a jq error, a tool not allowed — is null, and the run is planned
 * after its claim as before, where each of those is handled and recorded.
 */
export async function preplan(x: ExecutorParts, runId: string, hint: RunPlanHint): Promise<Preplan | null> {
  try {
    const [current, policy] = await Promise.all([x.hooks.current(hint.hook), x.policies.current()]);
    if (!current || current.hook.subject) return null;
    const { hook, revision } = current;
    // JSON.parse keeps a `__proto__` key as an own property: payload keys never reach a prototype.
    const payload: unknown = JSON.parse(hint.payloadJson);
    const run = { id: runId, hook: hint.hook, topic: hint.topic, payload } as Run;
    const plan = await x.evaluator.plan(hook, run);
    const { payloadJson } = hint;
    const policyVersion = policy.version;
    if (plan.skip)
      return {
        hook,
        payload,
        claim: { revision, payloadJson, policyVersion, topic: hint.topic, nonce: randomHex16(), plan: { skip: { result: plan.result } } },
      };
    if (plan.act) return null;
    if (!allows(hookAllowlist(hook, x.deps.settings.toolsAllow), hook.tool)) return null;
    const step = await decideFresh(x.gate, policyCall(hook, plan.kwargs, hint.topic, null, null), hook.approval ?? [], Promise.resolve(policy));
    if (step.next !== 'call') return null;
    const tool = await toolPolicy(x.deps.tools, hook.tool);
    const note = step.detail ? { event: 'approval policy', detail: step.detail } : undefined;
    return {
      hook,
      payload,
      claim: {
        revision,
        payloadJson,
        policyVersion,
        topic: hint.topic,
        nonce: randomHex16(),
        plan: { start: { input: plan.kwargs, resumable: tool.crashResumable, ...(note ? { note } : {}) } },
      },
      call: { kwargs: plan.kwargs, extras: plan.extras, subject: plan.subject, decision: step.decision, policy: tool },
    };
  } catch (err) {
    // Whatever failed here fails again after the claim, where it is recorded on the run.
    x.deps.logger.debug({ run: runId, err: toHookyardError(err).message }, 'no plan before the claim; planning after it');
    return null;
  }
}
