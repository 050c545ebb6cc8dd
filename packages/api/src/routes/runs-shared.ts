import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ERROR_KIND_VALUES } from '../values';

// Kept here rather than imported from @hookyard/core: this package holds schemas only (the console bundles none of core).
export const RUN_STATUS_VALUES = ['pending', 'running', 'retry_wait', 'parked', 'succeeded', 'skipped', 'denied', 'cancelled', 'failed', 'discarded'] as const;
export { ERROR_KIND_VALUES };
export const DOOR_VALUES = ['http', 'nats', 'api', 'platform', 'agent', 'trigger'] as const;
export const RUN_EVENT_VALUES = ['accepted', 'started', 'parked', 'retry_scheduled', 'finished', 'retried', 'discarded', 'woken'] as const;
export const NAME_PATTERN = '^[a-z0-9][a-z0-9_-]*$';

/** OpenAPI 3.0 has no `null` type: `nullable: true` (ajv reads it too; an enum lists null as well, or it refuses it). */
export const Nullable = <S extends TSchema>(s: S) =>
  Type.Unsafe<Static<S> | null>({ ...s, nullable: true, ...(Array.isArray(s.enum) ? { enum: [...(s.enum as unknown[]), null] } : {}) });
/** A string out of a fixed list (OpenAPI 3.0 has no `const`; TypeBox unions of literals would emit it). */
export const OneOf = <const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
/** A JSON object of strings (OpenAPI 3.0 has no patternProperties, which TypeBox's Record emits). */
export const StringMap = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, ...options });
/** Any JSON object. */
export const JsonObject = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, ...options });
/** An ISO 8601 date or date-time as a filter takes it (a time without a zone is UTC). */
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(?:[Tt ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:[Zz]|[+-]\\d{2}:?\\d{2})?)?$';
/** A query's ISO 8601 filter `key`, refused with a line naming it and quoting what it got. */
export const Instant = (description: string) =>
  Type.String({
    pattern: INSTANT_PATTERN,
    description,
    'x-error': { type: '{path} must be a string, got {got}', '*': '{path} must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got {got}' },
  });
/** A query's whole number from 1 to max (its line quotes what it got). */
export const WholeNumber = (max: number, def: number, description?: string) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: def,
    ...(description ? { description } : {}),
    'x-error': { '*': `{path} must be a whole number from 1 to ${max}, got {got}` },
  });
export const IsoTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

const HttpReply = Type.Object(
  {
    status: Type.Integer(),
    headers: StringMap({
      description:
        'Reply headers by lower-case name (at most 24, values cut at 256 chars); authorization, cookies and token-, key- or secret-like names read [redacted]',
    }),
    body: Type.String({ description: 'The start of the reply body (at most 2 KiB of UTF-8)' }),
    body_bytes: Type.Integer({ description: 'The whole body size in bytes' }),
    body_truncated: Type.Boolean(),
  },
  {
    description:
      "On the line that ended an HTTP-based tool's attempt (succeeded, failed, retry_scheduled): the reply of its call (the last one under the tool's retry policy)",
  },
);

/** One line of a run's history: an attempt's step. */
export const Attempt = Type.Object(
  {
    at: IsoTime(),
    attempt: Type.Integer(),
    event: Type.String(),
    detail: Type.Optional(Type.String()),
    http: Type.Optional(HttpReply),
    trace_id: Type.Optional(Type.String({ description: "The run's trace id (from traceparent), on every entry of a traced run" })),
  },
  { $id: 'Attempt' },
);

export const Run = Type.Object(
  {
    id: Type.String(),
    event_id: Type.Optional(Type.String({ description: 'The first 24 chars of id, shared by every run of one delivery (GET /api/deliveries/{event_id})' })),
    hook: Type.String({ description: "The run's hook (an agent's calls: agent:<name>)" }),
    topic: Type.String(),
    status: OneOf(RUN_STATUS_VALUES),
    payload: Type.Unknown({ description: 'The event as kept' }),
    headers: Type.Optional(
      Nullable(
        StringMap({
          description:
            'The request headers its delivery came with, as the door kept them (the allowlisted, secret-free names of the Delivery schema; every run of one delivery keeps the same); null when none were kept (kept before the doors kept headers, or a replay, platform event or agent call)',
        }),
      ),
    ),
    attempts: Count(),
    acted: OneOf(['', 'cancel', 'resume', 'take', 'start'] as const),
    acted_ids: Type.Optional(Type.Array(Type.String())),
    claim_intent: Type.Optional(Type.String()),
    error: Nullable(
      Type.Object({
        kind: OneOf(ERROR_KIND_VALUES),
        message: Type.String(),
        retryable: Type.Boolean({
          description:
            'Whether a later attempt can get past an error of this kind (unavailable, timeout, internal); the others no retry changes. ' +
            'False for outcome_unknown: the tool may have acted, and an operator checks and resolves the run (POST /api/hook-runs/{id}/resolve)',
        }),
      }),
    ),
    result: Type.Optional(Type.Unknown({ description: 'The tool result (bounded; truncated with a marker past 64 KiB)' })),
    input: Type.Optional(Nullable(JsonObject({ description: 'The arguments the tool was started with' }))),
    lease: Type.Optional(Nullable(Type.Object({ owner: Type.String(), until: IsoTime(), token: Type.Integer() }))),
    due_at: Type.Optional(Nullable(IsoTime())),
    delivery_id: Type.Optional(Nullable(Type.String())),
    agent: Type.Optional(Nullable(Type.String({ description: 'door agent: the agent whose call this is (hook is agent:<name>); else null' }))),
    door: OneOf(DOOR_VALUES, {
      description:
        'The door its event came through: http (the webhook door), nats (an ingest subject), api (a replay), platform (hooks_run_failed, hooks_approval_requested), trigger (a trigger link, never verified), agent (a tool call of an agent: hook is agent:<name>, topic tools/call, the payload is the call). A run kept before doors were recorded reads http',
    }),
    verified: Type.Boolean({
      description:
        "True only when a verifier binding checked the event at the HTTP door as it was kept; never for nats, api (a replay does not copy its source's) or platform. Only a verified run of a hook in answer_hooks may answer an approval",
    }),
    resumable: Type.Optional(Type.Boolean()),
    interaction: Type.Optional(Nullable(Type.String({ description: 'The latest interaction the run parked on (kept after it is resolved)' }))),
    parked_on: Type.Optional(Type.Array(Type.String(), { description: 'The open interactions a parked run waits on; empty otherwise' })),
    replay_of: Type.Optional(Nullable(Type.String({ description: 'The run whose event this run replays (POST /api/hook-runs/{id}/replay); null otherwise' }))),
    trigger_link: Type.Optional(
      Nullable(Type.String({ description: 'The trigger link whose use kept this run (door trigger: POST /trigger/{token}); null otherwise' })),
    ),
    traceparent: Type.Optional(
      Nullable(
        Type.String({ description: "The W3C traceparent every span of this run continues (the door's request span, when tracing is on); null otherwise" }),
      ),
    ),
    created_at: IsoTime(),
    updated_at: IsoTime(),
    started_at: Type.Optional(Nullable(IsoTime())),
    finished_at: Type.Optional(Nullable(IsoTime())),
    history: Type.Array(Attempt),
  },
  { $id: 'Run', description: 'A kept run: every field, payload included' },
);

/**
 * What one run event says: the SSE `data` of GET /api/events and the NATS
 * `hooks.events.run.<status>.<hook>` message (its one schema: @hookyard/core
 * validates the message with it and docs/asyncapi.yaml carries it).
 */
export const RunEvent = Type.Object(
  {
    run_id: Type.String({ minLength: 1 }),
    event: OneOf(RUN_EVENT_VALUES, {
      description:
        "What happened: accepted (kept by a door, a platform event or an operator's replay), started (claimed by an executor), parked (waiting on an interaction), " +
        'retry_scheduled (an attempt failed before the hook acted, or its lease lapsed; due_at says when the next is due), finished (an outcome: succeeded, skipped, denied, cancelled or failed), ' +
        'retried (an operator retried it), discarded (an operator discarded it), woken (its interaction was answered, resumed by a hook or expired: it is due again)',
    }),
    at: IsoTime('When it happened'),
    hook: Type.String({ pattern: NAME_PATTERN, maxLength: 128 }),
    topic: Type.String({ pattern: NAME_PATTERN, maxLength: 128 }),
    status: OneOf(RUN_STATUS_VALUES, { description: 'The status the run is in after the event' }),
    attempts: Count(),
    error_kind: Nullable(OneOf(ERROR_KIND_VALUES)),
    error_message: Nullable(Type.String()),
    created_at: IsoTime(),
    finished_at: Nullable(IsoTime()),
    due_at: Nullable(IsoTime('When the next attempt is due (retry_scheduled), else null')),
    duration_ms: Nullable(Type.Number({ minimum: 0, description: 'From the start of the last attempt (or creation) to the finish' })),
  },
  { $id: 'RunEvent', title: 'RunSummary', additionalProperties: false },
);
/** One run event's data, as the stream and NATS carry it. */
export type RunEventData = Static<typeof RunEvent>;

export const ScanReport = Type.Object(
  {
    scanned: Count('Runs read and evaluated'),
    matched: Count('Runs the expression matched (the runs answered)'),
    cut: Type.Boolean(),
    errors: Count('Runs on which the expression raised a jq error (they do not match)'),
    first_error: Type.Optional(Type.Object({ run: Type.String(), message: Type.String() })),
  },
  { description: 'With `where` only: how far this request read. cut: the window (scan runs, or 3 s) ended with runs left unread; continue with next_cursor' },
);

export const RunPage = Type.Object(
  {
    runs: Type.Array(Run),
    next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last' })),
    scan: Type.Optional(ScanReport),
  },
  { $id: 'RunPage' },
);

/** The filter fields of a bulk call: the query parameters of GET /api/hook-runs, as strings. */
/** A string field's line when it is not one (a filter in a body; a query's values are all strings). */
const NOT_A_STRING = '{path} must be a string, got {got}';
/** A name filter: its lines name the field and quote what it got. */
export const NameFilter = (description?: string) =>
  Type.String({
    pattern: NAME_PATTERN,
    maxLength: 128,
    ...(description ? { description } : {}),
    'x-error': { type: NOT_A_STRING, '*': `{path} must match ${NAME_PATTERN}, got {got}` },
  });
export const StatusFilter = (values: readonly string[] = RUN_STATUS_VALUES, line = `{path} must be one of ${RUN_STATUS_VALUES.join('|')}, got {got}`) =>
  Type.Unsafe<(typeof RUN_STATUS_VALUES)[number]>({ type: 'string', enum: [...values], 'x-error': { type: NOT_A_STRING, '*': line } });

/** The fields a run filter takes (the query of GET /api/hook-runs, the filter of a bulk retry or discard), but the status. */
export const RUN_FILTER_FIELDS = {
  hook: Type.Optional(NameFilter()),
  agent: Type.Optional(NameFilter("an agent's calls (door agent); not with hook")),
  topic: Type.Optional(NameFilter()),
  delivery_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: "The sender's delivery id (checked on each run: pages may be short; follow next_cursor)",
      'x-error': { type: NOT_A_STRING, '*': '{path} must be 1 to 512 characters, got {got}' },
    }),
  ),
  since: Type.Optional(Instant('ISO 8601: runs created at or after')),
  until: Type.Optional(Instant('ISO 8601: runs created at or before')),
  kind: Type.Optional(
    OneOf(ERROR_KIND_VALUES, {
      description: "The run's error kind (checked on each run: pages may be short)",
      'x-error': { type: NOT_A_STRING, '*': `{path} must be an error kind, one of ${ERROR_KIND_VALUES.join('|')}, got {got}` },
    }),
  ),
  fingerprint: Type.Optional(
    Type.String({
      pattern: '^[0-9a-f]{16}$',
      description:
        "The fingerprint of the run's error message, a failure group's: with status failed, hook (or agent) and kind, exactly one failure group (GET /api/hook-runs/failures; checked on each run)",
      'x-error': { type: NOT_A_STRING, '*': "{path} must be 16 lowercase hex characters (a failure group's fingerprint), got {got}" },
    }),
  ),
};
const FILTER_KEYS = ['status', ...Object.keys(RUN_FILTER_FIELDS)].join(', ');
/** A filter's hook and agent exclude each other (an agent's calls are no hook's runs): the rule for its object (`not`), and its line. */
export const HOOK_OR_AGENT = { not: { properties: { hook: {}, agent: {} }, required: ['hook', 'agent'] } };
export const HOOK_OR_AGENT_LINE = 'give hook or agent, not both: an agent call is not a hook run';

/** A bulk call's filter: runs matching every field given, its status as the verb allows. */
const bulkFilter = <S extends TSchema>(id: string, status: S, description: string, required: Record<string, string> = {}) =>
  Type.Object(
    { ...RUN_FILTER_FIELDS, status },
    {
      $id: id,
      additionalProperties: false,
      description,
      ...HOOK_OR_AGENT,
      'x-error': {
        not: HOOK_OR_AGENT_LINE,
        type: `{path} must be an object of ${FILTER_KEYS}, got {got}`,
        additionalProperties: `unknown filter field '{field}' (known: ${FILTER_KEYS})`,
        ...required,
      },
    },
  );

/** A bulk retry's filter: only a failed run can be retried. */
export const RetryFilter = bulkFilter(
  'RetryFilter',
  Type.Optional(StatusFilter(['failed'], '{path} must be failed for a retry (only a failed run can be retried), got {got}')),
  'Runs matching every field given (the query parameters of GET /api/hook-runs); status, when given, must be failed',
);

const DISCARDABLE = RUN_STATUS_VALUES.filter((s) => s !== 'running' && s !== 'discarded');
/** A bulk discard's filter: a status is required (never every run), and not running or discarded. */
export const DiscardFilter = bulkFilter(
  'DiscardFilter',
  StatusFilter(
    DISCARDABLE,
    `{path} must be one of ${DISCARDABLE.join('|')} for a discard (a running run cannot be discarded; a discarded one is already), got {got}`,
  ),
  'Runs matching every field given (the query parameters of GET /api/hook-runs); status is required, not running or discarded',
  { required: 'filter.status is required for a bulk discard (e.g. "failed"), so no call discards every run' },
);

const bulkRequest = <F extends TSchema>(id: string, filter: F) =>
  Type.Object(
    {
      filter,
      dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Count only; change nothing', 'x-error': '{path} must be true or false, got {got}' })),
    },
    { $id: id, additionalProperties: false },
  );
export const RetryRequest = bulkRequest('RetryRequest', RetryFilter);
export const DiscardRequest = bulkRequest('DiscardRequest', DiscardFilter);

/** What a bulk retry or discard answers (`retried` or `discarded` by verb). */
export const BulkAnswer = Type.Object(
  {
    dry_run: Type.Boolean(),
    matched: Count('Runs the filter matched (at most 10000 per call)'),
    retried: Type.Optional(Count('Runs retried (bulk retry; 0 on a dry run)')),
    discarded: Type.Optional(Count('Runs discarded (bulk discard; 0 on a dry run)')),
    refused: Count('Runs the store refused (moved on since listed, or committed a resume/take)'),
    refusals: Type.Array(Type.Object({ id: Type.String(), message: Type.String() }), { description: 'The first 20 refusals' }),
    truncated: Type.Boolean({ description: 'More runs matched than one call acts on: call again' }),
    tool_called_again: Type.Optional(
      Count(
        'Bulk retry only (a dry run too): of the matched runs, those whose tool had already started; the retry calls it again, each with its run id as the idempotency key',
      ),
    ),
  },
  { $id: 'BulkAnswer' },
);
