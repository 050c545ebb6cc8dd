import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import {
  BulkAnswer,
  Count,
  DiscardRequest,
  ERROR_KIND_VALUES,
  HOOK_OR_AGENT,
  HOOK_OR_AGENT_LINE,
  JsonObject,
  IsoTime,
  Nullable,
  OneOf,
  RetryRequest,
  RUN_FILTER_FIELDS,
  Run,
  RunPage,
  StatusFilter,
  WholeNumber,
} from './runs-shared';

const RUN_ID_PATTERN = '^[0-9a-z]{22}(?:[0-9a-z]{4})?$';
const FINGERPRINT = '^[0-9a-f]{16}$';
const RunId = Type.Object({ id: Type.String({ pattern: RUN_ID_PATTERN, description: 'Run id' }) });
const runMiss = (p: Record<string, string>) => `no run ${JSON.stringify(p.id)}`;

export const listRuns = route({
  method: 'GET',
  path: '/hook-runs',
  role: 'reader',
  operationId: 'listRuns',
  tag: 'runs',
  summary: 'List runs, newest first, with filters and a cursor',
  query: Type.Object(
    {
      status: Type.Optional(StatusFilter()),
      ...RUN_FILTER_FIELDS,
      limit: Type.Optional(WholeNumber(500, 50)),
      cursor: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 512,
          description: 'next_cursor of the previous page',
          'x-error': { '*': 'cursor must be the next_cursor of a previous page' },
        }),
      ),
      where: Type.Optional(
        Type.String({
          pattern: '\\S',
          maxLength: 4096,
          'x-error': { pattern: 'where must be a jq expression, got {got}', maxLength: 'where is {length} characters, more than 4096' },
          description:
            'A jq filter evaluated on each run as {payload, result, error, hook, topic, status, door, verified, delivery_id, event_id, attempts, created_at}: ' +
            "the run matches when its first output is neither false nor null. Combines with the other filters. Compiled first (400 quoting it and jq's message); " +
            'each evaluation is time-bounded; a jq error on a run is no match (counted in scan.errors). One request reads at most `scan` runs and 3 s: ' +
            'the answer carries scan, and scan.cut says the window ended with runs left unread (continue with next_cursor). ' +
            'A token runs one where search at a time (429 for a second while its first runs); 503 when the search jq-wasm worker stayed busy past its wait bound.',
        }),
      ),
      scan: Type.Optional(WholeNumber(5000, 5000, 'With where only: the most runs this request reads')),
    },
    { additionalProperties: false, ...HOOK_OR_AGENT, 'x-error': { not: HOOK_OR_AGENT_LINE } },
  ),
  knownInRefusal: true,
  refused: 'bad run list query',
  answers: { 200: answer('A page of runs', RunPage) },
  errors: [400, 503],
});

export const RunCounts = Type.Object(
  Object.fromEntries(['pending', 'running', 'retry_wait', 'parked', 'failed'].map((k) => [k, Count()])) as Record<
    'pending' | 'running' | 'retry_wait' | 'parked' | 'failed',
    ReturnType<typeof Count>
  >,
  { additionalProperties: false },
);

export const countRuns = route({
  method: 'GET',
  path: '/hook-runs/counts',
  role: 'reader',
  operationId: 'countRuns',
  tag: 'runs',
  summary: 'How many runs are in each unfinished state, now',
  description:
    "Read from the store's status indexes (no run is read), so it is exact and cheap however many runs are kept; " +
    'the `tai42_hook_runs_pending`/`_held_failed`/`_parked` gauges carry the same numbers as of the last sweep. No query parameters (400 naming any).',
  query: Type.Object({}, { additionalProperties: false }),
  refused: 'GET /api/hook-runs/counts takes no query parameters',
  answers: { 200: answer('Counts', RunCounts) },
  errors: [400],
});

export const FailureGroup = Type.Object(
  {
    hook: Type.String({ description: "The runs' hook (an agent's calls: agent:<name>)" }),
    agent: Nullable(Type.String({ description: "The agent whose calls these are; null for a hook's runs" })),
    kind: OneOf(ERROR_KIND_VALUES),
    fingerprint: Type.String({
      pattern: FINGERPRINT,
      description: 'SHA-256 (16 hex) of the masked message: numbers, ids, UUIDs, times, IPs with ports, URL hosts and query values, emails masked',
    }),
    pattern: Type.String({ description: 'The masked message the runs share, e.g. "connect ECONNREFUSED <ip>"' }),
    sample_message: Type.String({ description: "The newest run's message, as it was" }),
    sample_run: Type.String({ description: "The newest run's id (GET /api/hook-runs/{id})" }),
    count: Type.Integer({ minimum: 1, description: 'Failed runs of the group in the window' }),
    first_seen: IsoTime('When the earliest run in the window failed'),
    last_seen: IsoTime('When the latest run failed'),
  },
  { $id: 'FailureGroup', additionalProperties: false, description: 'The failed runs of one hook with one error kind and one message fingerprint' },
);

export const FailureGroups = Type.Object(
  {
    groups: Type.Array(FailureGroup, { description: 'Most runs first, then the latest seen' }),
    group_count: Count('Groups in the window (more than groups holds when limit cut the list)'),
    window: Type.Object(
      {
        max: Type.Integer({ minimum: 1, maximum: 5000, description: 'The most failed runs scanned (the window query parameter)' }),
        scanned: Count('Failed runs scanned, newest first; each is counted in a group'),
        cut: Type.Boolean({ description: 'More failed runs match than were scanned: older ones are not counted' }),
        oldest: Nullable(IsoTime('When the oldest scanned run was kept; null when none was')),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'FailureGroups', additionalProperties: false },
);

export const listFailureGroups = route({
  method: 'GET',
  path: '/hook-runs/failures',
  role: 'reader',
  operationId: 'listFailureGroups',
  tag: 'runs',
  summary: 'Failed runs grouped by hook, error kind and message fingerprint',
  description:
    'Scans the newest `window` failed runs (held for an operator) that match the filters, newest first, and groups them; ' +
    '`window.cut` says when older failed runs were left out. Retry or discard one group with POST /api/hook-runs/retry|discard and ' +
    'filter {status: failed, hook (or agent), kind, fingerprint}.',
  query: Type.Object(
    {
      hook: RUN_FILTER_FIELDS.hook,
      agent: RUN_FILTER_FIELDS.agent,
      kind: RUN_FILTER_FIELDS.kind,
      fingerprint: RUN_FILTER_FIELDS.fingerprint,
      since: RUN_FILTER_FIELDS.since,
      window: Type.Optional(WholeNumber(5000, 5000, 'How many of the newest failed runs to scan')),
      limit: Type.Optional(WholeNumber(500, 50, 'Groups answered')),
    },
    { additionalProperties: false, ...HOOK_OR_AGENT, 'x-error': { not: HOOK_OR_AGENT_LINE } },
  ),
  knownInRefusal: true,
  refused: 'bad failures query',
  answers: { 200: answer('The groups and the window scanned', FailureGroups) },
  errors: [400],
});

export const getRun = route({
  method: 'GET',
  path: '/hook-runs/:id',
  role: 'reader',
  operationId: 'getRun',
  tag: 'runs',
  summary: 'One run: status, attempts, error, acted, input, result, history',
  params: RunId,
  paramsMiss: runMiss,
  answers: { 200: answer('The run', Run) },
  errors: [404],
});

export const ToolCalledAgain = Nullable(
  Type.Object(
    {
      idempotency_key: Type.String({ description: 'The key the call carries (the run id)' }),
      extra: OneOf(['tai42/idempotency_key'] as const, { description: 'The tool extra that carries it' }),
    },
    {
      additionalProperties: false,
      description:
        'Set when the run had called its tool (acted start): the retry calls it again, once the approval policy allows it, with the same idempotency key. Null otherwise.',
    },
  ),
);

export const retryRun = route({
  method: 'POST',
  path: '/hook-runs/:id/retry',
  role: 'operator',
  operationId: 'retryRun',
  tag: 'runs',
  summary: 'Run a failed run again',
  params: RunId,
  paramsMiss: runMiss,
  answers: {
    200: answer('The run, pending again and published, with tool_called_again', Type.Intersect([Run, Type.Object({ tool_called_again: ToolCalledAgain })])),
  },
  errors: [404, 409],
  audit: 'run.retry',
});

export const replayRun = route({
  method: 'POST',
  path: '/hook-runs/:id/replay',
  role: 'operator',
  operationId: 'replayRun',
  tag: 'runs',
  summary: "Run an ended run's event again",
  description:
    'A new run of the same payload for the hook as it is registered now; the source run is left as it is. With `payload`, the new run carries that payload instead ' +
    '("replay with this payload"; its first history line says the payload was edited): a JSON object or its JSON text, at most HOOKS_BODY_MAX_BYTES as compact JSON ' +
    "(the door's body limit) and nested at most 64 deep; anything else is 400 naming payload. The body is optional. " +
    "409 while the source still runs (pending, running, retry_wait, parked), when its hook is no longer registered, or for an agent's call.",
  params: RunId,
  paramsMiss: runMiss,
  body: Type.Object(
    {
      payload: Type.Optional(
        Type.Union([JsonObject(), Type.String()], {
          description: "The new run's payload instead of the source's: a JSON object, or its JSON text (a string)",
          'x-error': "payload must be a JSON object (a run's payload) or its JSON text, got {got}",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  bodyOptional: true,
  knownInRefusal: true,
  refused: 'replay refused',
  answers: { 201: answer('The new run (replay_of names the source), pending and published', Run) },
  errors: [400, 404, 409],
  audit: 'run.replay',
});

export const discardRun = route({
  method: 'DELETE',
  path: '/hook-runs/:id',
  role: 'operator',
  operationId: 'discardRun',
  tag: 'runs',
  summary: 'Discard a run',
  params: RunId,
  paramsMiss: runMiss,
  answers: { 200: answer('The run, discarded', Run) },
  errors: [404, 409],
  audit: 'run.discard',
});

export const retryRuns = route({
  method: 'POST',
  path: '/hook-runs/retry',
  role: 'operator',
  operationId: 'retryRuns',
  tag: 'runs',
  summary: 'Retry every failed run a filter matches',
  description:
    'filter.status, when given, must be failed. With dry_run: true, answers how many runs match and changes nothing. At most 10000 runs per call (truncated says more matched).',
  body: RetryRequest,
  knownInRefusal: true,
  refused: 'bad bulk retry request',
  answers: { 200: answer('How many matched, were retried and were refused', BulkAnswer) },
  errors: [400],
  audit: 'runs.bulk_retry',
});

export const discardRuns = route({
  method: 'POST',
  path: '/hook-runs/discard',
  role: 'operator',
  operationId: 'discardRuns',
  tag: 'runs',
  summary: 'Discard every run a filter matches',
  description:
    'filter.status is required (not running or discarded). With dry_run: true, answers how many runs match and changes nothing. At most 10000 runs per call.',
  body: DiscardRequest,
  knownInRefusal: true,
  refused: 'bad bulk discard request',
  answers: { 200: answer('How many matched, were discarded and were refused', BulkAnswer) },
  errors: [400],
  audit: 'runs.bulk_discard',
});

export const ResolveVerdict = Type.Object(
  {
    outcome: OneOf(['succeeded', 'failed'] as const, {
      description: 'What the operator found the tool did: succeeded (it acted; result is its result) or failed (reason says why)',
      'x-error': 'outcome must be "succeeded" or "failed", got {got}',
    }),
    result: Type.Optional(
      Type.Unknown({ description: "With succeeded: the tool's result as the operator verified it (any JSON; null when left out). Not with failed" }),
    ),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: "With failed (required): what the operator found; the run's error names it. Not with succeeded",
        'x-error': 'reason must be a non-empty string of at most 2000 characters, got {got}',
      }),
    ),
    note: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: "What the operator checked, kept in the run's history line with who resolved it",
        'x-error': 'note must be a string of at most 2000 characters, got {got}',
      }),
    ),
  },
  { additionalProperties: false, description: "An operator's verdict on a run whose tool may have acted: succeeded with a result, or failed with a reason" },
);

export const resolveRun = route({
  method: 'POST',
  path: '/hook-runs/:id/resolve',
  role: 'operator',
  operationId: 'resolveRun',
  tag: 'runs',
  summary: 'Record what a run with an unknown outcome did',
  description:
    'For a run held failed with error kind outcome_unknown: it was interrupted (an executor crash or a shutdown) after its tool started, and the tool ' +
    'does not declare crash-resume, so it may have acted. The operator checks what the tool did and records it: {"outcome": "succeeded", "result": ...} ' +
    'ends the run succeeded with that result; {"outcome": "failed", "reason": "..."} keeps it failed with a non-retryable operator_failed error naming ' +
    "the reason. Either may carry a note; the run's history names who resolved it and the note, and a finished run event is published. An agent's call " +
    'then answers this verdict (GET /api/calls/{id}, its MCP task, a repeat with its key). 409 for a run not held with an unknown outcome; 400 for ' +
    'result with failed, a failed verdict without a reason, or reason with succeeded.',
  params: RunId,
  paramsMiss: runMiss,
  body: ResolveVerdict,
  refused: 'resolve refused',
  answers: { 200: answer('The run, with the verdict recorded', Run) },
  errors: [400, 404, 409],
  audit: 'run.resolve',
});

export const RUN_ROUTES = [listRuns, countRuns, listFailureGroups, getRun, retryRun, replayRun, discardRun, resolveRun, retryRuns, discardRuns] as const;
