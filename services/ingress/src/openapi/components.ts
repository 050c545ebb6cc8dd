import {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  ERROR_KINDS,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  JQ_FIELDS,
  NAME_MAX_LENGTH,
  NAME_PATTERN_SOURCE,
  REMOTE_PROTOCOLS,
  RESOLUTION_VIAS,
  STATE_TEMPLATE_NAMES,
} from '@hookyard/core';
import { EXPRESSIONS, POLICY_WHEN } from './expressions';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const isoTime: Schema = { type: 'string', format: 'date-time' };
const name: Schema = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH };
const NATS_TRUST: Schema = {
  type: 'string',
  enum: ['trusted'],
  description:
    'trusted: the NATS door keeps messages on this topic (who may publish is up to NATS permissions; such runs are not verified). Absent: the NATS door refuses them',
};

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
  JqField: {
    description: 'A jq expression: inline, or a stored template with its $kwargs',
    oneOf: [
      { type: 'object', required: ['content'], properties: { content: { type: 'string' } }, additionalProperties: false },
      {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, kwargs: { type: 'object', additionalProperties: true } },
        additionalProperties: false,
      },
    ],
  },
  HookInput: {
    type: 'object',
    required: ['name', 'topic', 'tool'],
    additionalProperties: false,
    properties: {
      name: ref('Name'),
      topic: ref('Name'),
      tool: { type: 'string', description: 'A registered tool (GET /api/tools)' },
      tool_kwargs: { type: 'object', additionalProperties: true, description: "Static arguments, validated against the tool's JSON Schema" },
      ...Object.fromEntries(JQ_FIELDS.map((f) => [f, { allOf: [ref('JqField')], 'x-tai42-expression': EXPRESSIONS[f] }])),
      subject: {
        type: 'object',
        required: ['scope', 'kind'],
        additionalProperties: false,
        description:
          'Binds a declared state (GET /api/states/declarations). key_expr is required unless templates names the declared key_expr. ' +
          'Checked at registration: an undeclared state is 404, an attach path another binding overlaps 409, a states-store failure 500; none stores the hook',
        properties: {
          scope: { type: 'string' },
          kind: { type: 'string' },
          key_expr: { allOf: [ref('JqField')], 'x-tai42-expression': EXPRESSIONS['subject.key_expr'] },
          attach: {
            type: 'string',
            description:
              'The part of the document this hook writes (a JSON pointer, "" for all of it), held against every other binding. ' +
              'Absent: the whole document, shared with other hooks without attach (a state never declared is then declared open)',
          },
          templates: {
            type: 'array',
            items: { type: 'string', enum: [...STATE_TEMPLATE_NAMES] },
            description: "The declaration's templates to attach: key_expr fills subject.key_expr, the others the hook's field of that name",
          },
          declaration_version: { type: 'integer', description: 'Ignored on input: the declaration version the attached templates came from' },
        },
      },
      approval: {
        type: 'array',
        items: ref('ApprovalRule'),
        description: "The hook's own approval rules: they can only make a call stricter than the deployment policy (allow -> approve/deny, approve -> deny)",
      },
      tools_allow: { type: 'array', items: { type: 'string' }, description: 'Allowlist (`*`, names, `!name`), intersected with HOOKS_TOOLS_ALLOW' },
      description: { type: 'string' },
      created_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
      updated_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
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
  ApprovalPolicy: {
    type: 'object',
    required: ['version', 'rules', 'updated_at'],
    properties: {
      version: { type: 'integer', minimum: 0, description: 'Bumped by every PUT; 0 when never set' },
      rules: { type: 'array', items: ref('ApprovalRule') },
      updated_at: nullable(isoTime),
    },
  },
  ApprovalPolicyInput: {
    type: 'object',
    required: ['rules'],
    additionalProperties: false,
    properties: {
      rules: { type: 'array', items: ref('ApprovalRule'), description: 'Replaces the rules whole; [] allows every call' },
      version: { type: 'integer', minimum: 0, description: 'Optional: apply only if this is still the kept version (409 otherwise)' },
      updated_at: { ...isoTime, description: 'Ignored on input (echoed by GET)' },
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
  PolicyDryRunInput: {
    type: 'object',
    required: ['call'],
    additionalProperties: false,
    properties: {
      rules: { type: 'array', items: ref('ApprovalRule'), description: 'The candidate rules (absent: the kept policy)' },
      call: {
        type: 'object',
        additionalProperties: false,
        description: 'Exactly one of hook and agent',
        properties: {
          hook: { type: 'string', description: 'A registered hook: the call is its run (its topic and own approval rules apply)' },
          agent: { type: 'string', description: "An agent's name: the call is that agent's (topic tools/call, no subject)" },
          tool: { type: 'string', description: "The tool called; default the hook's tool" },
          args: { type: 'object', additionalProperties: true, description: "The tool's arguments (`.args` in a rule's `when`)" },
          subject: nullable({
            type: 'object',
            required: ['scope', 'kind', 'key'],
            additionalProperties: false,
            properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } },
          }),
        },
      },
    },
  },
  PolicyDryRun: {
    type: 'object',
    required: ['outcome', 'decision', 'call', 'rules_from', 'hook_rules', 'summary'],
    properties: {
      outcome: { type: 'string', enum: ['allow', 'approval', 'deny'] },
      decision: ref('ApprovalDecision'),
      call: {
        type: 'object',
        description: "The document the rules' `when` read: {tool, args, hook, topic, subject, agent}",
        additionalProperties: true,
      },
      rules_from: { type: 'string', enum: ['body', 'kept'] },
      hook_rules: { type: 'integer', description: "How many of the hook's own rules applied" },
      summary: { type: 'string', description: 'What would happen, in one sentence' },
    },
  },
  ApprovalAnswerInput: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: { type: 'string', maxLength: 1000, description: "Kept on the interaction's resolution and in the run's result" } },
  },
  ApprovalAnswer: {
    type: 'object',
    required: ['interaction', 'run'],
    properties: { interaction: ref('Interaction'), run: nullable(ref('Run')) },
  },
  DryRunInput: {
    type: 'object',
    required: ['hook'],
    additionalProperties: false,
    properties: {
      hook: { description: 'A registered hook name, or a hook record (validated, not stored)', oneOf: [ref('Name'), ref('HookInput')] },
      payload: { description: 'The event payload the run would have (default {})' },
    },
  },
  DryRun: {
    type: 'object',
    required: [
      'hook',
      'tool',
      'outcome',
      'subject',
      'parked',
      'state',
      'condition',
      'cancel',
      'resume',
      'act',
      'kwargs',
      'extras',
      'allowlist',
      'approval',
      'error',
      'warnings',
    ],
    properties: {
      hook: { type: 'string' },
      tool: { type: 'string' },
      outcome: {
        type: 'string',
        enum: ['skipped', 'act', 'start', 'denied', 'approval', 'refused', 'error'],
        description:
          'What the run would do: skip, act on interactions (no tool call), start the tool, be denied, park for an approval, be refused by the allowlist, fail',
      },
      subject: nullable({ type: 'object', properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } } }),
      parked: { type: 'array', items: {}, description: 'The $parked the expressions saw' },
      state: { description: "The $state the expressions saw: the subject's state document, or null" },
      condition: nullable({ type: 'object', properties: { present: { type: 'boolean' }, output: { type: 'array', items: {} }, matched: { type: 'boolean' } } }),
      cancel: nullable({ type: 'array', items: {}, description: 'cancel_expr outputs' }),
      resume: nullable({ type: 'array', items: {}, description: 'resume_expr outputs' }),
      act: nullable({
        type: 'object',
        description: 'What the door contract would do: {verb: cancel, ids} | {verb: resume, items: [{id, payload}]} | {verb: take, id}',
        additionalProperties: true,
      }),
      kwargs: nullable({ type: 'object', additionalProperties: true, description: 'The arguments the tool would get' }),
      extras: nullable({
        type: 'object',
        additionalProperties: true,
        description: 'The extras the tool would get (the idempotency key stands as "<run id>"); with an act, the extras handed on',
      }),
      allowlist: nullable({ type: 'object', properties: { allowed: { type: 'boolean' }, list: { type: 'string' } } }),
      approval: nullable(ref('ApprovalDecision')),
      error: nullable({
        type: 'object',
        required: ['step', 'kind', 'message'],
        properties: { step: { type: 'string' }, kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
      }),
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description: 'What looks like a mistake though the run would go on (a condition whose output is not one boolean)',
      },
    },
  },
  ErrorInfo: {
    type: 'object',
    required: ['kind', 'message'],
    properties: { kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
  },
  Hook: {
    allOf: [ref('HookInput'), { type: 'object', required: ['tool_kwargs', 'created_at', 'updated_at'] }],
  },
  Interaction: {
    type: 'object',
    description: "What a parked run waits on. Resolved once; a resumed one keeps its run's outcome until a later run takes it.",
    required: ['id', 'kind', 'run', 'hook', 'topic', 'tool', 'args_hash', 'status', 'created_at', 'expires_at'],
    properties: {
      id: { type: 'string', description: '10 chars of time, 128 random bits (hex), 2 chars of store partition' },
      kind: { type: 'string', enum: [...INTERACTION_KINDS] },
      run: { type: 'string', description: 'The parked run' },
      hook: ref('Name'),
      topic: ref('Name'),
      tool: { type: 'string' },
      args_hash: { type: 'string', description: 'SHA-256 (hex) of the canonical JSON of the exact arguments' },
      rule: nullable({ type: 'string' }),
      policy_version: nullable({ type: 'integer' }),
      answer_hooks: { type: 'array', items: ref('Name'), description: 'approval: the hooks whose door contract may answer it' },
      approver: nullable({
        type: 'string',
        enum: [...APPROVAL_APPROVERS],
        description: "approval: caller when the agent's own user may answer it through MCP elicitation (its rule's approver)",
      }),
      subject: nullable({
        type: 'object',
        required: ['scope', 'kind', 'key'],
        properties: { scope: { type: 'string' }, kind: { type: 'string' }, key: { type: 'string' } },
      }),
      on_timeout: nullable({ type: 'string', description: 'wait: fail | succeed; approval: deny | allow' }),
      created_at: isoTime,
      expires_at: isoTime,
      status: { type: 'string', enum: [...INTERACTION_STATUSES] },
      resolution: nullable({
        type: 'object',
        required: ['by', 'via', 'at'],
        properties: {
          by: { type: 'string' },
          via: { type: 'string', enum: [...RESOLUTION_VIAS] },
          at: isoTime,
          reason: { type: 'string' },
          payload: { nullable: true, description: 'The resume payload' },
          extras: nullable({ type: 'object', additionalProperties: true, description: "The answering run's extras_expr, handed on" }),
        },
      }),
      outcome: nullable({ type: 'object', properties: { run: { type: 'string' }, status: { type: 'string' }, result: { nullable: true }, at: isoTime } }),
      taken: nullable({ type: 'object', properties: { by: { type: 'string' }, at: isoTime } }),
      links: nullable({
        type: 'object',
        description:
          'GET /api/interactions/{id} to an operator or admin only (a reader gets no links field): fresh signed links of an open approval, issued to the calling token (`by`, signed) and recorded in the audit trail (`interaction.links_issued`); null when links are off (HOOKS_PUBLIC_URL, HOOKS_APPROVAL_LINK_SECRET) or it is not open',
        required: ['approve_url', 'deny_url', 'expires_at'],
        properties: {
          approve_url: { type: 'string' },
          deny_url: { type: 'string' },
          expires_at: { ...isoTime, description: 'When the links stop working: min(now + HOOKS_APPROVAL_LINK_TTL_SECONDS, the approval expires_at)' },
        },
      }),
    },
  },
  InteractionPage: {
    type: 'object',
    required: ['interactions', 'next_cursor'],
    properties: {
      interactions: { type: 'array', items: ref('Interaction') },
      next_cursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last' }),
    },
  },
  StateWrite: {
    type: 'object',
    required: ['version', 'op', 'door', 'actor', 'hook', 'at'],
    properties: {
      version: { type: 'integer', minimum: 1, description: 'The version this write made' },
      op: { type: 'string', enum: ['set', 'merge'] },
      door: { type: 'string', enum: ['hook', 'api'], description: 'hook: a state tool called by a run; api: the management API' },
      actor: { type: 'string', description: "door hook: the run id; door api: `<role>:<token label>` (the first 8 hex of the token's SHA-256)" },
      hook: nullable({ type: 'string', description: 'The hook whose run wrote (door hook)' }),
      at: isoTime,
    },
  },
  StateRecord: {
    type: 'object',
    required: ['scope', 'kind', 'key', 'document', 'version', 'created_at', 'updated_at', 'history'],
    properties: {
      scope: ref('Name'),
      kind: ref('Name'),
      key: { type: 'string' },
      document: { type: 'object', additionalProperties: true, description: 'The JSON object kept (at most HOOKS_STATE_MAX_BYTES as compact JSON)' },
      version: { type: 'integer', minimum: 1, description: '1 on create, +1 per write' },
      created_at: isoTime,
      updated_at: isoTime,
      history: { type: 'array', items: ref('StateWrite'), description: 'The last 50 writes, oldest first' },
    },
  },
  StateSummary: {
    type: 'object',
    required: ['scope', 'kind', 'key', 'version', 'updated_at', 'updated_by'],
    properties: {
      scope: ref('Name'),
      kind: ref('Name'),
      key: { type: 'string' },
      version: { type: 'integer', minimum: 1 },
      updated_at: isoTime,
      updated_by: {
        type: 'object',
        required: ['door', 'actor', 'hook'],
        properties: { door: { type: 'string', enum: ['hook', 'api'] }, actor: { type: 'string' }, hook: nullable({ type: 'string' }) },
      },
    },
  },
  StatePage: {
    type: 'object',
    required: ['states', 'next_cursor'],
    properties: {
      states: { type: 'array', items: ref('StateSummary') },
      next_cursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last' }),
    },
  },
  StateInput: {
    type: 'object',
    required: ['document'],
    additionalProperties: false,
    properties: {
      document: { type: 'object', additionalProperties: true, description: 'Replaces the document whole' },
      if_version: {
        type: 'integer',
        minimum: 0,
        description: 'Applies only if the kept version is this one (0: no document yet), else 409 naming the kept one',
      },
    },
  },
  StateDeleted: {
    type: 'object',
    required: ['deleted', 'scope', 'kind', 'key', 'version'],
    properties: {
      deleted: { type: 'boolean', enum: [true] },
      scope: ref('Name'),
      kind: ref('Name'),
      key: { type: 'string' },
      version: { type: 'integer', description: 'The version removed' },
    },
  },
  Tool: {
    type: 'object',
    required: ['name', 'description', 'provider', 'parameters'],
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      provider: { type: 'string', description: 'local, http, openapi, mcp, grpc, …' },
      parameters: { type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' },
      retry: ref('ToolRetryPolicy'),
      crash_resumable: { type: 'boolean' },
      record: ref('ToolRecord'),
      tools: {
        type: 'array',
        items: { type: 'object', additionalProperties: true },
        description: 'a provider registration (openapi, mcp, grpc): the tools it provides',
      },
      discovery: ref('DiscoveryStatus'),
    },
  },
  DiscoveryStatus: {
    type: 'object',
    required: ['name', 'last_success', 'last_error'],
    description: "What the executors' last discoveries of a provider registration found (null: none yet)",
    properties: {
      name: { type: 'string' },
      last_success: nullable({
        type: 'object',
        required: ['at', 'tools'],
        properties: { at: { type: 'string', format: 'date-time' }, tools: { type: 'integer', minimum: 0, description: 'tools it exposed' } },
      }),
      last_error: nullable({
        type: 'object',
        required: ['at', 'kind', 'message'],
        properties: { at: { type: 'string', format: 'date-time' }, kind: { type: 'string' }, message: { type: 'string' } },
      }),
    },
  },
  ToolRetryPolicy: {
    type: 'object',
    required: ['max_attempts', 'base_ms', 'cap_ms', 'kinds'],
    properties: {
      max_attempts: { type: 'integer' },
      base_ms: { type: 'integer' },
      cap_ms: { type: 'integer' },
      kinds: { type: 'array', items: { type: 'string' } },
    },
  },
  ToolRecordInput: {
    type: 'object',
    description:
      'A tool service: kind http (five wire protocols; protocol required), openapi (operations from {endpoint}/openapi.json), ' +
      'mcp (an MCP server over stdio, sse or streamable-http) or grpc (unary methods by reflection or a .proto). Unknown fields, ' +
      'and fields of another kind, are refused',
    required: ['name'],
    properties: {
      name: ref('Name'),
      kind: { type: 'string', enum: ['http', 'openapi', 'mcp', 'grpc'], default: 'http' },
      endpoint: { type: 'string', description: 'http(s) URL; grpc:// or grpcs:// for grpc; absent for an mcp stdio server' },
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST', description: 'http only' },
      timeout_ms: { type: 'integer', minimum: 1, default: 30000 },
      headers: {
        type: 'object',
        additionalProperties: ref('StringOrSecret'),
        description:
          'http, openapi, mcp (sse, streamable-http): sent with every request. A value is a literal or a secret reference; ' +
          'a literal for a credential-looking name (authorization, proxy-authorization, cookie, or containing key, token, secret, password, auth) is refused',
      },
      body_properties: { type: 'object', additionalProperties: true, description: 'http only: merged first into every request body; call arguments win' },
      protocol: { type: 'string', enum: [...REMOTE_PROTOCOLS, 'langserve'], description: 'http only, required there' },
      injected: {
        type: 'object',
        additionalProperties: true,
        description:
          'openapi, mcp, grpc: arguments the runtime applies, hidden from the schema. A value is any JSON value or a secret reference ' +
          '(an object whose only field is `secret` is always one); a credential-looking name takes a reference only',
      },
      operations: { type: 'array', items: { type: 'string' }, description: 'openapi, mcp, grpc: the operations, tools or methods to expose' },
      transport: { type: 'string', enum: ['stdio', 'sse', 'streamable-http'], description: 'mcp only' },
      command: { type: 'string', description: 'mcp stdio: a command listed in HOOKS_MCP_STDIO_ALLOW' },
      args: { type: 'array', items: { type: 'string' }, description: 'mcp stdio: its arguments' },
      proto: { type: 'string', description: 'grpc: a .proto file instead of server reflection' },
      services: { type: 'array', items: { type: 'string' }, description: 'grpc: fully-qualified services to expose' },
      metadata: {
        type: 'object',
        additionalProperties: ref('StringOrSecret'),
        description: 'grpc: text metadata sent with every call; a literal or a secret reference (a credential-looking key takes a reference only)',
      },
      description: { type: 'string' },
      retry: ref('ToolRetryPolicy'),
      crash_resumable: { type: 'boolean' },
    },
  },
  SecretRef: {
    type: 'object',
    required: ['secret'],
    additionalProperties: false,
    description: 'A secret, referenced: resolved by the process that uses it, when it uses it; never stored or echoed',
    properties: {
      secret: {
        type: 'string',
        pattern: '^(env:[A-Za-z_][A-Za-z0-9_]{0,127}|file:/.+)$',
        description: 'env:NAME (an environment variable) or file:/path (a mounted file)',
        example: 'env:TICKETS_API_KEY',
      },
    },
  },
  StringOrSecret: {
    description: 'A literal string, or a secret reference {"secret": "env:NAME"}',
    oneOf: [{ type: 'string' }, ref('SecretRef')],
  },
  ToolRecord: {
    description: 'A registered tool service as kept: secrets appear as references only',
    allOf: [
      ref('ToolRecordInput'),
      { type: 'object', required: ['kind', 'timeout_ms', 'created_at', 'updated_at'], properties: { created_at: isoTime, updated_at: isoTime } },
    ],
  },
  VerifierInput: {
    type: 'object',
    required: ['kind'],
    properties: {
      kind: { type: 'string', enum: ['shared_secret', 'hmac', 'github', 'stripe', 'slack', 'standard-webhooks'] },
      secret: { type: 'string', description: 'One secret reference: env:NAME or file:/path (never a literal secret)' },
      secrets: { type: 'array', items: { type: 'string' }, description: 'Several references, during rotation' },
      settings: { type: 'object', additionalProperties: true, description: 'Kind-specific: header names, algorithm, encoding, prefix, tolerance_seconds, …' },
      nats: NATS_TRUST,
      topic: { ...name, description: 'Optional; must equal the path topic' },
    },
  },
  Verifier: {
    type: 'object',
    required: ['topic', 'kind', 'settings', 'secrets', 'created_at', 'updated_at'],
    properties: {
      topic: ref('Name'),
      kind: { type: 'string' },
      settings: { type: 'object', additionalProperties: true },
      secrets: { type: 'array', items: { type: 'string' }, description: 'References only' },
      nats: NATS_TRUST,
      created_at: isoTime,
      updated_at: isoTime,
    },
  },
  DedupeInput: {
    type: 'object',
    required: ['expr'],
    properties: {
      expr: { type: 'string', maxLength: 4096, description: 'jq over {headers, query, body}, e.g. .headers["x-event-id"] or .body.id; compiled when written' },
      horizon_seconds: { type: 'integer', minimum: 1, maximum: 604800, default: 86400, description: 'How long a key value stays claimed' },
      topic: { ...name, description: 'Optional; must equal the path topic' },
    },
  },
  Dedupe: {
    type: 'object',
    required: ['topic', 'expr', 'horizon_seconds', 'created_at', 'updated_at'],
    properties: { topic: ref('Name'), expr: { type: 'string' }, horizon_seconds: { type: 'integer' }, created_at: isoTime, updated_at: isoTime },
  },
  TriggerLink: {
    type: 'object',
    description: 'A trigger link as kept and listed: never its token (shown once, when made; kept only as its SHA-256)',
    required: ['id', 'hook', 'label', 'created_at', 'created_by', 'expires_at', 'uses', 'max_uses', 'revoked'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^tl_[a-z2-7]{20}$' },
      hook: ref('Name'),
      label: { type: 'string' },
      created_at: isoTime,
      created_by: { type: 'string', description: 'The operator token that made it: `<role>:<first 8 hex of its SHA-256>`' },
      expires_at: nullable({ ...isoTime, description: 'Past this time the link is refused; null: never' }),
      uses: { type: 'integer', minimum: 0, description: 'How many runs it kept' },
      max_uses: nullable({ type: 'integer', minimum: 1, description: 'At this many uses it is refused; null: no limit' }),
      revoked: { type: 'boolean' },
    },
  },
  TriggerLinkInput: {
    type: 'object',
    additionalProperties: false,
    description: 'All optional; an unknown field or a bad value is a 400 naming it. At most one of expires_in_seconds and expires_at.',
    properties: {
      label: { type: 'string', maxLength: 200, description: 'What the link is for (printable characters)' },
      expires_in_seconds: { type: 'integer', minimum: 1, maximum: 315360000 },
      expires_at: { ...isoTime, description: 'A future time, within ten years' },
      max_uses: { type: 'integer', minimum: 1, maximum: 1000000000 },
    },
  },
  TriggerLinkCreated: {
    type: 'object',
    required: ['link', 'token', 'path', 'url'],
    properties: {
      link: ref('TriggerLink'),
      token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: '256 random bits, base64url: shown in this answer only' },
      path: { type: 'string', description: '`/trigger/{token}`' },
      url: nullable({ type: 'string', description: 'HOOKS_PUBLIC_URL followed by the path; null when HOOKS_PUBLIC_URL is unset' }),
    },
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
  UnroutedTopic: {
    type: 'object',
    required: ['topic', 'kept', 'received', 'first_seen', 'last_seen', 'sample', 'sample_truncated'],
    properties: {
      topic: { type: 'string' },
      kept: { type: 'integer', minimum: 0, description: 'Events kept now (at most HOOKS_UNROUTED_KEEP, the newest)' },
      received: { type: 'integer', minimum: 0, description: 'Events received since first_seen, kept or not' },
      first_seen: { type: 'string', format: 'date-time' },
      last_seen: { type: 'string', format: 'date-time' },
      sample: { description: "The newest event's payload; past 2048 bytes of JSON, its start as a string (sample_truncated)" },
      sample_truncated: { type: 'boolean' },
    },
  },
  UnroutedEvent: {
    type: 'object',
    required: ['id', 'topic', 'payload', 'payload_truncated', 'door', 'verified', 'delivery_id', 'received_at'],
    properties: {
      id: { type: 'string' },
      topic: { type: 'string' },
      payload: { description: 'The event as the door parsed it; with payload_truncated, the start of its JSON text as a string' },
      payload_truncated: {
        type: 'boolean',
        description: 'The event was larger than HOOKS_UNROUTED_EVENT_MAX_BYTES: only the start of its payload was kept, and a replay skips it',
      },
      door: { type: 'string', enum: ['http', 'nats'] },
      verified: { type: 'boolean', description: 'A verifier binding checked it as it came in' },
      delivery_id: { type: 'string', nullable: true },
      received_at: { type: 'string', format: 'date-time' },
    },
  },
  SettingChange: {
    type: 'object',
    required: ['variable', 'from', 'to'],
    properties: { variable: { type: 'string' }, from: {}, to: {} },
  },
  SettingsView: {
    type: 'object',
    required: ['generation', 'config_file', 'env_overrides_file', 'settings'],
    properties: {
      generation: {
        type: 'integer',
        minimum: 1,
        description: '1 at boot, +1 per reload that applied something (also the gauge tai42_hook_runs_config_generation)',
      },
      config_file: { type: 'string', nullable: true, description: 'HOOKS_CONFIG_FILE' },
      env_overrides_file: { type: 'array', items: { type: 'string' } },
      settings: {
        type: 'array',
        items: {
          type: 'object',
          required: ['variable', 'value', 'source', 'live'],
          properties: {
            variable: { type: 'string' },
            value: { description: 'In effect in this process; API tokens as {set, roles}, URL passwords as ***' },
            source: { type: 'string', enum: ['default', 'file', 'environment'] },
            live: { type: 'boolean', description: 'A reload applies it; otherwise a change needs a restart' },
            pending_restart: { description: 'What the file or environment now says, applied at the next restart' },
          },
        },
      },
    },
  },
  SettingsReload: {
    type: 'object',
    required: ['ok', 'trigger', 'generation', 'applied', 'restart_needed', 'env_overrides_file'],
    properties: {
      ok: { type: 'boolean', enum: [true] },
      trigger: { type: 'string', enum: ['api'] },
      generation: { type: 'integer' },
      applied: { type: 'array', items: ref('SettingChange') },
      restart_needed: { type: 'array', items: ref('SettingChange') },
      env_overrides_file: { type: 'array', items: { type: 'string' } },
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
