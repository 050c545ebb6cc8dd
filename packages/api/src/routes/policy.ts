import { answer, route } from '../decl';
import { ApprovalPolicy, ApprovalPolicyInput, PolicyDryRun, PolicyDryRunInput } from './approvals-shared';

export const getApprovalPolicy = route({
  method: 'GET',
  path: '/approval-policy',
  role: 'reader',
  operationId: 'getApprovalPolicy',
  tag: 'approvals',
  summary: "The deployment's approval policy",
  answers: { 200: answer('The policy (version 0 with no rules when never set)', ApprovalPolicy) },
});

export const putApprovalPolicy = route({
  method: 'PUT',
  path: '/approval-policy',
  role: 'admin',
  operationId: 'putApprovalPolicy',
  tag: 'approvals',
  summary: 'Replace the approval rules (the version is bumped)',
  description:
    'Replaces the rules whole; one 400 line per bad rule (an allowlist entry, a `when` that does not compile, an unknown action, ' +
    'a field the action does not use). With `version`, applies only if that is still the kept version, else 409 naming the kept one.',
  body: ApprovalPolicyInput,
  // The rules' validator is the one hooks and config files use (jq compiled, one line per bad rule).
  handlerChecks: ['body'],
  answers: { 200: answer('The policy as kept', ApprovalPolicy) },
  errors: [400, 409],
  audit: 'policy.update',
});

export const dryRunApprovalPolicy = route({
  method: 'POST',
  path: '/approval-policy/dry-run',
  role: 'operator',
  operationId: 'dryRunApprovalPolicy',
  tag: 'approvals',
  summary: 'What the approval policy would decide about one call (nothing is kept)',
  description:
    "Evaluates `rules` (a candidate policy, checked like a PUT's; absent: the kept policy) against `call` " +
    "through the executor's own gate: first match wins, no match allows, a failing `when` denies, and a hook's own rules can only make " +
    "the decision stricter. `call.hook` (a registered hook: its topic and own rules apply) or `call.agent` (an agent's call, topic " +
    "tools/call), `call.tool` (default: the hook's tool), `call.args`, `call.subject`. Saves nothing.",
  body: PolicyDryRunInput,
  // Cross-field rules (hook xor agent, a registered hook) and the rules' validator: the handler's lines.
  handlerChecks: ['body'],
  answers: { 200: answer('The decision, the rule that made it and what would happen', PolicyDryRun) },
  errors: [400],
});

export const POLICY_ROUTES = [getApprovalPolicy, putApprovalPolicy, dryRunApprovalPolicy] as const;
