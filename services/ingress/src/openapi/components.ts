import {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  ERROR_KINDS,
  NAME_MAX_LENGTH,
  NAME_PATTERN_SOURCE,
} from '@hookyard/core';
import { POLICY_WHEN } from './expressions';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const name: Schema = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH };

/** components.schemas of the management API: the wire shapes the routes answer with. */
export const SCHEMAS: Record<string, Schema> = {
  Name: { ...name, description: 'Hook, topic and tool names: never sanitized; a violation is a 400 naming the field and the pattern' },
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['kind', 'message'],
        properties: {
          kind: { type: 'string', enum: [...ERROR_KINDS] },
          message: { type: 'string' },
          details: { type: 'array', items: { type: 'string' }, description: 'One line per miss (e.g. every refused field of a registration)' },
        },
      },
    },
  },
  ApprovalRule: {
    type: 'object',
    required: ['tools', 'action'],
    additionalProperties: false,
    description: 'First matching rule wins; no match allows; a `when` that fails denies (fail closed)',
    properties: {
      name: {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,127}$',
        description: 'Named in decisions and history lines; default `deployment rule <n>` / `hook rule <n>`',
      },
      tools: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Tools the rule covers (allowlist grammar: `*`, names, `!name`)' },
      agents: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description:
          "Agents whose calls the rule covers (allowlist grammar over agent names); absent: every call. A rule with agents never matches a hook's run",
      },
      when: { type: 'string', description: 'jq; the rule matches when its first output is neither false nor null', 'x-tai42-expression': POLICY_WHEN },
      action: { type: 'string', enum: [...APPROVAL_ACTIONS] },
      message: {
        type: 'string',
        maxLength: 1000,
        description:
          "deny: the sentence the run's result carries (default: ask for clarification or try a less destructive approach); approve: shown to the approver",
      },
      timeout_seconds: {
        type: 'integer',
        minimum: 1,
        maximum: 2592000,
        default: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
        description: 'approve only: how long the approval stays open (absent: HOOKS_APPROVAL_TIMEOUT_SECONDS, default 3600)',
      },
      on_timeout: { type: 'string', enum: [...APPROVAL_TIMEOUT_ACTIONS], default: 'deny', description: 'approve only: what expiry does' },
      answer_hooks: {
        type: 'array',
        items: ref('Name'),
        description: 'approve only: hooks whose resume_expr may answer (their topic needs a verifier binding)',
      },
      approver: {
        type: 'string',
        enum: [...APPROVAL_APPROVERS],
        description:
          "approve only: caller lets the agent's own user (the person at the MCP client) answer through MCP elicitation (form mode), besides operators, signed links and answer hooks; no effect on a hook's run (it has no caller)",
      },
    },
  },
  ApprovalDecision: {
    type: 'object',
    required: ['action', 'rule', 'source', 'policy_version', 'message'],
    properties: {
      action: { type: 'string', enum: [...APPROVAL_ACTIONS] },
      rule: nullable({ type: 'string', description: 'The rule that decided; null when none matched' }),
      source: nullable({ type: 'string', enum: ['deployment', 'hook'] }),
      policy_version: { type: 'integer' },
      message: { type: 'string' },
      timeout_seconds: { type: 'integer' },
      on_timeout: { type: 'string', enum: [...APPROVAL_TIMEOUT_ACTIONS] },
      answer_hooks: { type: 'array', items: { type: 'string' } },
      approver: { type: 'string', enum: [...APPROVAL_APPROVERS] },
      error: ref('ErrorInfo'),
    },
  },
  ErrorInfo: {
    type: 'object',
    required: ['kind', 'message'],
    properties: { kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
  },
  DoorAccepted: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['accepted', 'duplicate'] },
      runs: { type: 'integer', minimum: 0, description: 'Runs kept (one per hook on the topic); absent on duplicate' },
      run_ids: { type: 'array', items: { type: 'string' }, description: 'The ids of the runs kept (GET /api/hook-runs/{id}); absent on duplicate' },
      event_id: {
        type: 'string',
        nullable: true,
        description: 'The id every run id of this event starts with; null when nothing was kept; absent on duplicate',
      },
      unrouted: {
        type: 'boolean',
        enum: [true],
        description: 'Present when no hook is registered on the topic (runs: 0): the event is kept under GET /api/unrouted',
      },
      message: { type: 'string', description: 'With unrouted: says no hook is registered on the topic and where the event is kept' },
    },
  },
  DoorRejected: {
    type: 'object',
    required: ['status', 'error'],
    properties: { status: { type: 'string', enum: ['rejected'] }, error: { type: 'string' } },
  },
  DoorError: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' } },
  },
};
