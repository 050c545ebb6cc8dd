import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import {
  Count,
  DOOR_VALUES,
  StringMap,
  Instant,
  IsoTime,
  NAME_PATTERN,
  Nullable,
  OneOf,
  RUN_EVENT_VALUES,
  RUN_STATUS_VALUES,
  RunEvent,
  WholeNumber,
} from './runs-shared';

/** Keep in step with core's KEPT_HEADERS (the wire names a door keeps). */
const HEADERS_NOTE =
  'The request headers kept with it (every run of the delivery keeps the same): only allowlisted, secret-free names, bounded in number and length; never authorization, cookies, signatures, tokens or keys, even when sent. Kept by the http, nats and trigger doors (an empty object when none of the names came); null for a delivery kept before the doors kept headers or through a door that has none (api: a replay, platform, agent)';

export const Delivery = Type.Object(
  {
    event_id: Type.String({ description: "The first 24 chars of each of its runs' ids (the door's event_id)" }),
    delivery_id: Nullable(Type.String({ description: "The sender's delivery id or the topic's dedupe key; null when neither" })),
    door: OneOf(DOOR_VALUES),
    verified: Type.Boolean({ description: 'A verifier binding checked it at the HTTP door' }),
    topic: Type.String({ pattern: NAME_PATTERN }),
    received_at: IsoTime(),
    headers: Nullable(StringMap({ description: HEADERS_NOTE })),
    payload: Type.Unknown({ description: 'The event as kept' }),
    runs: Type.Array(
      Type.Object({
        id: Type.String(),
        hook: Type.String(),
        status: OneOf(RUN_STATUS_VALUES),
        attempts: Count(),
        error: Nullable(Type.Object({ kind: Type.String(), message: Type.String() })),
        acted: Type.String(),
        created_at: IsoTime(),
        updated_at: IsoTime(),
        finished_at: Nullable(IsoTime()),
      }),
    ),
  },
  { $id: 'Delivery', description: 'One delivery (event) as it came in and the runs it became, in the order kept' },
);

export const getDelivery = route({
  method: 'GET',
  path: '/deliveries/:event_id',
  role: 'reader',
  operationId: 'getDelivery',
  tag: 'runs',
  summary: 'One delivery and the runs it became',
  description:
    'Every run kept from one delivery (one per hook on its topic) shares the first 24 chars of its id: the event id. Read as one range of the run list, no scan. 404 once none of its runs is kept. headers: the allowlisted, secret-free request headers the door kept with its runs (see the Delivery schema); null when none were kept.',
  params: Type.Object({ event_id: Type.String({ pattern: '^[0-9a-z]{24}$', description: "An event id (a run's event_id; the door's answer names it)" }) }),
  paramsMiss: (p) => `no event ${JSON.stringify(p.event_id)}`,
  answers: { 200: answer('The delivery: door, verified, topic, received time, headers kept, payload and its runs with their statuses', Delivery) },
  errors: [404],
});

const Percentiles = Type.Object(
  { count: Count(), p50: Nullable(Type.Number()), p95: Nullable(Type.Number()), p99: Nullable(Type.Number()) },
  {
    $id: 'Percentiles',
    additionalProperties: false,
    description: 'Milliseconds; each the upper bound of the log2 bucket holding that rank (null without data)',
  },
);

export const StatsSeries = Type.Object(
  {
    window: OneOf(['1h', '24h'] as const),
    hook: Nullable(Type.String()),
    step_seconds: Type.Integer({ description: '60 for 1h, 900 for 24h' }),
    from: IsoTime(),
    to: IsoTime(),
    points: Type.Array(
      Type.Object(
        {
          at: IsoTime(),
          accepted: Count(),
          succeeded: Count(),
          failed: Count(),
          skipped: Count(),
          denied: Count(),
          accept_to_start_ms: Percentiles,
          tool_duration_ms: Percentiles,
        },
        { additionalProperties: false },
      ),
      { description: 'One per step, oldest first; the last holds the current minute' },
    ),
    hooks: Type.Array(Type.String(), { description: 'The hooks counted in the window' }),
    top_failing: Type.Array(Type.Object({ hook: Type.String(), failed: Count(), succeeded: Count(), accepted: Count() }, { additionalProperties: false }), {
      maxItems: 10,
      description: 'Hooks with failed runs in the window, most first',
    }),
    denied_by_agent: Type.Array(Type.Object({ agent: Type.String(), denied: Count(), accepted: Count() }, { additionalProperties: false }), {
      maxItems: 10,
      description: 'Agents with calls denied in the window (by a rule, an approver, an expiry or a revoke), most first',
    }),
  },
  { $id: 'StatsSeries', additionalProperties: false },
);

export const statsSeries = route({
  method: 'GET',
  path: '/stats/series',
  role: 'reader',
  operationId: 'statsSeries',
  tag: 'runs',
  summary:
    'Runs per minute by outcome, accept-to-start and tool duration percentiles, the top failing hooks and the agents denied most, over the last hour or day',
  description:
    'Read from the per-minute counters the run transitions keep in the store (no run is read): ' +
    'runs accepted, succeeded, failed, skipped and denied, and histograms of accept-to-start (first claim - accepted) and tool duration ' +
    "(finish - the last attempt's claim) in log2 buckets; a percentile is the upper bound of its bucket (2^i ms). " +
    'Minutes are kept 25 h; at most 100 hooks are counted one by one per minute (per partition on Redis), the totals count every run. ' +
    '400 naming an unknown parameter, a bad window or a malformed hook.',
  query: Type.Object(
    {
      window: Type.Optional(
        OneOf(['1h', '24h'] as const, {
          default: '1h',
          description: '1h: 60 points of 1 minute; 24h: 96 points of 15 minutes',
          // An object of lines: a window given twice is said as such.
          'x-error': { '*': 'window must be one of 1h, 24h, got {got}' },
        }),
      ),
      hook: Type.Optional(
        Type.String({
          description: 'One hook (or agent:<name>); absent: every hook',
          // A name of at most 128 characters, or agent:<such a name>.
          pattern: '^(?:agent:)?[a-z0-9][a-z0-9_-]{0,127}$',
          'x-error': { '*': 'hook must be a hook name (or agent:<name>), got {got}' },
        }),
      ),
    },
    { additionalProperties: false },
  ),
  knownInRefusal: true,
  refused: 'bad query for GET /api/stats/series',
  linesInMessage: true,
  answers: { 200: answer('The series', StatsSeries) },
  errors: [400],
});

export const runEvents = route({
  method: 'GET',
  path: '/events',
  role: 'reader',
  operationId: 'runEvents',
  tag: 'runs',
  summary: 'Run events as server-sent events',
  description:
    'Send the bearer header; a browser reads the stream through fetch. The source is NATS `<prefix>.events.run.>` ' +
    '(every ingress, executor and scheduler), or the one process of the embedded default; 503 when the ingress has neither, or too many streams are open ' +
    '(HOOKS_EVENT_STREAMS_MAX; reader tokens together stop HOOKS_EVENT_STREAMS_PER_TOKEN short of it, kept for operator and admin tokens); ' +
    '429 when this token already holds HOOKS_EVENT_STREAMS_PER_TOKEN streams on this ingress.',
  query: Type.Object(
    {
      hook: Type.Optional(Type.String({ pattern: NAME_PATTERN, 'x-error': `hook must match ${NAME_PATTERN}, got {got}` })),
      topic: Type.Optional(Type.String({ pattern: NAME_PATTERN, 'x-error': `topic must match ${NAME_PATTERN}, got {got}` })),
      status: Type.Optional(
        OneOf(RUN_STATUS_VALUES, {
          description: 'Only events that leave a run in this status',
          'x-error': `status must be one of ${RUN_STATUS_VALUES.join('|')}, got {got}`,
        }),
      ),
      event: Type.Optional(
        Type.String({
          description: `Only these event types, comma-separated (${RUN_EVENT_VALUES.join(', ')})`,
          pattern: `^(${RUN_EVENT_VALUES.join('|')})(,(${RUN_EVENT_VALUES.join('|')}))*$`,
          'x-error': `event must be one or more (comma-separated) of ${RUN_EVENT_VALUES.join('|')}, got {got}`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  knownInRefusal: true,
  refused: 'bad event stream query',
  answers: {
    200: answer(
      'A `text/event-stream`: one `event: run` per run event, `data` a RunEvent, the same JSON as the NATS `hooks.events.run.<status>.<hook>` message; ' +
        'a comment line every 15 s. Nothing published before the stream opened is replayed, and the events are best effort (a live view, not a record: GET /api/hook-runs is).',
      RunEvent,
      'text/event-stream',
    ),
  },
  errors: [400, 503],
});

export const whoami = route({
  method: 'GET',
  path: '/whoami',
  role: 'reader',
  operationId: 'whoami',
  tag: 'ops',
  summary: 'The role of the presented token, and the person for an access token from the IdP',
  answers: {
    200: answer(
      'The role (and who, for a person signed in through the IdP)',
      Type.Object({
        role: OneOf(['reader', 'operator', 'admin'] as const),
        person: Type.Optional(Type.Object({ issuer: Type.String(), subject: Type.String(), name: Type.String() })),
      }),
    ),
  },
});

const AnyJson = (description: string) => Type.Optional(Type.Unknown({ description }));

export const AuditEntry = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9a-z]{22}$', description: 'Time-sortable' }),
    at: IsoTime(),
    actor: Type.Object({
      kind: OneOf(['token', 'agent', 'link', 'person'] as const),
      role: Nullable(OneOf(['reader', 'operator', 'admin'] as const)),
      label: Type.String({
        description: "`<role>:<first 8 hex of the token's SHA-256>`, `agent:<name>` or `link:<interaction id>` (a signed approval link)",
      }),
    }),
    action: Type.String({ description: 'e.g. hook.register, policy.update, interaction.approve; a route not named is recorded as `<METHOD> /api/<route>`' }),
    target: Nullable(Type.String({ description: 'What was acted on: a hook or tool name, a run or interaction id, a topic…' })),
    client: Type.String({ description: "The client's address (HOOKS_TRUSTED_PROXIES)" }),
    status: Type.Integer({
      description: 'The HTTP status the request was answered with; a refusal (4xx) keeps no before/after and is bounded apart from the changes',
    }),
    request: Type.Object({ method: Type.String(), path: Type.String() }),
    before: AnyJson('The record before the change (null: there was none), where one applies'),
    after: AnyJson('The record after the change (null: it is gone), where one applies'),
    detail: AnyJson('A reason, a bulk selection and its counts, the variables a reload applied'),
  },
  {
    $id: 'AuditEntry',
    description:
      'One operator or admin change (or a refused attempt: see status). Never holds a secret: tokens, signatures, URL passwords and values under secret-shaped keys are `[redacted]`.',
  },
);

export const listAudit = route({
  method: 'GET',
  path: '/audit',
  role: 'admin',
  operationId: 'listAudit',
  tag: 'audit',
  summary: 'The audit trail: every operator and admin change, newest first',
  query: Type.Object(
    {
      action: Type.Optional(
        Type.String({
          description: 'An exact action (hook.register) or a family (hook.*); or a route as recorded (POST /api/...)',
          pattern: '^(?:[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*(?:\\.\\*)?|[A-Z]+ /api/\\S{0,256})$',
          'x-error': { '*': 'action must be an action such as hook.register, or a family such as hook.*, got {got}' },
        }),
      ),
      actor: Type.Optional(
        Type.String({
          description: 'A label (operator:1a2b3c4d, agent:ci-bot, link:<id>), a role, or a kind (token, agent, link)',
          pattern: '^[A-Za-z0-9_.:-]{1,160}$',
          'x-error': { '*': 'actor must be a role, link, or a label such as operator:1a2b3c4d or agent:ci-bot, got {got}' },
        }),
      ),
      target: Type.Optional(
        Type.String({ description: 'An exact target', minLength: 1, maxLength: 512, 'x-error': { '*': 'target must be 1 to 512 characters, got {got}' } }),
      ),
      since: Type.Optional(Instant('Entries at or after this ISO 8601 time')),
      until: Type.Optional(Instant('Entries at or before this ISO 8601 time')),
      limit: Type.Optional(WholeNumber(500, 50, 'Entries per page')),
      cursor: Type.Optional(
        Type.String({
          description: "A page's next_cursor",
          pattern: '^[0-9a-z]{22}$',
          'x-error': { '*': 'cursor must be the next_cursor of a previous page, got {got}' },
        }),
      ),
    },
    { additionalProperties: false },
  ),
  knownInRefusal: true,
  refused: 'bad audit query',
  answers: {
    200: answer(
      'One page; pass next_cursor back as cursor for older entries',
      Type.Object({
        entries: Type.Array(AuditEntry),
        next_cursor: Nullable(Type.String()),
        retention_days: Type.Number({ description: 'HOOKS_AUDIT_RETENTION_DAYS' }),
        max_entries: Type.Integer({ description: 'HOOKS_AUDIT_MAX_ENTRIES: most changes kept' }),
        max_refused: Type.Integer({ description: 'HOOKS_AUDIT_MAX_REFUSED: most refused attempts (4xx) kept, apart from the changes' }),
      }),
    ),
  },
  errors: [400],
});

export const OBSERVE_ROUTES = [getDelivery, statsSeries, runEvents, whoami, listAudit] as const;
