import { allows, forbidden } from '@hookyard/core';
import type { Hook, Interaction } from '@hookyard/core';
import { toolPolicy } from '@hookyard/tools';
import { agentOfRun, type AgentCall } from './agent-call';
import { answeredStep, decideFresh, policyCall, type ApprovalStep } from './approval-step';
import type { CallArgs } from './args-step';
import type { Attempt } from './attempt';
import { callHookTool } from './call-step';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';
import { TOOL_EXTRA_SUBJECT, hookAllowlist, notAllowed } from './hook-plan';
import { parkForApproval } from './park-step';

/** Throws unless the hook's (or the agent's) allowlist lets it call its tool. */
export function checkAllowed(x: ExecutorParts, hook: Hook, call: AgentCall | null): void {
  const { toolsAllow } = x.deps.settings;
  const allowlist = call ? call.allowlist(toolsAllow) : hookAllowlist(hook, toolsAllow);
  if (!allows(allowlist, hook.tool)) throw notAllowed(hook.tool, call ? `agent '${call.agent}'` : `hook '${hook.name}'`, allowlist);
}

/** How the attempt came to its call: woken by an approval it answered, or an operator's retry of a started run. */
export interface StartedBy {
  approved: boolean;
  answered: Interaction | null;
  retried: boolean;
}

/**
 * Asks the approval policy (or reads the answered approval), then records the
 * start and calls the tool: denied, parked for an approval, or the tool's
 * outcome. A replayed start was recorded by an earlier attempt.
 */
export async function startStep(x: ExecutorParts, a: Attempt, hook: Hook, args: CallArgs, by: StartedBy, state: AttemptState): Promise<Outcome> {
  const { run } = a;
  const { stores } = x.deps;
  const { kwargs, extras, subject } = args;
  const { approved, retried } = by;
  const step = await approvalStep(x, a, hook, args, by.answered);
  // A replayed start was allowed when it first started; the policy (or its approval) must still allow it.
  if (state.acted && !approved && !retried && step.next !== 'call') {
    throw forbidden(
      `the replayed start of tool '${hook.tool}' is no longer allowed: ${step.next === 'deny' ? step.detail : `the policy now asks for an approval (${step.decision.rule})`}`,
    );
  }
  if (step.next === 'deny') {
    await a.write((token, now) => stores.runs.note(run.id, token, 'approval policy', step.detail, now));
    return { status: 'denied', result: step.result };
  }
  if (step.next === 'park') return parkForApproval(x, a, hook, kwargs, extras, step.decision);
  // Started by this attempt (not a replay of an earlier attempt's start, which may have left).
  const startsHere = !state.acted || approved || retried;
  if (startsHere && step.detail) await a.write((token, now) => stores.runs.note(run.id, token, 'approval policy', step.detail, now));
  const policy = await toolPolicy(x.deps.tools, hook.tool);
  if (startsHere) {
    // Recorded before the call: from here on the platform adds no attempts.
    await a.write((token, now) => stores.runs.act(run.id, token, { acted: 'start', input: kwargs, resumable: policy.crashResumable }, now));
    state.acted = true;
  }
  return callHookTool(x, a, hook, { kwargs, extras, subject, decision: step.decision, policy, startsHere }, state);
}

/**
 * What the approval policy says about this call. A run woken by its
 * answered approval reads that answer (and hashes its arguments again)
 * instead of asking the policy.
 */
async function approvalStep(x: ExecutorParts, a: Attempt, hook: Hook, args: CallArgs, answered: Interaction | null): Promise<ApprovalStep> {
  if (answered) return answeredStep(x.gate, answered, hook.tool, args.kwargs);
  const subject = args.extras[TOOL_EXTRA_SUBJECT] as { scope: string; kind: string; key: string } | undefined;
  return decideFresh(x.gate, policyCall(hook, args.kwargs, a.run.topic, subject ?? null, agentOfRun(a.run)), hook.approval ?? [], a.policy);
}
