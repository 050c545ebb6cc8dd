import {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_DENY_MESSAGE,
  allows,
  parseAllowlist,
  toHookyardError,
  type ApprovalAction,
  type ApprovalApprover,
  type ApprovalRule,
  type ApprovalTimeoutAction,
  type ErrorInfo,
} from '@hookyard/core';
import type { PolicyJq } from './rules';

/** The document a rule's `when` reads. */
export interface PolicyCall {
  tool: string;
  args: Record<string, unknown>;
  hook: string;
  topic: string;
  /** The run's subject `{scope, kind, key}` when its hook declares one, else null. */
  subject: { scope: string; kind: string; key: string } | null;
  /** The agent whose call this is (door `agent`), else null (a hook's run). Absent: null. */
  agent?: string | null;
}

/** Which rule list a decision came from. */
export type RuleSource = 'deployment' | 'hook';

/** What the policy says about one call. */
export interface ApprovalDecision {
  action: ApprovalAction;
  /** The rule that decided (its name, or `deployment rule 2` / `hook rule 1`); null when no rule matched. */
  rule: string | null;
  source: RuleSource | null;
  /** The deployment policy version the decision read. */
  policy_version: number;
  /** deny: the sentence the caller acts on; approve: the rule's message for the approver (may be empty). */
  message: string;
  /** approve only. */
  timeout_seconds?: number;
  on_timeout?: ApprovalTimeoutAction;
  answer_hooks?: string[];
  /** approve only: `caller` when the agent's own user may answer (the rule's `approver`). */
  approver?: ApprovalApprover;
  /** Set when an evaluation error decided (fail closed: deny). */
  error?: ErrorInfo;
}

const RANK: Record<ApprovalAction, number> = { allow: 0, approve: 1, deny: 2 };

export function ruleLabel(rule: ApprovalRule, index: number, source: RuleSource): string {
  return rule.name ?? `${source} rule ${index + 1}`;
}

/** What a rule that leaves a field out gets. */
export interface RuleDefaults {
  /** An approve rule without timeout_seconds (default DEFAULT_APPROVAL_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
}

function decided(rule: ApprovalRule, index: number, source: RuleSource, version: number, defaults: RuleDefaults): ApprovalDecision {
  const d: ApprovalDecision = { action: rule.action, rule: ruleLabel(rule, index, source), source, policy_version: version, message: rule.message ?? '' };
  if (rule.action === 'deny' && d.message === '') d.message = DEFAULT_DENY_MESSAGE;
  if (rule.action === 'approve') {
    d.timeout_seconds = rule.timeout_seconds ?? defaults.timeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS;
    d.on_timeout = rule.on_timeout ?? 'deny';
    d.answer_hooks = [...(rule.answer_hooks ?? [])];
    if (rule.approver) d.approver = rule.approver;
  }
  return d;
}

/**
 * First match wins over `rules`; no match allows. A rule matches when its
 * tools allowlist allows the tool and its `when` (if any) yields a first
 * output that is neither false nor null. A `when` that raises, times out or
 * cannot run denies (fail closed), naming the rule and quoting the error.
 */
export async function evaluateRules(
  rules: readonly ApprovalRule[],
  call: PolicyCall,
  source: RuleSource,
  version: number,
  jq: PolicyJq,
  timeoutMs: number,
  defaults: RuleDefaults = {},
): Promise<ApprovalDecision> {
  for (let i = 0; i < rules.length; i += 1) {
    const rule = rules[i]!;
    if (!allows(parseAllowlist(rule.tools), call.tool)) continue;
    // A rule naming agents covers only those agents' calls: a hook's run (no agent) never matches it.
    if (rule.agents !== undefined && !(call.agent && allows(parseAllowlist(rule.agents), call.agent))) continue;
    if (rule.when !== undefined) {
      let out: unknown[];
      try {
        out = await jq.run(rule.when, { ...call, agent: call.agent ?? null }, { timeoutMs });
      } catch (err) {
        const e = toHookyardError(err);
        const label = ruleLabel(rule, i, source);
        return {
          action: 'deny',
          rule: label,
          source,
          policy_version: version,
          message: `${DEFAULT_DENY_MESSAGE} (the approval policy could not be evaluated: ${label} 'when' failed: ${e.message})`,
          error: { kind: e.kind, message: `${label} 'when': ${e.message}` },
        };
      }
      const first = out[0];
      if (out.length === 0 || first === false || first === null || first === undefined) continue;
    }
    return decided(rule, i, source, version, defaults);
  }
  return { action: 'allow', rule: null, source: null, policy_version: version, message: '' };
}

/**
 * The deployment's decision, made stricter by the hook's: the stricter action
 * wins (allow < approve < deny), and a tie keeps the deployment's decision, so
 * a hook rule can never loosen a call (a longer timeout, more answer hooks or
 * an allowing expiry included).
 */
export function stricter(deployment: ApprovalDecision, hook: ApprovalDecision): ApprovalDecision {
  return RANK[hook.action] > RANK[deployment.action] ? { ...hook, policy_version: deployment.policy_version } : deployment;
}
