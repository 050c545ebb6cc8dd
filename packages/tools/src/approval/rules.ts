import { ALLOWLIST_ENTRY_PATTERN, APPROVAL_ACTIONS, APPROVAL_APPROVERS, APPROVAL_TIMEOUT_ACTIONS, compileErrorLines, nameViolation } from '@hookyard/core';

/** The jq a policy needs: compile checks and evaluation (the engine of @hookyard/jq fits). */
export interface PolicyJq {
  check(expr: string, varNames?: readonly string[]): Promise<void>;
  run(expr: string, input: unknown, options?: { vars?: Record<string, unknown>; timeoutMs?: number }): Promise<unknown[]>;
}

const RULE_FIELDS = new Set(['name', 'tools', 'agents', 'when', 'action', 'message', 'timeout_seconds', 'on_timeout', 'answer_hooks', 'approver']);
/** Fields that mean something only when the rule asks for an approval. */
const APPROVE_ONLY = ['timeout_seconds', 'on_timeout', 'answer_hooks', 'approver'] as const;
/** Longest an approval may stay open: 30 days. */
export const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 3600;
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,127}$/;

/**
 * Checks a list of approval rules and answers one line per miss, each naming
 * the rule as `<at>[i]` (never stops at the first): a bad allowlist entry, a
 * `when` that does not compile, an unknown action, a field the rule's action
 * does not use. An empty list is valid (it allows everything).
 */
export async function validateApprovalRules(value: unknown, at: string, jq: PolicyJq): Promise<string[]> {
  if (!Array.isArray(value)) return [`${at} must be an array of rules {tools, when?, action, ...}`];
  const lines: string[] = [];
  for (let i = 0; i < value.length; i += 1) lines.push(...(await checkRule(value[i], `${at}[${i}]`, jq)));
  return lines;
}

async function checkRule(value: unknown, at: string, jq: PolicyJq): Promise<string[]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at} must be an object {tools, when?, action, ...}`];
  const r = value as Record<string, unknown>;
  const lines: string[] = [];
  for (const key of Object.keys(r)) if (!RULE_FIELDS.has(key)) lines.push(`${at} has unknown field '${key}'`);
  if (r.name !== undefined && (typeof r.name !== 'string' || !RULE_NAME.test(r.name))) {
    lines.push(`${at}.name ${JSON.stringify(r.name)} must match ${RULE_NAME.source}`);
  }
  if (!Array.isArray(r.tools) || r.tools.length === 0) lines.push(`${at}.tools must be a non-empty allowlist (*, tool names, !name)`);
  else
    r.tools.forEach((entry, j) => {
      if (typeof entry !== 'string' || !ALLOWLIST_ENTRY_PATTERN.test(entry))
        lines.push(`${at}.tools[${j}] ${JSON.stringify(entry)} must be *, a tool name or !name`);
    });
  if (r.agents !== undefined) {
    if (!Array.isArray(r.agents) || r.agents.length === 0) lines.push(`${at}.agents must be a non-empty allowlist of agent names (*, names, !name)`);
    else
      r.agents.forEach((entry, j) => {
        if (typeof entry !== 'string' || !ALLOWLIST_ENTRY_PATTERN.test(entry))
          lines.push(`${at}.agents[${j}] ${JSON.stringify(entry)} must be *, an agent name or !name`);
      });
  }
  if (r.when !== undefined) {
    if (typeof r.when !== 'string' || r.when.trim() === '') lines.push(`${at}.when must be a jq expression (a string)`);
    else {
      try {
        await jq.check(r.when, []);
      } catch (err) {
        lines.push(...compileErrorLines(`${at}.when`, err));
      }
    }
  }
  if (!(APPROVAL_ACTIONS as readonly unknown[]).includes(r.action)) {
    lines.push(`${at}.action ${JSON.stringify(r.action)} must be one of ${APPROVAL_ACTIONS.join(', ')}`);
  }
  if (r.message !== undefined && (typeof r.message !== 'string' || r.message.length > 1000))
    lines.push(`${at}.message must be a string of at most 1000 characters`);
  if (r.action !== 'approve') {
    for (const f of APPROVE_ONLY)
      if (r[f] !== undefined) lines.push(`${at}.${f} applies only to action approve (the rule's action is ${JSON.stringify(r.action)})`);
    return lines;
  }
  const t = r.timeout_seconds;
  if (t !== undefined && (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > MAX_APPROVAL_TIMEOUT_SECONDS)) {
    lines.push(`${at}.timeout_seconds ${JSON.stringify(t)} must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_SECONDS}`);
  }
  if (r.on_timeout !== undefined && !(APPROVAL_TIMEOUT_ACTIONS as readonly unknown[]).includes(r.on_timeout)) {
    lines.push(`${at}.on_timeout ${JSON.stringify(r.on_timeout)} must be one of ${APPROVAL_TIMEOUT_ACTIONS.join(', ')}`);
  }
  if (r.approver !== undefined && !(APPROVAL_APPROVERS as readonly unknown[]).includes(r.approver)) {
    lines.push(
      `${at}.approver ${JSON.stringify(r.approver)} must be ${APPROVAL_APPROVERS.map((a) => JSON.stringify(a)).join(', ')} (the agent's own user answers through MCP elicitation) or left out`,
    );
  }
  if (r.answer_hooks !== undefined) {
    if (!Array.isArray(r.answer_hooks)) lines.push(`${at}.answer_hooks must be an array of hook names`);
    else
      r.answer_hooks.forEach((h, j) => {
        const miss = nameViolation(`${at}.answer_hooks[${j}]`, h);
        if (miss) lines.push(miss);
      });
  }
  return lines;
}
