import { Type, type TSchema } from '@sinclair/typebox';

/*
 * Batch D's named schemas: subject state, unrouted events and agent
 * principals. Each `$id` is the component's name in the OpenAPI document.
 * The constants mirror @hookyard/core's (this package depends on TypeBox only).
 */

const NAME = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 128 } as const;
/** Hook, topic, scope and kind names (NAME_PATTERN_SOURCE, NAME_MAX_LENGTH of @hookyard/core). */
export const PlainName = (description?: string) => Type.String({ ...NAME, ...(description ? { description } : {}) });
/** A name in a request, refused with core's nameViolation lines (`scope "Git Hub" must match ...`). */
export const RequestName = (description?: string) =>
  Type.String({
    ...NAME,
    ...(description ? { description } : {}),
    'x-error': {
      type: `{path} must be a string matching ${NAME.pattern}`,
      maxLength: `{path} must be at most ${NAME.maxLength} characters`,
      '*': `{path} {got} must match ${NAME.pattern}`,
    },
  });
/** A JSON object of any fields (OpenAPI 3.0 has no patternProperties, which Type.Record writes). */
export const JsonObject = (description?: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, ...(description ? { description } : {}) });
const isoTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const Nullable = <S extends TSchema>(s: S) => Type.Unsafe<S['static'] | null>({ ...s, nullable: true });
const Enum = <const V extends string>(values: readonly V[], description?: string) =>
  Type.Unsafe<V>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const Door = Enum(['hook', 'api'] as const, 'hook: a state tool called by a run; api: the management API');

export const StateWrite = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: 'The version this write made' }),
    op: Enum(['set', 'merge'] as const),
    door: Door,
    actor: Type.String({ description: "door hook: the run id; door api: `<role>:<token label>` (the first 8 hex of the token's SHA-256)" }),
    hook: Nullable(Type.String({ description: 'The hook whose run wrote (door hook)' })),
    at: isoTime(),
  },
  { $id: 'StateWrite' },
);

/** A subject's state: its document, version and write history. */
export const StateRecord = Type.Object(
  {
    scope: PlainName(),
    kind: PlainName(),
    key: Type.String(),
    document: JsonObject('The JSON object kept (at most HOOKS_STATE_MAX_BYTES as compact JSON)'),
    version: Type.Integer({ minimum: 1, description: '1 on create, +1 per write' }),
    created_at: isoTime(),
    updated_at: isoTime(),
    history: Type.Array(StateWrite, { description: 'The last 50 writes, oldest first' }),
  },
  { $id: 'StateRecord' },
);
/** The batch's name for a subject's state. */
export const State = StateRecord;

export const StateSummary = Type.Object(
  {
    scope: PlainName(),
    kind: PlainName(),
    key: Type.String(),
    version: Type.Integer({ minimum: 1 }),
    updated_at: isoTime(),
    updated_by: Type.Object({ door: Door, actor: Type.String(), hook: Nullable(Type.String()) }),
  },
  { $id: 'StateSummary' },
);

export const StatePage = Type.Object(
  {
    states: Type.Array(StateSummary),
    next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last' })),
  },
  { $id: 'StatePage' },
);

/** A compare-and-set version: a whole number >= 0. */
export const IfVersion = (description: string) =>
  Type.Integer({
    minimum: 0,
    description,
    'x-error': 'if_version must be a whole number >= 0 (the version the change was made against; 0: no document yet), got {got}',
  });

export const StateInput = Type.Object(
  {
    document: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'Replaces the document whole',
      'x-error': 'document is required, a JSON object, got {got}',
    }),
    if_version: Type.Optional(IfVersion('Applies only if the kept version is this one (0: no document yet), else 409 naming the kept one')),
  },
  { $id: 'StateInput', additionalProperties: false, 'x-error': { required: 'document is required, a JSON object, got nothing' } },
);

export const StateDeleted = Type.Object(
  {
    deleted: Type.Unsafe<true>({ type: 'boolean', enum: [true] }),
    scope: PlainName(),
    kind: PlainName(),
    key: Type.String(),
    version: Type.Integer({ description: 'The version removed' }),
  },
  { $id: 'StateDeleted' },
);

/** The hook fields a declared state's templates fill (STATE_TEMPLATE_NAMES of @hookyard/core). */
const STATE_TEMPLATE_NAMES = ['key_expr', 'condition', 'start_expr', 'cancel_expr', 'resume_expr', 'extras_expr'] as const;
const JqFieldLoose = Type.Unsafe<unknown>({ description: 'A jq field (JqField): inline {content}, or a stored template {id, kwargs?}' });
const Templates = Type.Partial(
  Type.Object(Object.fromEntries(STATE_TEMPLATE_NAMES.map((n) => [n, JqFieldLoose])) as Record<(typeof STATE_TEMPLATE_NAMES)[number], typeof JqFieldLoose>),
  {
    additionalProperties: false,
    description:
      "Named jq fields a binding attaches to its hook (subject.templates): key_expr fills subject.key_expr, the others the hook's field of that name",
  },
);
const Binding = Type.Object(
  {
    hook: PlainName(),
    attach: Nullable(Type.String({ description: 'Its attach path; null: a subject without attach (the whole document, shared)' })),
  },
  { additionalProperties: false },
);

export const StateDeclaration = Type.Object(
  {
    scope: PlainName(),
    kind: PlainName(),
    schema: JsonObject('JSON Schema (draft 2020-12) every write of this state must satisfy; {} is open'),
    description: Type.String(),
    templates: Templates,
    version: Type.Integer({ minimum: 1 }),
    created_at: isoTime(),
    updated_at: isoTime(),
    bound_by: Type.Optional(Type.Array(Binding, { description: 'GET of one declaration only: the hooks that bind it' })),
  },
  { $id: 'StateDeclaration', additionalProperties: false },
);

export const StateDeclarationInput = Type.Object(
  {
    schema: JsonObject('Compiled by ajv as draft 2020-12 when declared: one that does not compile is 400 quoting ajv'),
    description: Type.String({ maxLength: 2000 }),
    templates: Type.Optional(Templates),
    // Server-owned: echoed by GET, ignored on input.
    ...Object.fromEntries(
      ['scope', 'kind', 'version', 'created_at', 'updated_at', 'bound_by'].map((k) => [
        k,
        Type.Optional(Type.Unknown({ description: 'Ignored (server-owned)' })),
      ]),
    ),
  },
  {
    $id: 'StateDeclarationInput',
    additionalProperties: false,
    description: 'Server-owned fields (scope, kind, version, times, bound_by) are ignored, so a GET-edit-PUT round trip works',
  },
);

/** A topic with events that came in while no hook was registered on it. */
export const UnroutedTopic = Type.Object(
  {
    topic: Type.String(),
    kept: Type.Integer({ minimum: 0, description: 'Events kept now (at most HOOKS_UNROUTED_KEEP, the newest)' }),
    received: Type.Integer({ minimum: 0, description: 'Events received since first_seen, kept or not' }),
    first_seen: isoTime(),
    last_seen: isoTime(),
    sample: Type.Unknown({ description: "The newest event's payload; past 2048 bytes of JSON, its start as a string (sample_truncated)" }),
    sample_truncated: Type.Boolean(),
  },
  { $id: 'UnroutedTopic' },
);

export const UnroutedEvent = Type.Object(
  {
    id: Type.String(),
    topic: Type.String(),
    payload: Type.Unknown({ description: 'The event as the door parsed it; with payload_truncated, the start of its JSON text as a string' }),
    payload_truncated: Type.Boolean({
      description: 'The event was larger than HOOKS_UNROUTED_EVENT_MAX_BYTES: only the start of its payload was kept, and a replay skips it',
    }),
    door: Enum(['http', 'nats'] as const),
    verified: Type.Boolean({ description: 'A verifier binding checked it as it came in' }),
    delivery_id: Nullable(Type.String()),
    received_at: isoTime(),
  },
  { $id: 'UnroutedEvent' },
);

/** ALLOWLIST_ENTRY_PATTERN of @hookyard/core. */
const ALLOW_ENTRY = '^(\\*|!?[A-Za-z0-9_][A-Za-z0-9_.:/-]*)$';
const AllowEntry = Type.String({ pattern: ALLOW_ENTRY });

export const AgentIdentity = Type.Object(
  {
    issuer: Type.String({ format: 'uri' }),
    subject: Type.Optional(Type.String({ minLength: 1 })),
    client_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
const Identities = Type.Array(AgentIdentity, {
  maxItems: 20,
  description:
    "IdP identities that act as this agent with an OAuth access token for the agent door (HOOKS_OIDC_ISSUER): the token's issuer, and its `sub` (subject) and/or its `client_id`/`azp` (client_id); at least one of the two",
});

/** What an agent did lately, from the per-minute run counters (its calls are runs of hook `agent:<name>`). */
export const AgentUsage = Type.Object(
  {
    last_used_at: Nullable(isoTime('When its newest call still kept was accepted (runs are kept HOOKS_RETENTION); null: none')),
    since: isoTime('The start of the window the counts cover: the last 24 hours, whole minutes'),
    calls: Type.Integer({ minimum: 0, description: 'Calls accepted (a repeat answered from its idempotency key is not a new call)' }),
    denied: Type.Integer({ minimum: 0, description: 'Calls that ended denied: by a rule, an approver, an expiry or a revoke' }),
    approvals: Type.Integer({ minimum: 0, description: 'Approvals its calls asked for' }),
    failed: Type.Integer({ minimum: 0, description: 'Calls that ended failed' }),
  },
  {
    $id: 'AgentUsage',
    additionalProperties: false,
    description: "The list and GET of one agent only. Counted by name: an agent made again under a revoked name counts the old one's calls of the window too",
  },
);

/** An agent principal: never its token. */
export const Agent = Type.Object(
  {
    id: Type.String({
      description:
        "Made when the agent is made and never changed: its calls, idempotency keys, tasks and sessions belong to it, so an agent made again under a revoked one's name inherits none of them. An agent made before ids existed has its name as id",
    }),
    name: PlainName(),
    description: Nullable(Type.String()),
    tools_allow: Type.Array(AllowEntry, {
      minItems: 1,
      description: "The agent's own allowlist (`*`, exact names, `!name`): what it may list and call is HOOKS_TOOLS_ALLOW ∩ this ∩ a caller's runtime list",
    }),
    token_id: Type.String({ pattern: '^[0-9a-f]{8}$', description: "The first 8 hex chars of the token's SHA-256: tells tokens apart without showing one" }),
    created_at: isoTime(),
    updated_at: isoTime('Changes when the token is rotated or the agent is updated'),
    identities: Type.Optional(Identities),
    usage: Type.Optional(AgentUsage),
  },
  {
    $id: 'Agent',
    additionalProperties: false,
    description: 'An agent principal: never its token (shown once, when made or rotated; kept only as its SHA-256)',
  },
);

export const AgentInput = Type.Object(
  {
    name: PlainName(),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    tools_allow: Type.Array(AllowEntry, { minItems: 1, maxItems: 200 }),
    identities: Type.Optional(Identities),
  },
  { $id: 'AgentInput', additionalProperties: false },
);

export const AgentChangeInput = Type.Object(
  {
    description: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'Replaces the description; null clears it' }))),
    tools_allow: Type.Optional(
      Type.Array(AllowEntry, { minItems: 1, maxItems: 200, description: "Replaces the agent's allowlist whole (same grammar as on create)" }),
    ),
  },
  {
    $id: 'AgentChangeInput',
    additionalProperties: false,
    description: 'The fields to change, at least one; a field left out is kept. The name, id, token and identities never change here',
  },
);

export const AgentWithToken = Type.Object(
  {
    agent: Agent,
    token: Type.String({
      pattern: '^hya_[A-Za-z0-9_-]{43}$',
      description: '`hya_` and 256 random bits, base64url: shown in this answer only. It reaches only the agent door, never the management API',
    }),
  },
  { $id: 'AgentWithToken' },
);
