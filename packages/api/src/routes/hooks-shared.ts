import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EXPRESSIONS, POLICY_WHEN } from '../expressions';
import { ERROR_KIND_VALUES } from '../values';

/*
 * The hook and topic-config shapes, named ($id) as the document's components.
 * The constants mirror @hookyard/core (this package takes no runtime
 * dependency on it); services/ingress/test/api-hooks-declared.test.ts holds
 * them equal.
 */

/** Hook, topic and tool names (core's NAME_PATTERN_SOURCE and NAME_MAX_LENGTH). */
export const NAME_PATTERN = '^[a-z0-9][a-z0-9_-]*$';
export const NAME_MAX = 128;
/** core's JQ_FIELDS, STATE_TEMPLATE_NAMES and the approval enums. */
export const HOOK_JQ_FIELDS = ['condition', 'start_expr', 'cancel_expr', 'resume_expr', 'extras_expr'] as const;
export const SUBJECT_TEMPLATES = ['key_expr', ...HOOK_JQ_FIELDS] as const;
export const RULE_ACTIONS = ['allow', 'approve', 'deny'] as const;
export const RULE_TIMEOUT_ACTIONS = ['deny', 'allow'] as const;
export const RULE_APPROVERS = ['caller'] as const;
export const RULE_TIMEOUT_DEFAULT = 3600;
/** core's ERROR_KINDS. */
export const ERROR_KIND_NAMES = ERROR_KIND_VALUES;

/** An OpenAPI 3.0 enum of strings (no `const`/`anyOf` of literals, which 3.0 lacks). */
export const Enum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
/** OpenAPI 3.0's `nullable` (TypeBox's Union with Null emits `anyOf`, which 3.0 readers take badly). */
export const Nullable = <S extends TSchema>(schema: S) => {
  // A named schema is copied without its name (keeping it would make the component itself nullable; a $ref beside
  // `nullable` is ignored by 3.0 readers and an allOf of it refuses null).
  const { $id: _named, ...rest } = schema;
  // An enum lists null too (OpenAPI 3.0.3: `nullable` does not widen an enum).
  const widened = Array.isArray(rest.enum) ? { enum: [...(rest.enum as unknown[]), null] } : {};
  return Type.Unsafe<Static<S> | null>({ ...rest, ...widened, nullable: true });
};
/** An ISO 8601 time as the stores write it. */
export const IsoTime = (options: Record<string, unknown> = {}) => Type.String({ format: 'date-time', ...options });
/** Any JSON object. */
export const AnyObject = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, ...options });

export const Name = Type.String({
  pattern: NAME_PATTERN,
  maxLength: NAME_MAX,
  description: 'Hook, topic and tool names: never sanitized; a violation is a 400 naming the field and the pattern',
  $id: 'Name',
});

const JqInline = Type.Object({ content: Type.String() }, { additionalProperties: false });
const JqStored = Type.Object({ id: Type.String(), kwargs: Type.Optional(AnyObject()) }, { additionalProperties: false });
export const JqField = Type.Unsafe<Static<typeof JqInline> | Static<typeof JqStored>>({
  $id: 'JqField',
  description: 'A jq expression: inline, or a stored template with its $kwargs',
  oneOf: [JqInline, JqStored],
});
/** A jq field of a hook, annotated with what it reads and what its result is consumed as. */
const expr = (field: string) => Type.Unsafe<Static<typeof JqField>>({ allOf: [JqField], 'x-tai42-expression': EXPRESSIONS[field] });

export const ApprovalRule = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,127}$',
        description: 'Named in decisions and history lines; default `deployment rule <n>` / `hook rule <n>`',
      }),
    ),
    tools: Type.Array(Type.String(), { minItems: 1, description: 'Tools the rule covers (allowlist grammar: `*`, names, `!name`)' }),
    agents: Type.Optional(
      Type.Array(Type.String(), {
        minItems: 1,
        description:
          "Agents whose calls the rule covers (allowlist grammar over agent names); absent: every call. A rule with agents never matches a hook's run",
      }),
    ),
    when: Type.Optional(
      Type.String({ description: 'jq; the rule matches when its first output is neither false nor null', 'x-tai42-expression': POLICY_WHEN }),
    ),
    action: Enum(RULE_ACTIONS),
    message: Type.Optional(
      Type.String({
        maxLength: 1000,
        description:
          "deny: the sentence the run's result carries (default: ask for clarification or try a less destructive approach); approve: shown to the approver",
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2592000,
        default: RULE_TIMEOUT_DEFAULT,
        description: 'approve only: how long the approval stays open (absent: HOOKS_APPROVAL_TIMEOUT_SECONDS, default 3600)',
      }),
    ),
    on_timeout: Type.Optional(Enum(RULE_TIMEOUT_ACTIONS, { default: 'deny', description: 'approve only: what expiry does' })),
    answer_hooks: Type.Optional(Type.Array(Name, { description: 'approve only: hooks whose resume_expr may answer (their topic needs a verifier binding)' })),
    approver: Type.Optional(
      Enum(RULE_APPROVERS, {
        description:
          "approve only: caller lets the agent's own user (the person at the MCP client) answer through MCP elicitation (form mode), besides operators, signed links and answer hooks; no effect on a hook's run (it has no caller)",
      }),
    ),
  },
  { $id: 'ApprovalRule', additionalProperties: false, description: 'First matching rule wins; no match allows; a `when` that fails denies (fail closed)' },
);

const HookSubject = Type.Object(
  {
    scope: Type.String(),
    kind: Type.String(),
    key_expr: Type.Optional(Type.Unsafe<Static<typeof JqField>>({ allOf: [JqField], 'x-tai42-expression': EXPRESSIONS['subject.key_expr'] })),
    attach: Type.Optional(
      Type.String({
        description:
          'The part of the document this hook writes (a JSON pointer, "" for all of it), held against every other binding. ' +
          'Absent: the whole document, shared with other hooks without attach (the state must still be declared)',
      }),
    ),
    templates: Type.Optional(
      Type.Array(Enum(SUBJECT_TEMPLATES), {
        description: "The declaration's templates to attach: key_expr fills subject.key_expr, the others the hook's field of that name",
      }),
    ),
    declaration_version: Type.Optional(Type.Integer({ description: 'Ignored on input: the declaration version the attached templates came from' })),
  },
  {
    additionalProperties: false,
    description:
      'Binds a declared state (GET /api/states/declarations). key_expr is required unless templates names the declared key_expr. ' +
      'Checked at registration: an undeclared state is 404, an attach path another binding overlaps 409, a states-store failure 500; none stores the hook',
  },
);

const hookFields = {
  name: Name,
  topic: Name,
  tool: Type.String({ description: 'A registered tool (GET /api/tools)' }),
  tool_kwargs: AnyObject({ description: "Static arguments, validated against the tool's JSON Schema" }),
  condition: Type.Optional(expr('condition')),
  start_expr: Type.Optional(expr('start_expr')),
  cancel_expr: Type.Optional(expr('cancel_expr')),
  resume_expr: Type.Optional(expr('resume_expr')),
  extras_expr: Type.Optional(expr('extras_expr')),
  subject: Type.Optional(HookSubject),
  approval: Type.Optional(
    Type.Array(ApprovalRule, {
      description: "The hook's own approval rules: they can only make a call stricter than the deployment policy (allow -> approve/deny, approve -> deny)",
    }),
  ),
  tools_allow: Type.Optional(Type.Array(Type.String(), { description: 'Allowlist (`*`, names, `!name`), intersected with HOOKS_TOOLS_ALLOW' })),
  description: Type.Optional(Type.String()),
  created_at: IsoTime({ description: 'Ignored on input (echoed by GET)' }),
  updated_at: IsoTime({ description: 'Ignored on input (echoed by GET)' }),
};

/** A hook registration (POST /api/hooks; GET /api/hooks/schema serves it standalone). */
export const HookInput = Type.Object(
  {
    ...hookFields,
    tool_kwargs: Type.Optional(hookFields.tool_kwargs),
    created_at: Type.Optional(hookFields.created_at),
    updated_at: Type.Optional(hookFields.updated_at),
  },
  { $id: 'HookInput', additionalProperties: false },
);

/** A hook as kept and answered. */
export const Hook = Type.Object(hookFields, { $id: 'Hook', additionalProperties: false });

const NATS_TRUST = {
  description:
    'trusted: the NATS door keeps messages on this topic (who may publish is up to NATS permissions; such runs are not verified). Absent: the NATS door refuses them',
};
export const VERIFIER_KINDS = ['shared_secret', 'hmac', 'github', 'stripe', 'slack', 'standard-webhooks'] as const;

/** A secret reference as a binding keeps it: `env:` and a variable name, or `file:` and an absolute path (core's secretRefFormViolation). */
const SecretRef = (description?: string) =>
  Type.String({ pattern: '^(?:env:[A-Za-z_][A-Za-z0-9_]{0,127}|file:/.{0,4095})$', ...(description ? { description } : {}) });

export const VerifierInput = Type.Object(
  {
    kind: Enum(VERIFIER_KINDS),
    secret: Type.Optional(SecretRef('One secret reference: env:NAME or file:/path (never a literal secret)')),
    secrets: Type.Optional(
      Type.Array(SecretRef(), { minItems: 1, maxItems: 5, uniqueItems: true, description: 'Several references (1 to 5, each once), during rotation' }),
    ),
    settings: Type.Optional(AnyObject({ description: 'Kind-specific: header names, algorithm, encoding, prefix, tolerance_seconds, …' })),
    nats: Type.Optional(Enum(['trusted'] as const, NATS_TRUST)),
    topic: Type.Optional(Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Optional; must equal the path topic' })),
  },
  {
    $id: 'VerifierInput',
    additionalProperties: false,
    description: 'secret or secrets, not both (the handler checks this with the kind-specific settings)',
  },
);

/** A topic's verifier binding as kept (secret references only). */
export const VerifierBinding = Type.Object(
  {
    topic: Name,
    kind: Enum(VERIFIER_KINDS),
    settings: AnyObject(),
    secrets: Type.Array(Type.String(), { description: 'References only' }),
    nats: Type.Optional(Enum(['trusted'] as const, NATS_TRUST)),
    created_at: IsoTime(),
    updated_at: IsoTime(),
  },
  { $id: 'Verifier' },
);

export const DedupeInput = Type.Object(
  {
    expr: Type.String({
      pattern: '\\S',
      maxLength: 4096,
      description: 'jq over {headers, query, body}, e.g. .headers["x-event-id"] or .body.id; compiled when written',
    }),
    horizon_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 604800, default: 86400, description: 'How long a key value stays claimed' })),
    topic: Type.Optional(Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Optional; must equal the path topic' })),
  },
  { $id: 'DedupeInput', additionalProperties: false },
);

/** A topic's dedupe key as kept. */
export const Dedupe = Type.Object(
  { topic: Name, expr: Type.String(), horizon_seconds: Type.Integer(), created_at: IsoTime(), updated_at: IsoTime() },
  { $id: 'Dedupe' },
);

/** A trigger link as kept and listed: never its token. */
export const TriggerLink = Type.Object(
  {
    id: Type.String({ pattern: '^tl_[a-z2-7]{20}$' }),
    hook: Name,
    label: Type.String(),
    created_at: IsoTime(),
    created_by: Type.String({ description: 'The operator token that made it: `<role>:<first 8 hex of its SHA-256>`' }),
    expires_at: Nullable(IsoTime({ description: 'Past this time the link is refused; null: never' })),
    uses: Type.Integer({ minimum: 0, description: 'How many runs it kept' }),
    last_used_at: Nullable(IsoTime({ description: 'When a request last took a use of it (the run it kept, or one given back); null: never fired' })),
    max_uses: Nullable(Type.Integer({ minimum: 1, description: 'At this many uses it is refused; null: no limit' })),
    revoked: Type.Boolean(),
  },
  {
    $id: 'TriggerLink',
    additionalProperties: false,
    description: 'A trigger link as kept and listed: never its token (shown once, when made; kept only as its SHA-256)',
  },
);

/** The refusal of a step of a run or a call: its kind and message. */
export const ErrorInfo = Type.Object({ kind: Enum(ERROR_KIND_NAMES), message: Type.String() }, { $id: 'ErrorInfo' });

/** What the approval policy decided for a call. */
export const ApprovalDecision = Type.Object(
  {
    action: Enum(RULE_ACTIONS),
    rule: Nullable(Type.String({ description: 'The rule that decided; null when none matched' })),
    source: Nullable(Enum(['deployment', 'hook'] as const)),
    policy_version: Type.Integer(),
    message: Type.String(),
    timeout_seconds: Type.Optional(Type.Integer()),
    on_timeout: Type.Optional(Enum(RULE_TIMEOUT_ACTIONS)),
    answer_hooks: Type.Optional(Type.Array(Type.String())),
    approver: Type.Optional(Enum(RULE_APPROVERS)),
    error: Type.Optional(ErrorInfo),
  },
  { $id: 'ApprovalDecision' },
);
