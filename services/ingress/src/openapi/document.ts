import { ERROR_KINDS, FINGERPRINT_PATTERN, RUN_EVENT_TYPES, RUN_STATUSES } from '@hookyard/core';
import { AUDIT_SCHEMAS, auditPaths } from './audit-paths';
import { FAILURE_SCHEMAS, failurePaths } from './failures-paths';
import { MCP_PATHS, MCP_SCHEMAS } from './mcp-paths';
import { SCHEMAS } from './components';

type Obj = Record<string, unknown>;
const ref = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Obj): Obj => ({ 'application/json': { schema } });
const answer = (description: string, schema: Obj): Obj => ({ description, content: json(schema) });
const fail = (...codes: number[]): Obj => Object.fromEntries(codes.map((c) => [String(c), { $ref: `#/components/responses/E${c}` }]));
const pathParam = (name: string, description: string, schema: Obj = ref('Name')): Obj => ({ name, in: 'path', required: true, description, schema });
const body = (schema: Obj): Obj => ({ required: true, content: json(schema) });

/** Every management route answers these besides its own. */
const API_FAILS = [401, 403, 429];

function op(role: 'reader' | 'operator' | 'admin', summary: string, responses: Obj, extra: Obj = {}): Obj {
  return {
    summary,
    description: `Needs the ${role} role.`,
    'x-hookyard-role': role,
    ...extra,
    responses: { ...responses, ...fail(...API_FAILS), ...fail(500) },
  };
}

const open = { security: [] };
const doorError = (description: string): Obj => answer(description, ref('DoorError'));

const errorResponse = (description: string): Obj => answer(description, ref('Error'));

const html = (description: string): Obj => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const LINK_ANSWERS: Obj = {
  '200': html('The confirmation page (GET), or the answer recorded (POST)'),
  '403': html('The link is not valid (one fixed page whatever was wrong)'),
  '404': html('Approval links are not enabled (HOOKS_APPROVAL_LINK_SECRET unset)'),
  '409': html('Already answered (naming who, how and when), or expired'),
  '500': html('Nothing was answered (logged)'),
};
const LINK_GET =
  'No token: the HMAC-SHA256 signature over the id, the verdict, the expiry and the issuer (key HOOKS_APPROVAL_LINK_SECRET) is the credential, checked in constant time. ' +
  'A link without an issuer (made before links named one) is refused (403). ' +
  'GET never answers (chat apps fetch links to preview them): it shows what is asked and a button that POSTs.';
const LINK_QUERY: Obj[] = [
  { name: 'exp', in: 'query', required: true, description: 'When the link stops working (epoch seconds, signed)', schema: { type: 'string' } },
  {
    name: 'by',
    in: 'query',
    required: true,
    description: 'Whom the link was issued to (signed): `<role>:<token id>` (GET /api/interactions/{id}) or `hook:<name>` (the request event)',
    schema: { type: 'string' },
  },
  { name: 'sig', in: 'query', required: true, description: 'The link signature', schema: { type: 'string' } },
];
const LINK_POST =
  'Answers the approval once (via link, by "signed link issued to <issuer>, used from <address> (<user agent>)"); a second POST is 409. Form field `reason` is optional.';
const LINK_FORM: Obj = {
  required: false,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { reason: { type: 'string', maxLength: 1000 } } } } },
};

const PATHS: Obj = {
  '/universal_webhook/{topic}': {
    parameters: [pathParam('topic', 'The topic; one that does not match the name pattern is 400 naming the pattern')],
    post: {
      ...open,
      tags: ['door'],
      operationId: 'deliverEvent',
      summary: 'Deliver an event on a topic',
      description:
        'The public door. The raw body is verified (when the topic has a verifier binding) before it is parsed. Any content type: a JSON object ' +
        '(query parameters merged in, the body wins a clash), other JSON under `body`, urlencoded and multipart forms as fields (a file part is refused), ' +
        'text under `raw_body`, other bytes under `raw_body_base64`. One run per hook on the topic is kept in one atomic write before the answer; ' +
        'a topic with no hooks is accepted with `runs: 0`, `unrouted: true` and a message naming the topic; the event is kept under GET /api/unrouted.',
      requestBody: { required: false, content: { '*/*': { schema: {} } } },
      responses: {
        '200': answer('Kept (`accepted`, with the number of runs), or a delivery id already seen (`duplicate`, nothing kept)', ref('DoorAccepted')),
        '400': answer(
          'The topic does not match ^[a-z0-9][a-z0-9_-]*$ (at most 128 characters), or the body does not parse as its declared type, nests too deep, or carries a file',
          ref('DoorRejected'),
        ),
        '401': doorError('Verification failed (constant message)'),
        '405': doorError('Not POST (GET only for a verifier handshake)'),
        '408': doorError('The body was not received in time'),
        '413': doorError('Body larger than HOOKS_BODY_MAX_BYTES (the answer names the limit and the setting)'),
        '414': doorError('Query string longer than HOOKS_QUERY_MAX_BYTES (the answer names the limit and the setting)'),
        '429': {
          description: 'Flood limiter (per client and per topic)',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: json(ref('DoorError')),
        },
        '500': doorError('`accept failed`: the store refused or could not be reached; nothing was kept and no delivery id claimed (retry)'),
        '503': doorError(
          '`accept outcome unknown`: the keep was sent and no answer came; it may be kept. Retry with the same delivery id: a duplicate if it was kept',
        ),
      },
    },
    get: {
      ...open,
      tags: ['door'],
      operationId: 'verifierHandshake',
      summary: "A verifier's GET handshake",
      description: 'Answered only when the topic has a verifier binding whose kind uses a GET handshake; 405 otherwise.',
      responses: { '200': { description: 'Handshake answered' }, '405': doorError('No GET handshake on this topic') },
    },
  },
  '/trigger/{token}': {
    parameters: [pathParam('token', "The trigger link's token, as shown once when the link was made", { type: 'string' })],
    post: {
      ...open,
      tags: ['door'],
      operationId: 'fireTriggerLink',
      summary: "Fire a trigger link's hook",
      description:
        'For senders that cannot sign a body. The token is the credential, found by its SHA-256 (no string compare). The body is read, capped and parsed as at ' +
        "the public door (a file part is refused), then one run of the link's hook alone is kept (door `trigger`, not verified, `trigger_link` its id) and " +
        'the use counted in the same store step as the check, so max_uses holds under concurrency. A trigger run can never answer an approval.',
      requestBody: { required: false, content: { '*/*': { schema: {} } } },
      responses: {
        '200': answer('Kept: `{"status":"accepted","runs":1,...}`', ref('DoorAccepted')),
        '400': answer('The body does not parse as its declared type, nests too deep, or carries a file (no use spent)', ref('DoorRejected')),
        '404': doorError('A wrong, revoked, expired or used-up token, or a link whose hook is gone: one fixed body for all'),
        '405': doorError('Not POST'),
        '408': doorError('The body was not received in time'),
        '413': doorError('Body larger than HOOKS_BODY_MAX_BYTES (the answer names the limit and the setting)'),
        '414': doorError('Query string longer than HOOKS_QUERY_MAX_BYTES (the answer names the limit and the setting)'),
        '429': {
          description: 'Flood limiter (per client and per link)',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: json(ref('DoorError')),
        },
        '500': doorError('`accept failed`: nothing was kept; the use was given back when the keep was never sent (a keep the store refused leaves it spent)'),
        '503': doorError(
          '`accept outcome unknown`: the keep was sent and no answer came; it may be kept (the use stays counted; GET /api/hook-runs?hook= tells)',
        ),
      },
    },
  },
  '/approvals/{id}/approve': {
    parameters: [pathParam('id', 'Interaction id (an approval)', { type: 'string' }), ...LINK_QUERY],
    get: {
      ...open,
      tags: ['approvals'],
      operationId: 'approveLinkPage',
      summary: 'Signed approve link: a confirmation page (changes nothing)',
      description: LINK_GET,
      responses: LINK_ANSWERS,
    },
    post: {
      ...open,
      tags: ['approvals'],
      operationId: 'approveLink',
      summary: 'Signed approve link: answers the approval (once)',
      description: LINK_POST,
      requestBody: LINK_FORM,
      responses: LINK_ANSWERS,
    },
  },
  '/approvals/{id}/deny': {
    parameters: [pathParam('id', 'Interaction id (an approval)', { type: 'string' }), ...LINK_QUERY],
    get: {
      ...open,
      tags: ['approvals'],
      operationId: 'denyLinkPage',
      summary: 'Signed deny link: a confirmation page (changes nothing)',
      description: LINK_GET,
      responses: LINK_ANSWERS,
    },
    post: {
      ...open,
      tags: ['approvals'],
      operationId: 'denyLink',
      summary: 'Signed deny link: answers the approval (once)',
      description: LINK_POST,
      requestBody: LINK_FORM,
      responses: LINK_ANSWERS,
    },
  },
  '/healthz': {
    get: {
      ...open,
      tags: ['ops'],
      operationId: 'healthz',
      summary: 'The process answers',
      responses: { '200': answer('Alive', { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } }) },
    },
  },
  '/readyz': {
    get: {
      ...open,
      tags: ['ops'],
      operationId: 'readyz',
      summary: 'The store and co-hosted roles answer (within 800 ms); the bus is not required',
      responses: {
        '200': answer('Ready; `degraded` names a bus out of reach (events are kept, the sweep dispatches them later)', {
          type: 'object',
          properties: { status: { type: 'string', enum: ['ready'] }, degraded: { type: 'string' } },
        }),
        '503': answer('Not ready, with the reason', {
          type: 'object',
          properties: { status: { type: 'string', enum: ['unready'] }, reason: { type: 'string' } },
        }),
      },
    },
  },
  '/metrics': {
    get: {
      ...open,
      tags: ['ops'],
      operationId: 'metrics',
      summary: 'Prometheus metrics (prefix tai42_hook_runs_)',
      responses: { '200': { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
  '/openapi.json': {
    get: { ...open, tags: ['ops'], operationId: 'openapi', summary: 'This document', responses: { '200': answer('OpenAPI 3.0 document', { type: 'object' }) } },
  },
  '/console': {
    get: {
      ...open,
      tags: ['ops'],
      operationId: 'console',
      summary: 'The operator console (a browser page; sign in with a management token)',
      description:
        'Static assets built by `pnpm build`, under a strict Content-Security-Policy. The page holds nothing secret; it calls this API with the ' +
        "bearer token pasted at sign-in (kept in session storage) and shows only what the token's role may do. 503 when the assets were not built.",
      responses: {
        '200': { description: 'The console page', content: { 'text/html': { schema: { type: 'string' } } } },
        '503': { description: 'The console assets were not built' },
      },
    },
  },
  '/console/sso.json': {
    get: {
      ...open,
      tags: ['ops'],
      operationId: 'consoleSso',
      summary: "How the console signs a person in at the IdP (public, like the IdP's own metadata)",
      description:
        '`{"sso": null}` without HOOKS_OIDC_CONSOLE_CLIENT_ID (or while the IdP metadata cannot be read); else the issuer, the console\'s public ' +
        'client id, the API audience to ask for (`resource`), the authorization and token endpoints and the scopes.',
      responses: {
        '200': {
          description: 'The single sign-on config, or null',
          content: { 'application/json': { schema: { type: 'object', required: ['sso'], properties: { sso: { type: 'object', nullable: true } } } } },
        },
      },
    },
  },
  '/api/whoami': {
    get: op(
      'reader',
      'The role of the presented token, and the person for an access token from the IdP',
      {
        '200': answer('The role (and who is signed in)', {
          type: 'object',
          required: ['role'],
          properties: {
            role: { type: 'string', enum: ['reader', 'operator', 'admin'] },
            person: {
              type: 'object',
              description: 'present for an access token of HOOKS_OIDC_API_AUDIENCE: the IdP subject and a readable name (preferred_username or email)',
              required: ['issuer', 'subject', 'name'],
              properties: { issuer: { type: 'string' }, subject: { type: 'string' }, name: { type: 'string' } },
            },
          },
        }),
      },
      {
        tags: ['ops'],
        operationId: 'whoami',
      },
    ),
  },
  '/api/events': {
    get: op(
      'reader',
      'Run events as server-sent events',
      {
        '200': {
          description:
            'A `text/event-stream`: one `event: run` per run event, `data` the same JSON as the NATS `hooks.events.run.<status>.<hook>` message ' +
            '(run_id, event, at, hook, topic, status, attempts, error_kind, error_message, created_at, finished_at, due_at, duration_ms); `event` is one of ' +
            'accepted, started, parked, retry_scheduled, finished, retried, discarded, woken; a comment line every 15 s. ' +
            'Nothing published before the stream opened is replayed, and the events are best effort (a live view, not a record: GET /api/hook-runs is).',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...fail(400, 503),
      },
      {
        tags: ['runs'],
        operationId: 'runEvents',
        description:
          'Needs the reader role (send the bearer header; a browser reads the stream through fetch). The source is NATS `<prefix>.events.run.>` ' +
          '(every ingress, executor and scheduler), or the one process of the embedded default; 503 when the ingress has neither, or too many streams are open ' +
          '(HOOKS_EVENT_STREAMS_MAX; reader tokens together stop HOOKS_EVENT_STREAMS_PER_TOKEN short of it, kept for operator and admin tokens); ' +
          '429 when this token already holds HOOKS_EVENT_STREAMS_PER_TOKEN streams on this ingress.',
        parameters: [
          { name: 'hook', in: 'query', schema: ref('Name') },
          { name: 'agent', in: 'query', schema: ref('Name'), description: "an agent's calls (door agent); not with hook" },
          { name: 'topic', in: 'query', schema: ref('Name') },
          { name: 'status', in: 'query', description: 'Only events that leave a run in this status', schema: { type: 'string', enum: [...RUN_STATUSES] } },
          {
            name: 'event',
            in: 'query',
            description: `Only these event types, comma-separated (${RUN_EVENT_TYPES.join(', ')})`,
            schema: { type: 'string', pattern: `^(${RUN_EVENT_TYPES.join('|')})(,(${RUN_EVENT_TYPES.join('|')}))*$` },
          },
        ],
      },
    ),
  },
  '/api/hook-runs': {
    get: op(
      'reader',
      'List runs, newest first, with filters and a cursor',
      { '200': answer('A page of runs', ref('RunPage')), ...fail(400) },
      {
        tags: ['runs'],
        operationId: 'listRuns',
        parameters: [
          { name: 'status', in: 'query', schema: { type: 'string', enum: [...RUN_STATUSES] } },
          { name: 'hook', in: 'query', schema: ref('Name') },
          { name: 'topic', in: 'query', schema: ref('Name') },
          {
            name: 'delivery_id',
            in: 'query',
            description: "The sender's delivery id (checked on each run: pages may be short; follow next_cursor)",
            schema: { type: 'string', maxLength: 512 },
          },
          { name: 'since', in: 'query', description: 'ISO 8601: runs created at or after', schema: { type: 'string' } },
          { name: 'until', in: 'query', description: 'ISO 8601: runs created at or before', schema: { type: 'string' } },
          {
            name: 'kind',
            in: 'query',
            description: "The run's error kind (checked on each run: pages may be short)",
            schema: { type: 'string', enum: [...ERROR_KINDS] },
          },
          {
            name: 'fingerprint',
            in: 'query',
            description: "The fingerprint of the run's error message, a failure group's (GET /api/hook-runs/failures; checked on each run)",
            schema: { type: 'string', pattern: FINGERPRINT_PATTERN.source },
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', description: 'next_cursor of the previous page', schema: { type: 'string', maxLength: 512 } },
          {
            name: 'where',
            in: 'query',
            description:
              'A jq filter evaluated on each run as {payload, result, error, hook, topic, status, door, verified, delivery_id, event_id, attempts, created_at}: ' +
              "the run matches when its first output is neither false nor null. Combines with the other filters. Compiled first (400 quoting it and jq's message); " +
              'each evaluation is time-bounded; a jq error on a run is no match (counted in scan.errors). One request reads at most `scan` runs and 3 s: ' +
              'the answer carries scan, and scan.cut says the window ended with runs left unread (continue with next_cursor). ' +
              'A token runs one where search at a time (429 for a second while its first runs); 503 when the search jq-wasm worker stayed busy past its wait bound.',
            schema: { type: 'string', maxLength: 4096 },
          },
          {
            name: 'scan',
            in: 'query',
            description: 'With where only: the most runs this request reads',
            schema: { type: 'integer', minimum: 1, maximum: 5000, default: 5000 },
          },
        ],
      },
    ),
  },
  '/api/deliveries/{event_id}': {
    parameters: [pathParam('event_id', "An event id (a run's event_id; the door's answer names it)", { type: 'string' })],
    get: op(
      'reader',
      'One delivery and the runs it became',
      {
        '200': answer('The delivery: door, verified, topic, received time, headers kept, payload and its runs with their statuses', ref('Delivery')),
        ...fail(404),
      },
      {
        tags: ['runs'],
        operationId: 'getDelivery',
        description:
          'Needs the reader role. Every run kept from one delivery (one per hook on its topic) shares the first 24 chars of its id: the event id. Read as one range of the run list, no scan. 404 once none of its runs is kept. headers: the allowlisted, secret-free request headers the door kept with its runs (see the Delivery schema); null when none were kept.',
      },
    ),
  },
  '/api/hook-runs/retry': {
    post: op(
      'operator',
      'Retry every failed run a filter matches',
      { '200': answer('How many matched, were retried and were refused', ref('BulkAnswer')), ...fail(400) },
      {
        tags: ['runs'],
        operationId: 'retryRuns',
        description:
          'filter.status, when given, must be failed. With dry_run: true, answers how many runs match and changes nothing. At most 10000 runs per call (truncated says more matched).',
        requestBody: body(ref('BulkRequest')),
      },
    ),
  },
  '/api/hook-runs/discard': {
    post: op(
      'operator',
      'Discard every run a filter matches',
      { '200': answer('How many matched, were discarded and were refused', ref('BulkAnswer')), ...fail(400) },
      {
        tags: ['runs'],
        operationId: 'discardRuns',
        description:
          'filter.status is required (not running or discarded). With dry_run: true, answers how many runs match and changes nothing. At most 10000 runs per call.',
        requestBody: body(ref('BulkRequest')),
      },
    ),
  },
  '/api/hook-runs/{id}/replay': {
    parameters: [pathParam('id', 'Run id', { type: 'string' })],
    post: op(
      'operator',
      "Run an ended run's event again",
      { '201': answer('The new run (replay_of names the source), pending and published', ref('Run')), ...fail(400, 404, 409) },
      {
        tags: ['runs'],
        operationId: 'replayRun',
        description:
          'A new run of the same payload for the hook as it is registered now; the source run is left as it is. With `payload`, the new run carries that payload instead ' +
          '("replay with this payload"; its first history line says the payload was edited): a JSON object or its JSON text, at most HOOKS_BODY_MAX_BYTES as compact JSON ' +
          "(the door's body limit) and nested at most 64 deep; anything else is 400 naming payload. The body is optional. " +
          "409 while the source still runs (pending, running, retry_wait, parked), when its hook is no longer registered, or for an agent's call.",
        requestBody: {
          required: false,
          content: json({
            type: 'object',
            additionalProperties: false,
            properties: {
              payload: {
                description: "The new run's payload instead of the source's: a JSON object, or its JSON text (a string)",
                oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }],
              },
            },
          }),
        },
      },
    ),
  },
  '/api/hook-runs/counts': {
    get: op(
      'reader',
      'How many runs are in each unfinished state, now',
      {
        '200': answer('Counts', {
          type: 'object',
          required: ['pending', 'running', 'retry_wait', 'parked', 'failed'],
          additionalProperties: false,
          properties: Object.fromEntries(['pending', 'running', 'retry_wait', 'parked', 'failed'].map((k) => [k, { type: 'integer', minimum: 0 }])),
        }),
        ...fail(400),
      },
      {
        tags: ['runs'],
        operationId: 'countRuns',
        description:
          "Needs the reader role. Read from the store's status indexes (no run is read), so it is exact and cheap however many runs are kept; " +
          'the `tai42_hook_runs_pending`/`_held_failed`/`_parked` gauges carry the same numbers as of the last sweep. No query parameters (400 naming any).',
      },
    ),
  },
  '/api/stats/series': {
    get: op(
      'reader',
      'Runs per minute by outcome, accept-to-start and tool duration percentiles, and the top failing hooks, over the last hour or day',
      { '200': answer('The series', ref('StatsSeries')), ...fail(400) },
      {
        tags: ['runs'],
        operationId: 'statsSeries',
        description:
          'Needs the reader role. Read from the per-minute counters the run transitions keep in the store (no run is read): ' +
          'runs accepted, succeeded, failed, skipped and denied, and histograms of accept-to-start (first claim - accepted) and tool duration ' +
          "(finish - the last attempt's claim) in log2 buckets; a percentile is the upper bound of its bucket (2^i ms). " +
          'Minutes are kept 25 h; at most 100 hooks are counted one by one per minute (per partition on Redis), the totals count every run. ' +
          '400 naming an unknown parameter, a bad window or a malformed hook.',
        parameters: [
          {
            name: 'window',
            in: 'query',
            description: '1h: 60 points of 1 minute; 24h: 96 points of 15 minutes',
            schema: { type: 'string', enum: ['1h', '24h'], default: '1h' },
          },
          { name: 'hook', in: 'query', description: 'One hook (or agent:<name>); absent: every hook', schema: { type: 'string' } },
        ],
      },
    ),
  },
  '/api/hook-runs/{id}': {
    parameters: [pathParam('id', 'Run id', { type: 'string' })],
    get: op(
      'reader',
      'One run: status, attempts, error, acted, input, result, history',
      { '200': answer('The run', ref('Run')), ...fail(404) },
      { tags: ['runs'], operationId: 'getRun' },
    ),
    delete: op(
      'operator',
      'Discard a run',
      { '200': answer('The run, discarded', ref('Run')), ...fail(404, 409) },
      { tags: ['runs'], operationId: 'discardRun' },
    ),
  },
  '/api/hook-runs/{id}/retry': {
    parameters: [pathParam('id', 'Run id', { type: 'string' })],
    post: op(
      'operator',
      'Run a failed run again',
      {
        '200': answer('The run, pending again and published, with tool_called_again', {
          allOf: [
            ref('Run'),
            {
              type: 'object',
              required: ['tool_called_again'],
              properties: {
                tool_called_again: {
                  type: 'object',
                  nullable: true,
                  required: ['idempotency_key', 'extra'],
                  additionalProperties: false,
                  description:
                    'Set when the run had called its tool (acted start): the retry calls it again, once the approval policy allows it, with the same idempotency key. Null otherwise.',
                  properties: {
                    idempotency_key: { type: 'string', description: 'The key the call carries (the run id)' },
                    extra: { type: 'string', enum: ['tai42/idempotency_key'], description: 'The tool extra that carries it' },
                  },
                },
              },
            },
          ],
        }),
        ...fail(404, 409),
      },
      {
        tags: ['runs'],
        operationId: 'retryRun',
        description:
          'Needs the operator role. A run whose hook committed a resume or take cannot be retried, only discarded: 409 says why. ' +
          'A run whose tool was called (acted start) calls it again with the same idempotency key: tool_called_again says so.',
      },
    ),
  },
  ...MCP_PATHS,
  ...auditPaths({ op, answer, fail, ref, pathParam, body }),
  ...failurePaths({ op, answer, fail, ref, pathParam, body }),
};

/**
 * The OpenAPI 3.0 description of the ingress: the public door, the management
 * API under /api (bearer tokens with a role), and the ops routes, written by
 * hand for the routes not declared in @hookyard/api yet: openapi/index.ts lays
 * the declared routes' generated operations over it (GET /openapi.json).
 */
export const LEGACY_DOCUMENT: Obj = {
  openapi: '3.0.3',
  info: {
    title: 'Hookyard ingress',
    version: '0.1.0',
    description:
      'The public door `POST /universal_webhook/{topic}` and the management API. Management routes need `Authorization: Bearer <token>` ' +
      '(HOOKS_API_TOKENS, `role:token`); roles rank reader < operator < admin. Errors of the management API are ' +
      '`{"error": {"kind", "message", "details"?}}`; the door answers small fixed bodies.',
  },
  servers: [{ url: 'http://127.0.0.1:8080', description: 'The embedded default (pnpm start)' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'door', description: 'Where events come in' },
    { name: 'hooks' },
    { name: 'verifiers' },
    { name: 'runs' },
    { name: 'interactions', description: 'What parked runs wait on: approvals and waits' },
    { name: 'tools' },
    { name: 'templates' },
    { name: 'approvals', description: 'The approval policy around every tool call' },
    { name: 'states', description: 'Subject state: one versioned JSON document per (scope, kind, key), every write attributed' },
    { name: 'agents', description: 'Agent principals: each with its own token and tool allowlist; the token reaches only the agent door' },
    { name: 'unrouted', description: 'Events that came in on a topic with no hook: kept (bounded), listed, replayed or dropped' },
    { name: 'audit', description: 'The audit trail: who changed what, when, from where, before and after' },
    { name: 'ops', description: 'Health, readiness, metrics, this document (no token)' },
  ],
  paths: PATHS,
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'A management token from HOOKS_API_TOKENS' },
      agentToken: { type: 'http', scheme: 'bearer', description: 'An agent token (made by POST /api/agents); it reaches only the agent door' },
    },
    schemas: { ...SCHEMAS, ...AUDIT_SCHEMAS, ...MCP_SCHEMAS, ...FAILURE_SCHEMAS },
    responses: {
      E400: errorResponse('bad_input: one line per miss in details'),
      E401: errorResponse('unauthorized: missing or unknown bearer token'),
      E403: errorResponse("forbidden: the token's role is too low, or an agent token on a route outside the agent door"),
      E404: errorResponse('not_found'),
      E409: errorResponse('conflict: the state forbids it (the message says why)'),
      E503: errorResponse('unavailable: a dependency is out of reach or a limit is reached; retry later'),
      E429: { description: 'Too many management requests', headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: json(ref('Error')) },
      E500: errorResponse('internal (the body says nothing about the cause; it is logged)'),
    },
  },
};
