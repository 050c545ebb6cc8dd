import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ApprovalDecision, ApprovalRule } from './hooks-shared';

/*
 * The shapes of approvals, tools and settings (batch C of the declarations).
 * Enumerations repeat @hookyard/core's constants (this package depends on
 * TypeBox only, so the console can take its types); the ingress's
 * api-approvals-shape test holds them equal.
 */
export const INTERACTION_KIND_VALUES = ['approval', 'wait'] as const;
export const INTERACTION_STATUS_VALUES = ['open', 'approved', 'denied', 'resumed', 'cancelled', 'expired', 'taken'] as const;
export const RESOLUTION_VIA_VALUES = ['api', 'link', 'hook', 'expiry', 'elicitation'] as const;
export const APPROVAL_ACTION_VALUES = ['allow', 'approve', 'deny'] as const;
export const APPROVAL_TIMEOUT_VALUES = ['deny', 'allow'] as const;
export const APPROVAL_APPROVER_VALUES = ['caller'] as const;
export const CATALOGUE_FORMAT_VALUES = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
export const REMOTE_PROTOCOL_VALUES = ['openai', 'openai-object', 'ollama', 'langserve-openai', 'langserve-direct', 'langserve'] as const;

/** A string enum as OpenAPI 3.0 says it (no `const`, no `anyOf` of literals). */
export const Enum = <const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });

/** OpenAPI 3.0's `nullable` (ajv reads it too): the schema, or null; an enum lists null too (3.0.3). Not for a named ($id) schema. */
export const Nullable = <S extends TSchema>(schema: S) =>
  Type.Unsafe<Static<S> | null>({ ...schema, nullable: true, ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) });

const IsoTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const NamePattern = (description?: string) => Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 128, ...(description ? { description } : {}) });
const Subject = Type.Object({ scope: Type.String(), kind: Type.String(), key: Type.String() });
/** A JSON object of any fields (OpenAPI 3.0 has no patternProperties: not Type.Record). */
const JsonObject = (description?: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, ...(description ? { description } : {}) });
/** Any JSON value (a payload, a result). */
const AnyJson = (description?: string) => Type.Unsafe<unknown>(description ? { description } : {});

export const Interaction = Type.Object(
  {
    id: Type.String({ description: '10 chars of time, 128 random bits (hex), 2 chars of store partition' }),
    kind: Enum(INTERACTION_KIND_VALUES),
    run: Type.String({ description: 'The parked run' }),
    // An agent's call parks too: its run's hook slot is `agent:<name>` and its topic `tools/call`, never names.
    hook: Type.String({ description: "The parked run's hook (an agent's call: agent:<name>)" }),
    topic: Type.String({ description: "The parked run's topic (an agent's call: tools/call)" }),
    tool: Type.String(),
    args_hash: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of the exact arguments' }),
    rule: Nullable(Type.String()),
    message: Nullable(Type.String({ description: "approval: its rule's message, shown to the approver (null: the rule has none; a wait)" })),
    policy_version: Nullable(Type.Integer()),
    answer_hooks: Type.Array(NamePattern(), { description: 'approval: the hooks whose door contract may answer it' }),
    approver: Nullable(
      Enum(APPROVAL_APPROVER_VALUES, { description: "approval: caller when the agent's own user may answer it through MCP elicitation (its rule's approver)" }),
    ),
    subject: Nullable(Subject),
    on_timeout: Nullable(Type.String({ description: 'wait: fail | succeed; approval: deny | allow' })),
    created_at: IsoTime(),
    expires_at: IsoTime(),
    status: Enum(INTERACTION_STATUS_VALUES),
    resolution: Nullable(
      Type.Object({
        by: Type.String(),
        via: Enum(RESOLUTION_VIA_VALUES),
        at: IsoTime(),
        reason: Type.Optional(Type.String()),
        payload: Type.Optional(AnyJson('The resume payload')),
        extras: Type.Optional(Nullable(JsonObject("The answering run's extras_expr, handed on"))),
      }),
    ),
    outcome: Nullable(
      Type.Object({ run: Type.Optional(Type.String()), status: Type.Optional(Type.String()), result: Type.Optional(AnyJson()), at: Type.Optional(IsoTime()) }),
    ),
    taken: Nullable(Type.Object({ by: Type.Optional(Type.String()), at: Type.Optional(IsoTime()) })),
    links: Type.Optional(
      Nullable(
        Type.Object(
          {
            approve_url: Type.String(),
            deny_url: Type.String(),
            expires_at: IsoTime('When the links stop working: min(now + HOOKS_APPROVAL_LINK_TTL_SECONDS, the approval expires_at)'),
          },
          {
            description:
              'GET /api/interactions/{id} to an operator or admin only (a reader gets no links field): fresh signed links of an open approval, issued to the calling token (`by`, signed) and recorded in the audit trail (`interaction.links_issued`); null when links are off (HOOKS_PUBLIC_URL, HOOKS_APPROVAL_LINK_SECRET) or it is not open',
          },
        ),
      ),
    ),
  },
  { $id: 'Interaction', description: "What a parked run waits on. Resolved once; a resumed one keeps its run's outcome until a later run takes it." },
);

export const InteractionPage = Type.Object(
  {
    interactions: Type.Array(Interaction),
    next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last' })),
  },
  { $id: 'InteractionPage' },
);

export const ApprovalPolicy = Type.Object(
  {
    version: Type.Integer({ minimum: 0, description: 'Bumped by every PUT; 0 when never set' }),
    rules: Type.Array(ApprovalRule),
    updated_at: Nullable(IsoTime()),
  },
  { $id: 'ApprovalPolicy' },
);

export const ApprovalPolicyInput = Type.Object(
  {
    rules: Type.Array(ApprovalRule, { description: 'Replaces the rules whole; [] allows every call' }),
    version: Type.Optional(Type.Integer({ minimum: 0, description: 'Optional: apply only if this is still the kept version (409 otherwise)' })),
    updated_at: Type.Optional(IsoTime('Ignored on input (echoed by GET)')),
  },
  { $id: 'ApprovalPolicyInput', additionalProperties: false },
);

export const PolicyDryRunInput = Type.Object(
  {
    rules: Type.Optional(Type.Array(ApprovalRule, { description: 'The candidate rules (absent: the kept policy)' })),
    call: Type.Object(
      {
        hook: Type.Optional(Type.String({ description: 'A registered hook: the call is its run (its topic and own approval rules apply)' })),
        agent: Type.Optional(Type.String({ description: "An agent's name: the call is that agent's (topic tools/call, no subject)" })),
        tool: Type.Optional(Type.String({ description: "The tool called; default the hook's tool" })),
        args: Type.Optional(JsonObject("The tool's arguments (`.args` in a rule's `when`)")),
        subject: Type.Optional(Nullable(Type.Object({ scope: Type.String(), kind: Type.String(), key: Type.String() }, { additionalProperties: false }))),
      },
      { additionalProperties: false, description: 'Exactly one of hook and agent' },
    ),
  },
  { $id: 'PolicyDryRunInput', additionalProperties: false },
);

export const PolicyDryRun = Type.Object(
  {
    outcome: Enum(['allow', 'approval', 'deny'] as const),
    decision: ApprovalDecision,
    call: JsonObject("The document the rules' `when` read: {tool, args, hook, topic, subject, agent}"),
    rules_from: Enum(['body', 'kept'] as const),
    hook_rules: Type.Integer({ description: "How many of the hook's own rules applied" }),
    summary: Type.String({ description: 'What would happen, in one sentence' }),
  },
  { $id: 'PolicyDryRun' },
);

export const ApprovalAnswerInput = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: "Kept on the interaction's resolution and in the run's result",
        'x-error': 'reason must be a string of at most 1000 characters, got {got}',
      }),
    ),
  },
  { $id: 'ApprovalAnswerInput', additionalProperties: false },
);

export const ApprovalAnswer = Type.Object(
  {
    interaction: Interaction,
    // The woken run (its shape is the Run of the runs routes).
    run: Nullable(Type.Object({ id: Type.String(), status: Type.String() }, { additionalProperties: true, description: 'The woken run (a Run)' })),
  },
  { $id: 'ApprovalAnswer' },
);

export const ToolRetryPolicy = Type.Object(
  { max_attempts: Type.Integer(), base_ms: Type.Integer(), cap_ms: Type.Integer(), kinds: Type.Array(Type.String()) },
  { $id: 'ToolRetryPolicy' },
);

export const DiscoveryStatus = Type.Object(
  {
    name: Type.String(),
    last_success: Nullable(Type.Object({ at: IsoTime(), tools: Type.Integer({ minimum: 0, description: 'tools it exposed' }) })),
    last_error: Nullable(Type.Object({ at: IsoTime(), kind: Type.String(), message: Type.String() })),
  },
  { $id: 'DiscoveryStatus', description: "What the executors' last discoveries of a provider registration found (null: none yet)" },
);

export const SecretRef = Type.Object(
  {
    secret: Type.String({
      pattern: '^(env:[A-Za-z_][A-Za-z0-9_]{0,127}|file:/.+)$',
      description: 'env:NAME (an environment variable) or file:/path (a mounted file)',
    }),
  },
  {
    $id: 'SecretRef',
    additionalProperties: false,
    description: 'A secret, referenced: resolved by the process that uses it, when it uses it; never stored or echoed',
  },
);

export const StringOrSecret = Type.Union([Type.String(), SecretRef], {
  $id: 'StringOrSecret',
  description: 'A literal string, or a secret reference {"secret": "env:NAME"}',
});

/** Names to a literal or a secret reference each. */
const SecretMap = (options: { description: string }) =>
  Type.Unsafe<Record<string, Static<typeof StringOrSecret>>>({ type: 'object', additionalProperties: StringOrSecret, ...options });

const TOOL_RECORD_FIELDS = {
  name: NamePattern(),
  kind: Type.Optional(Enum(['http', 'openapi', 'mcp', 'grpc'] as const, { default: 'http' })),
  endpoint: Type.Optional(Type.String({ description: 'http(s) URL; grpc:// or grpcs:// for grpc; absent for an mcp stdio server' })),
  method: Type.Optional(Enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const, { default: 'POST', description: 'http only' })),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, default: 30000 })),
  headers: Type.Optional(
    SecretMap({
      description:
        'http, openapi, mcp (sse, streamable-http): sent with every request. A value is a literal or a secret reference; ' +
        'a literal for a credential-looking name (authorization, proxy-authorization, cookie, or containing key, token, secret, password, auth) is refused',
    }),
  ),
  body_properties: Type.Optional(JsonObject('http only: merged first into every request body; call arguments win')),
  protocol: Type.Optional(Enum(REMOTE_PROTOCOL_VALUES, { description: 'http only, required there' })),
  injected: Type.Optional(
    JsonObject(
      'openapi, mcp, grpc: arguments the runtime applies, hidden from the schema. A value is any JSON value or a secret reference ' +
        '(an object whose only field is `secret` is always one); a credential-looking name takes a reference only',
    ),
  ),
  operations: Type.Optional(Type.Array(Type.String(), { description: 'openapi, mcp, grpc: the operations, tools or methods to expose' })),
  transport: Type.Optional(Enum(['stdio', 'sse', 'streamable-http'] as const, { description: 'mcp only' })),
  command: Type.Optional(Type.String({ description: 'mcp stdio: a command listed in HOOKS_MCP_STDIO_ALLOW' })),
  args: Type.Optional(Type.Array(Type.String(), { description: 'mcp stdio: its arguments' })),
  proto: Type.Optional(Type.String({ description: 'grpc: a .proto file instead of server reflection' })),
  services: Type.Optional(Type.Array(Type.String(), { description: 'grpc: fully-qualified services to expose' })),
  metadata: Type.Optional(
    SecretMap({
      description: 'grpc: text metadata sent with every call; a literal or a secret reference (a credential-looking key takes a reference only)',
    }),
  ),
  description: Type.Optional(Type.String()),
  retry: Type.Optional(ToolRetryPolicy),
  crash_resumable: Type.Optional(Type.Boolean()),
};

export const ToolRecordInput = Type.Object(TOOL_RECORD_FIELDS, {
  $id: 'ToolRecordInput',
  description:
    'A tool service: kind http (five wire protocols; protocol required), openapi (operations from {endpoint}/openapi.json), ' +
    'mcp (an MCP server over stdio, sse or streamable-http) or grpc (unary methods by reflection or a .proto). Unknown fields, ' +
    'and fields of another kind, are refused',
});

export const ToolRecord = Type.Object(
  {
    ...TOOL_RECORD_FIELDS,
    kind: Enum(['http', 'openapi', 'mcp', 'grpc'] as const),
    timeout_ms: Type.Integer({ minimum: 1 }),
    created_at: IsoTime(),
    updated_at: IsoTime(),
  },
  { $id: 'ToolRecord', description: 'A registered tool service as kept: secrets appear as references only' },
);

export const Tool = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    provider: Type.String({ description: 'local, http, openapi, mcp, grpc, …' }),
    parameters: JsonObject('JSON Schema of the arguments'),
    retry: Type.Optional(ToolRetryPolicy),
    crash_resumable: Type.Optional(Type.Boolean()),
    record: Type.Optional(ToolRecord),
  },
  { $id: 'Tool' },
);

/** A provider registration (openapi, mcp, grpc) is not itself a tool: GET /tools/{name} shows what it provides. */
export const ToolProvider = Type.Object(
  {
    name: Type.String(),
    provider: Type.String({ description: 'The registration kind' }),
    record: ToolRecord,
    tools: Type.Array(Tool, { description: 'the tools it provides' }),
    discovery: DiscoveryStatus,
  },
  { $id: 'ToolProvider' },
);

export const SettingChange = Type.Object({ variable: Type.String(), from: AnyJson(), to: AnyJson() }, { $id: 'SettingChange' });

export const SettingsView = Type.Object(
  {
    generation: Type.Integer({ minimum: 1, description: '1 at boot, +1 per reload that applied something (also the gauge tai42_hook_runs_config_generation)' }),
    config_file: Nullable(Type.String({ description: 'HOOKS_CONFIG_FILE' })),
    env_overrides_file: Type.Array(Type.String()),
    settings: Type.Array(
      Type.Object({
        variable: Type.String(),
        value: AnyJson('In effect in this process; API tokens as {set, roles}, URL passwords as ***'),
        source: Enum(['default', 'file', 'environment'] as const),
        live: Type.Boolean({ description: 'A reload applies it; otherwise a change needs a restart' }),
        pending_restart: Type.Optional(AnyJson('What the file or environment now says, applied at the next restart')),
      }),
    ),
  },
  { $id: 'SettingsView' },
);

export const SettingsReload = Type.Object(
  {
    ok: Type.Unsafe<true>({ type: 'boolean', enum: [true] }),
    trigger: Enum(['api'] as const),
    generation: Type.Integer(),
    applied: Type.Array(SettingChange),
    restart_needed: Type.Array(SettingChange),
    env_overrides_file: Type.Array(Type.String()),
  },
  { $id: 'SettingsReload' },
);

// The rule and the decision are the hooks' (a hook carries its own rules): one definition, re-exported here.
export { ApprovalDecision, ApprovalRule };
