import { HOOKS_APPROVAL_REQUESTED_TOPIC, argsHash } from '@hookyard/core';
import type { Hook, Interaction } from '@hookyard/core';
import { ParkRequest, type ApprovalDecision } from '@hookyard/tools';
import type { Attempt } from './attempt';
import { agentOfRun } from './agent-call';
import { TOOL_EXTRA_SUBJECT } from './hook-plan';
import type { ExecutorParts, Outcome } from './executor-parts';

/**
 * Parks the run, before its hook acts, on a new approval bound to the tool,
 * the hash of the exact arguments, the rule, the policy version and the
 * expiry; then fires `hooks_approval_requested` so a deployment routes it to
 * people (a run on that topic itself fires none: no loops).
 */
export async function parkForApproval(
  x: ExecutorParts,
  a: Attempt,
  hook: Hook,
  kwargs: Record<string, unknown>,
  extras: Record<string, unknown>,
  decision: ApprovalDecision,
): Promise<Outcome> {
  const { run } = a;
  const subject = (extras[TOOL_EXTRA_SUBJECT] as Interaction['subject'] | undefined) ?? null;
  await a.write((token, now) =>
    x.deps.stores.runs.note(
      run.id,
      token,
      'approval requested',
      `by ${decision.rule} (${decision.source} rules, policy version ${decision.policy_version})${decision.message ? `: ${decision.message}` : ''}`,
      now,
    ),
  );
  const request = new ParkRequest('approval', (decision.timeout_seconds ?? 0) * 1000, decision.on_timeout ?? 'deny', {
    rule: decision.rule,
    message: decision.message === '' ? null : decision.message,
    policyVersion: decision.policy_version,
    answerHooks: decision.answer_hooks ?? [],
    // Only an agent's call has a caller to ask; a hook's run keeps no approver.
    approver: decision.approver && agentOfRun(run) ? decision.approver : null,
    subject,
  });
  const outcome = await park(x, a, hook, kwargs, extras, request);
  if ('parked' in outcome && run.topic !== HOOKS_APPROVAL_REQUESTED_TOPIC) {
    const i = outcome.parked;
    const payload = {
      interaction: i.id,
      run: run.id,
      hook: run.hook,
      topic: run.topic,
      agent: agentOfRun(run),
      tool: hook.tool,
      args: kwargs,
      rule: decision.rule,
      message: decision.message,
      policy_version: decision.policy_version,
      answer_hooks: i.answer_hooks,
      on_timeout: i.on_timeout,
      expires_at: i.expires_at,
      subject,
    };
    await x.deps.reporter.platformEvent(HOOKS_APPROVAL_REQUESTED_TOPIC, payload, { run: run.id, hook: run.hook });
  }
  return outcome;
}

/** The tool asked to park its run (the `wait` tool): one atomic step ends the attempt and opens the interaction. */
export async function park(
  x: ExecutorParts,
  a: Attempt,
  hook: Hook,
  kwargs: Record<string, unknown>,
  extras: Record<string, unknown>,
  req: ParkRequest,
): Promise<Outcome> {
  const { stores, metrics, logger, settings, reporter } = x.deps;
  const { run } = a;
  const subject = (req.extra.subject ?? extras[TOOL_EXTRA_SUBJECT] ?? null) as Interaction['subject'];
  // An end-of-attempt write like complete: tried again through a store blip (park answers a re-send as stored).
  const { interaction } = await a.writeOutcome('parked', settings.leaseMs, (token, now) =>
    stores.interactions.park({
      run: run.id,
      token,
      kind: req.kind,
      tool: hook.tool,
      argsHash: argsHash(kwargs),
      rule: req.extra.rule ?? null,
      message: req.extra.message ?? null,
      policyVersion: req.extra.policyVersion ?? null,
      answerHooks: req.extra.answerHooks,
      approver: req.extra.approver ?? null,
      subject,
      onTimeout: req.onTimeout,
      expiresAt: now + req.timeoutMs,
      now,
    }),
  );
  metrics.parkedTotal.inc({ hook: run.hook, kind: req.kind });
  reporter.announce({ ...run, status: 'parked', lease: null, interaction: interaction.id, updated_at: interaction.created_at }, 'parked');
  logger.info({ run: run.id, hook: run.hook, interaction: interaction.id, kind: req.kind, expires_at: interaction.expires_at }, 'run parked');
  return { parked: interaction };
}
