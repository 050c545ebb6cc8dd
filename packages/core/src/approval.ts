/**
 * The approval policy: rules evaluated on every tool call, whatever provider
 * answers it. First match wins; no match allows; an evaluation error denies.
 */
export const APPROVAL_ACTIONS = ['allow', 'approve', 'deny'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

/** What expiry does to an approval nobody answered (default `deny`). */
export const APPROVAL_TIMEOUT_ACTIONS = ['deny', 'allow'] as const;
export type ApprovalTimeoutAction = (typeof APPROVAL_TIMEOUT_ACTIONS)[number];

/** Who besides operators, signed links and answer hooks may answer an approval: `caller`, the agent's own user (MCP elicitation). */
export const APPROVAL_APPROVERS = ['caller'] as const;
export type ApprovalApprover = (typeof APPROVAL_APPROVERS)[number];

/** One rule. `when` is jq over `{tool, args, hook, topic, subject, agent}`; truthy first output matches. */
export interface ApprovalRule {
  /** Named in history lines and decisions; default `deployment rule <n>` / `hook rule <n>` (1-based). */
  name?: string;
  /** Tools the rule covers (allowlist grammar: `*`, names, `!name`). */
  tools: string[];
  /** Agents whose calls the rule covers (allowlist grammar over agent names); absent: every call, a hook's or an agent's. A rule with `agents` never matches a hook's run. */
  agents?: string[];
  when?: string;
  action: ApprovalAction;
  /** deny: the sentence the run's result carries; approve: shown to the approver. */
  message?: string;
  /** approve only: how long the approval stays open (default DEFAULT_APPROVAL_TIMEOUT_SECONDS). */
  timeout_seconds?: number;
  /** approve only: what expiry does (default deny). */
  on_timeout?: ApprovalTimeoutAction;
  /** approve only: hooks whose resume_expr may answer (their topic must have a verifier binding). */
  answer_hooks?: string[];
  /**
   * approve only: `caller` lets the agent's own user (the person at the MCP client) answer through MCP elicitation,
   * besides operators, signed links and answer hooks. No effect on a hook's run (it has no caller).
   */
  approver?: ApprovalApprover;
}

/** The deployment's policy as kept: `version` counts every PUT (0: never set, no rules). */
export interface ApprovalPolicy {
  version: number;
  rules: ApprovalRule[];
  updated_at: string | null;
}

/** How long an approval stays open when its rule names no timeout_seconds: one hour. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 3600;

/** The result sentence of a denied call whose rule has no message. */
export const DEFAULT_DENY_MESSAGE = 'this call was not approved: ask for clarification or try a less destructive approach';

/** The platform event topic fired for every approval requested (reserved like hooks_run_failed). */
export const HOOKS_APPROVAL_REQUESTED_TOPIC = 'hooks_approval_requested' as const;
