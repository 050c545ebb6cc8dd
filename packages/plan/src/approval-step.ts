import { argsHash, type ApprovalPolicy, type Hook, type Interaction, type Settings, type SubjectKey } from '@hookyard/core';
import { ApprovalRepo, type ApprovalDecision, type ApprovalRepoOptions, type PolicyCall, type PolicySource, type ToolRepo } from '@hookyard/tools';

/**
 * The document the approval rules' `when` reads about one call: a hook's run
 * (agent null) or an agent's call (its hook slot `agent:<name>`, no subject).
 */
export function policyCall(
  hook: Pick<Hook, 'name' | 'tool'>,
  args: Record<string, unknown>,
  topic: string,
  subject: SubjectKey | null,
  agent: string | null,
): PolicyCall {
  return { tool: hook.tool, args, hook: hook.name, topic, subject, agent };
}

/** The result of a run the approval policy or an approver said no to: a sentence the caller can act on. */
export interface DeniedResult {
  message: string;
  rule: string | null;
  policy_version: number | null;
  /** The approval that was answered, when a person (or an expiry) denied it. */
  interaction?: string;
  by?: string;
  via?: string;
}

/** What the policy or an answered approval says the run does next. */
export type ApprovalStep =
  | { next: 'call'; decision: ApprovalDecision; detail: string }
  | { next: 'deny'; result: DeniedResult; detail: string }
  | { next: 'park'; decision: ApprovalDecision };

/** A fresh call: the policy's decision (deployment rules, made stricter by the hook's); `policy` as read beside the claim. */
export async function decideFresh(
  gate: ApprovalRepo,
  call: PolicyCall,
  hookRules: Parameters<ApprovalRepo['decide']>[1],
  policy?: Promise<ApprovalPolicy>,
): Promise<ApprovalStep> {
  return stepOf(await gate.decide(call, hookRules, policy));
}

/** What a policy decision makes of a fresh call: call the tool, deny it (the result's sentence, the history's detail), or park. */
export function stepOf(decision: ApprovalDecision): ApprovalStep {
  if (decision.action === 'allow') return { next: 'call', decision, detail: decision.rule ? `allowed by ${decision.rule}` : '' };
  if (decision.action === 'deny') {
    return {
      next: 'deny',
      result: { message: decision.message, rule: decision.rule, policy_version: decision.policy_version },
      detail: `denied by ${decision.rule} (${decision.source} rules, policy version ${decision.policy_version})${decision.error ? `: ${decision.error.message}` : ''}`,
    };
  }
  return { next: 'park', decision };
}

/**
 * A run woken by its answered approval. Approved (or expired with on_timeout
 * allow): the arguments are hashed again and must equal the approved hash,
 * else the run is denied saying why; the call then goes through with a grant.
 * Denied (or expired with on_timeout deny): the run is denied with a sentence
 * naming who said no.
 */
export function answeredStep(gate: ApprovalRepo, i: Interaction, tool: string, args: Record<string, unknown>): ApprovalStep {
  const r = i.resolution;
  const by = r?.by ?? 'expiry';
  const via = r?.via ?? 'expiry';
  const base = { rule: i.rule, policy_version: i.policy_version, interaction: i.id, by, via };
  const allowed = i.status === 'approved' || (i.status === 'expired' && i.on_timeout === 'allow');
  if (!allowed) {
    const why =
      i.status === 'expired'
        ? `this call was not approved before its approval expired at ${i.expires_at}`
        : `this call was denied by ${by} via ${via}${r?.reason ? ` (${r.reason})` : ''}`;
    const message = `${why}: ask for clarification or try a less destructive approach`;
    return { next: 'deny', result: { ...base, message }, detail: `approval ${i.id} ${i.status} by ${by} via ${via}` };
  }
  const hash = argsHash(args);
  if (tool !== i.tool || hash !== i.args_hash) {
    const what =
      tool !== i.tool
        ? `the tool changed from '${i.tool}' to '${tool}'`
        : `the arguments changed (approved ${i.args_hash.slice(0, 12)}…, now ${hash.slice(0, 12)}…)`;
    const message =
      `this call was not made: ${what} since the approval was asked; the hook or a template it uses changed meanwhile, ` +
      'so the approval does not cover this call: send the event again to ask for a new approval';
    return { next: 'deny', result: { ...base, message }, detail: `approval ${i.id} does not cover this call: ${what}` };
  }
  const decision = gate.grant(i, tool, args);
  return { next: 'call', decision, detail: `approved by ${by} via ${via}${i.status === 'expired' ? ' (expired, on_timeout allow)' : ''}` };
}

/**
 * The approval gate over `tools` as every service builds it: the kept policy,
 * the deployment's jq time bound, and HOOKS_APPROVAL_TIMEOUT_SECONDS read at
 * each decision (it applies live).
 */
export function approvalGate(
  tools: ToolRepo,
  policies: PolicySource,
  jq: ApprovalRepoOptions['jq'],
  settings: Pick<Settings, 'jqTimeoutMs' | 'approvalTimeoutMs'>,
): ApprovalRepo {
  return new ApprovalRepo(tools, { policies, jq, jqTimeoutMs: settings.jqTimeoutMs, defaultTimeoutSeconds: () => settings.approvalTimeoutMs / 1000 });
}
