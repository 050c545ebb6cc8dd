import type { Router } from 'express';
import {
  AGENT_CALL_TOPIC,
  TOOL_NAME_MAX_LENGTH,
  agentHookName,
  badInput,
  isValidName,
  nameViolation,
  type ApprovalPolicy,
  type ApprovalRule,
} from '@hookyard/core';
import { validateApprovalRules, type ApprovalDecision, type PolicyCall } from '@hookyard/tools';
import { approvalGate, policyCall } from '@hookyard/plan';
import { changedNothing } from '../audit/recorder';
import { dryRunApprovalPolicy, getApprovalPolicy, putApprovalPolicy } from '@hookyard/api';
import type { ApiContext } from './context';
import { mount } from './declare';

const BODY_FIELDS = new Set(['rules', 'version', 'updated_at']);
const DRY_RUN_FIELDS = new Set(['rules', 'call']);
const CALL_FIELDS = new Set(['hook', 'agent', 'tool', 'args', 'subject']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The sentence for a decision: who decided, and what the run would do. */
function summarize(d: ApprovalDecision, agent: boolean): string {
  const by = d.rule ? `${d.rule} (${d.source} rules)` : 'no rule matched';
  if (d.action === 'allow') return d.rule ? `allowed by ${by}: the tool would be called` : 'no rule matched: the call is allowed and the tool would be called';
  if (d.action === 'deny') return `denied by ${by}: the tool would not be called; the run's result would say "${d.message}"`;
  const who = ['an operator (console, API or CLI)', 'a signed approval link'];
  if (d.answer_hooks?.length) who.push(`the answer hook(s) ${d.answer_hooks.join(', ')}`);
  if (d.approver === 'caller' && agent) who.push("the agent's own user (MCP elicitation)");
  return (
    `approval needed by ${by}: the run would park until ${who.join(', ')} answers, ` +
    `for at most ${d.timeout_seconds} s (then ${d.on_timeout === 'allow' ? 'allowed' : 'denied'})`
  );
}

/**
 * `GET/PUT /api/approval-policy`: the deployment's approval rules, replaced
 * whole by a PUT (admin) and versioned. A PUT carrying `version` applies only
 * if that is still the kept version (409 otherwise), so two editors never
 * overwrite each other unseen. Every bad rule is one 400 line.
 *
 * `POST /api/approval-policy/dry-run` (operator): what the policy (candidate
 * rules from the body, else the kept ones) would decide about one call, a
 * hook's run or an agent's, through the executor's own gate; nothing is kept.
 */
export function policyRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    getApprovalPolicy,
    async (_req, res) => {
      res.json(await ctx.stores.hooks.getApprovalPolicy());
    },
    opts,
  );

  mount(
    router,
    putApprovalPolicy,
    async (req, res) => {
      const body = req.body as unknown;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw badInput('approval policy refused', ['the body must be a JSON object {"rules": [...], "version"?: n}']);
      }
      const b = body as Record<string, unknown>;
      const lines: string[] = [];
      for (const key of Object.keys(b)) if (!BODY_FIELDS.has(key)) lines.push(`unknown field '${key}'`);
      const version = b.version;
      if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version) || version < 0)) {
        lines.push(`version ${JSON.stringify(version)} must be the non-negative integer version the change was made against`);
      }
      if (b.rules === undefined) lines.push('rules is required (an array of rules; [] allows every call)');
      else lines.push(...(await validateApprovalRules(b.rules, 'rules', ctx.jq)));
      if (lines.length) throw badInput('approval policy refused', lines);
      const policy = await ctx.stores.hooks.putApprovalPolicy(b.rules as ApprovalRule[], version === undefined ? null : (version as number), ctx.clock.now());
      ctx.logger.info({ version: policy.version, rules: policy.rules.length }, 'approval policy replaced');
      res.json(policy);
    },
    opts,
  );

  mount(
    router,
    dryRunApprovalPolicy,
    async (req, res) => {
      const b = req.body as unknown;
      if (!isObject(b)) throw badInput('policy dry run refused', ['the body must be a JSON object {"rules"?: [...], "call": {...}}']);
      const lines: string[] = [];
      for (const key of Object.keys(b)) if (!DRY_RUN_FIELDS.has(key)) lines.push(`unknown field '${key}'`);
      if (b.rules !== undefined) lines.push(...(await validateApprovalRules(b.rules, 'rules', ctx.jq)));
      const c = b.call;
      if (!isObject(c)) {
        lines.push(`call must be an object {hook | agent, tool, args?, subject?}, got ${JSON.stringify(c ?? null)}`);
        throw badInput('policy dry run refused', lines);
      }
      for (const key of Object.keys(c)) if (!CALL_FIELDS.has(key)) lines.push(`unknown field 'call.${key}'`);
      if (c.hook === undefined && c.agent === undefined) lines.push("call.hook or call.agent is required: the call is a hook's run or an agent's call");
      if (c.hook !== undefined && c.agent !== undefined)
        lines.push("call.hook and call.agent cannot both be set: a call is either a hook's run or an agent's call");
      const hookLine = c.hook === undefined ? undefined : nameViolation('call.hook', c.hook);
      if (hookLine) lines.push(hookLine);
      const agentLine = c.agent === undefined ? undefined : nameViolation('call.agent', c.agent);
      if (agentLine) lines.push(agentLine);
      const hook = c.hook !== undefined && !hookLine ? await ctx.stores.hooks.getHook(c.hook as string) : null;
      if (c.hook !== undefined && !hookLine && !hook) lines.push(`call.hook ${JSON.stringify(c.hook)} is not a registered hook`);
      const tool = c.tool ?? hook?.tool;
      if (tool === undefined) lines.push("call.tool is required (for a hook's run it defaults to the hook's tool)");
      else if (typeof tool !== 'string' || !isValidName(tool) || tool.length > TOOL_NAME_MAX_LENGTH) {
        lines.push(`call.tool ${JSON.stringify(tool)} must be a tool name (^[a-z0-9][a-z0-9_-]*$, at most ${TOOL_NAME_MAX_LENGTH} characters)`);
      }
      if (c.args !== undefined && !isObject(c.args)) lines.push(`call.args must be an object (the tool's arguments), got ${JSON.stringify(c.args)}`);
      const s = c.subject;
      if (s !== undefined && s !== null) {
        if (c.agent !== undefined) lines.push("call.subject is for a hook's run only: an agent's call has no subject");
        else if (
          !isObject(s) ||
          Object.keys(s).some((k) => k !== 'scope' && k !== 'kind' && k !== 'key') ||
          !['scope', 'kind', 'key'].every((k) => typeof s[k] === 'string')
        ) {
          lines.push(`call.subject must be {scope, kind, key} (strings) or null, got ${JSON.stringify(s)}`);
        }
      }
      if (lines.length) throw badInput('policy dry run refused', lines);

      const kept = await ctx.stores.hooks.getApprovalPolicy();
      const policy: ApprovalPolicy = b.rules === undefined ? kept : { ...kept, rules: b.rules as ApprovalRule[] };
      const agent = (c.agent as string | undefined) ?? null;
      // The document the executor builds for the call: an agent's call runs in the agent's hook slot on the agent topic.
      const call = policyCall(
        { name: agent ? agentHookName(agent) : hook!.name, tool: tool as string },
        (c.args as Record<string, unknown> | undefined) ?? {},
        agent ? AGENT_CALL_TOPIC : hook!.topic,
        agent ? null : ((s as PolicyCall['subject'] | undefined) ?? null),
        agent,
      );
      // The executor's gate over the candidate policy: the same evaluation, the same defaults, nothing kept.
      const gate = approvalGate(ctx.tools, { getApprovalPolicy: () => Promise.resolve(policy) }, ctx.jq, ctx.settings);
      const hookRules = hook?.approval ?? [];
      const decision = await gate.decide(call, hookRules);
      // The declared PolicyDryRun.
      const answer = {
        outcome: decision.action === 'approve' ? 'approval' : decision.action,
        decision,
        call,
        rules_from: b.rules === undefined ? 'kept' : 'body',
        hook_rules: hookRules.length,
        summary: summarize(decision, agent !== null),
      };
      // A preview: nothing was kept, so the audit trail has no entry for it.
      changedNothing(res);
      res.json(answer);
    },
    opts,
  );
}
