import { INTERACTION_KINDS, INTERACTION_STATUSES } from '@hookyard/core';
import { AGENT_SCHEMAS, agentPaths } from './agents-paths';
import { STATE_DECLARATION_SCHEMAS, stateDeclarationPaths } from './state-declaration-paths';
import { CALL_PATHS } from './calls-paths';
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

/** What a registration of a discovered kind answers besides the record. */
const DISCOVERY_FIELDS = {
  discovered: { type: 'boolean', description: 'true when the service was discovered now (openapi, mcp, grpc); false with ?discover=false' },
  tools: { type: 'integer', minimum: 0, description: 'how many tools the service provides, when discovered' },
};

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
  '/api/settings': {
    get: op(
      'operator',
      'The effective settings of the process that answers',
      {
        '200': answer('Settings, each with its value, source and whether a reload applies it', ref('SettingsView')),
        ...fail(503),
      },
      {
        tags: ['ops'],
        operationId: 'getSettings',
        description:
          'Every setting of this process: `value` (API tokens as their roles only, URL passwords as ***, secrets as their env:/file: references), ' +
          '`source` (default, file or environment), `live`, and `pending_restart` when the file or environment now says something that needs a restart. ' +
          '`env_overrides_file` names the variables set in both HOOKS_CONFIG_FILE and the environment (the environment wins). 503 when the process was not started by `hookyard serve`.',
      },
    ),
  },
  '/api/settings/reload': {
    post: op(
      'admin',
      'Reload the settings of the process that answers',
      {
        '200': answer('Reloaded: what was applied now and what needs a restart', ref('SettingsReload')),
        ...fail(400, 503),
      },
      {
        tags: ['ops'],
        operationId: 'reloadSettings',
        description:
          'Re-reads the environment and HOOKS_CONFIG_FILE and applies every setting that can change live, or nothing: a value that fails validation ' +
          '(or a configuration the process could not run, e.g. a split role without Redis) is a 400 naming the variable. Only this process reloads; ' +
          'every other role reloads on its own SIGHUP or when its mounted file changes.',
      },
    ),
  },
  '/api/hooks': {
    get: op(
      'reader',
      'List hooks',
      { '200': answer('Hooks', { type: 'object', required: ['hooks'], properties: { hooks: { type: 'array', items: ref('Hook') } } }), ...fail(400) },
      {
        tags: ['hooks'],
        operationId: 'listHooks',
        parameters: [{ name: 'topic', in: 'query', required: false, description: 'Only the hooks on this topic', schema: ref('Name') }],
      },
    ),
    post: op(
      'operator',
      'Register or replace a hook',
      {
        '200': answer('Replaced (moved to the new topic if it changed)', {
          type: 'object',
          properties: { created: { type: 'boolean', enum: [false] }, hook: ref('Hook') },
        }),
        '201': answer('Registered', { type: 'object', properties: { created: { type: 'boolean', enum: [true] }, hook: ref('Hook') } }),
        ...fail(400),
      },
      {
        tags: ['hooks'],
        operationId: 'putHook',
        description:
          'Needs the operator role. Checks everything the hook names and answers 400 with one line per miss in `details`: an unknown tool, ' +
          "tool_kwargs against the tool's JSON Schema, references inside tool_kwargs, every jq field compiled, the allowlists.",
        requestBody: body(ref('HookInput')),
      },
    ),
  },
  '/api/hooks/schema': {
    get: op(
      'reader',
      'The JSON Schema of a hook record',
      { '200': answer('A standalone JSON Schema (2020-12); every jq field carries x-tai42-expression', { type: 'object' }) },
      {
        tags: ['hooks'],
        operationId: 'hookSchema',
        description:
          'Needs the reader role. Each jq field (condition, start_expr, cancel_expr, resume_expr, extras_expr, subject.key_expr, approval[].when) carries ' +
          '`x-tai42-expression` {input, result, variables}: the document it reads, what its result is consumed as, and the variables it binds ($parked). ' +
          'This route is matched before GET /api/hooks/{name}, so a hook named `schema` is read through GET /api/hooks?topic=… instead.',
      },
    ),
  },
  '/api/hooks/dry-run': {
    post: op(
      'operator',
      'What a run of a hook over a payload would do (nothing kept, nothing called)',
      { '200': answer('Every step of the run', ref('DryRun')), ...fail(400, 404) },
      {
        tags: ['hooks'],
        operationId: 'dryRunHook',
        description:
          'Needs the operator role. `hook` is a registered hook name or a hook record (validated as a registration, not stored). Evaluates the subject, ' +
          '$parked, the condition, cancel_expr and resume_expr, start_expr under the static tool_kwargs, extras_expr, the allowlist and the approval policy ' +
          'as a run would; the first step that fails ends the report with its error and kind. No side effect.',
        requestBody: body(ref('DryRunInput')),
      },
    ),
  },
  '/api/interactions/{id}/approve': {
    parameters: [pathParam('id', 'Interaction id (an approval)', { type: 'string' })],
    post: op(
      'operator',
      'Approve an open approval: its parked run calls the tool once',
      { '200': answer('The interaction, approved, and its woken run', ref('ApprovalAnswer')), ...fail(400, 404, 409) },
      {
        tags: ['approvals'],
        operationId: 'approveInteraction',
        description:
          "Needs the operator role. Body `{reason?}`. The woken run hashes its arguments again: if they no longer equal the approval's args_hash " +
          "(the hook or a template changed) the run ends `denied` saying why; otherwise the tool is called once with the run's idempotency key. " +
          '409 when already answered (naming who answered first), when past its expiry, or when the interaction is not an approval.',
        requestBody: { required: false, content: json(ref('ApprovalAnswerInput')) },
      },
    ),
  },
  '/api/interactions/{id}/deny': {
    parameters: [pathParam('id', 'Interaction id (an approval)', { type: 'string' })],
    post: op(
      'operator',
      'Deny an open approval: its parked run ends denied, the tool never called',
      { '200': answer('The interaction, denied, and its woken run', ref('ApprovalAnswer')), ...fail(400, 404, 409) },
      {
        tags: ['approvals'],
        operationId: 'denyInteraction',
        description: "Needs the operator role. Body `{reason?}`; the run's result names who denied it, how, and the reason. 409 as for approve.",
        requestBody: { required: false, content: json(ref('ApprovalAnswerInput')) },
      },
    ),
  },
  '/api/approval-policy': {
    get: op(
      'reader',
      "The deployment's approval policy",
      { '200': answer('The policy (version 0 with no rules when never set)', ref('ApprovalPolicy')) },
      { tags: ['approvals'], operationId: 'getApprovalPolicy' },
    ),
    put: op(
      'admin',
      'Replace the approval rules (the version is bumped)',
      { '200': answer('The policy as kept', ref('ApprovalPolicy')), ...fail(400, 409) },
      {
        tags: ['approvals'],
        operationId: 'putApprovalPolicy',
        description:
          'Needs the admin role. Replaces the rules whole; one 400 line per bad rule (an allowlist entry, a `when` that does not compile, an unknown action, ' +
          'a field the action does not use). With `version`, applies only if that is still the kept version, else 409 naming the kept one.',
        requestBody: body(ref('ApprovalPolicyInput')),
      },
    ),
  },
  '/api/approval-policy/dry-run': {
    post: op(
      'operator',
      'What the approval policy would decide about one call (nothing is kept)',
      { '200': answer('The decision, the rule that made it and what would happen', ref('PolicyDryRun')), ...fail(400) },
      {
        tags: ['approvals'],
        operationId: 'dryRunApprovalPolicy',
        description:
          "Needs the operator role. Evaluates `rules` (a candidate policy, checked like a PUT's; absent: the kept policy) against `call` " +
          "through the executor's own gate: first match wins, no match allows, a failing `when` denies, and a hook's own rules can only make " +
          "the decision stricter. `call.hook` (a registered hook: its topic and own rules apply) or `call.agent` (an agent's call, topic " +
          "tools/call), `call.tool` (default: the hook's tool), `call.args`, `call.subject`. Saves nothing.",
        requestBody: body(ref('PolicyDryRunInput')),
      },
    ),
  },
  '/api/states': {
    get: op(
      'reader',
      'List the subjects of one scope and kind that have state, by key, with a cursor',
      { '200': answer('A page of subjects (no documents)', ref('StatePage')), ...fail(400) },
      {
        tags: ['states'],
        operationId: 'listStates',
        parameters: [
          { name: 'scope', in: 'query', required: true, schema: ref('Name') },
          { name: 'kind', in: 'query', required: true, schema: ref('Name') },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', description: 'next_cursor of the previous page', schema: { type: 'string' } },
        ],
      },
    ),
  },
  '/api/states/{scope}/{kind}/{key}': {
    parameters: [
      pathParam('scope', 'Subject scope'),
      pathParam('kind', 'Subject kind'),
      pathParam('key', 'Subject key (URL-encoded: it may hold / and #)', { type: 'string', minLength: 1, maxLength: 512 }),
    ],
    get: op(
      'reader',
      "A subject's state: document, version and write history",
      { '200': answer('The state', ref('StateRecord')), ...fail(400, 404) },
      { tags: ['states'], operationId: 'getState' },
    ),
    put: op(
      'operator',
      "Replace a subject's state document (door api)",
      { '200': answer('Replaced', ref('StateRecord')), '201': answer('Created (version 1)', ref('StateRecord')), ...fail(400, 409) },
      {
        tags: ['states'],
        operationId: 'putState',
        description:
          'Needs the operator role. The write is attributed to door `api` and the token (`<role>:<label>`). With `if_version`, applies only on that version (0: none yet), ' +
          'else 409 naming the kept version. A document larger than HOOKS_STATE_MAX_BYTES is 400 naming the setting (a body past HOOKS_API_BODY_MAX_BYTES is 413).',
        requestBody: body(ref('StateInput')),
      },
    ),
    delete: op(
      'operator',
      "Delete a subject's state and its history",
      { '200': answer('Deleted', ref('StateDeleted')), ...fail(400, 404, 409) },
      {
        tags: ['states'],
        operationId: 'deleteState',
        parameters: [{ name: 'if_version', in: 'query', description: 'Deletes only on that version, else 409', schema: { type: 'integer', minimum: 0 } }],
      },
    ),
  },
  '/api/unrouted': {
    get: op(
      'reader',
      'Topics with events that came in while no hook was registered on them',
      {
        '200': answer('The topic seen last first, with the bounds they are kept within (HOOKS_UNROUTED_*)', {
          type: 'object',
          required: ['topics', 'bounds', 'usage'],
          properties: {
            topics: { type: 'array', items: ref('UnroutedTopic') },
            bounds: {
              type: 'object',
              properties: {
                keep: { type: 'integer' },
                topics: { type: 'integer' },
                retention_seconds: { type: 'number' },
                max_bytes: { type: 'integer', description: 'HOOKS_UNROUTED_MAX_BYTES: all kept events together' },
                event_max_bytes: { type: 'integer', description: 'HOOKS_UNROUTED_EVENT_MAX_BYTES: one kept event' },
              },
            },
            usage: {
              type: 'object',
              required: ['events', 'bytes', 'dropped'],
              properties: {
                events: { type: 'integer', minimum: 0, description: 'Events kept, every topic' },
                bytes: { type: 'integer', minimum: 0, description: 'Bytes of their JSON, at most max_bytes' },
                dropped: { type: 'integer', minimum: 0, description: 'Events dropped (oldest first) to stay within max_bytes' },
              },
            },
          },
        }),
        ...fail(400),
      },
      { tags: ['unrouted'], operationId: 'listUnroutedTopics' },
    ),
  },
  '/api/unrouted/{topic}': {
    parameters: [pathParam('topic', 'Topic')],
    get: op(
      'reader',
      "A topic's unrouted events, newest first",
      {
        '200': answer('One page; pass next_cursor back as cursor for older events', {
          type: 'object',
          required: ['topic', 'events', 'next_cursor'],
          properties: { topic: { type: 'string' }, events: { type: 'array', items: ref('UnroutedEvent') }, next_cursor: { type: 'string', nullable: true } },
        }),
        ...fail(400),
      },
      {
        tags: ['unrouted'],
        operationId: 'listUnrouted',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
      },
    ),
    delete: op(
      'operator',
      "Drop a topic's unrouted events",
      {
        '200': answer('How many were dropped', {
          type: 'object',
          required: ['topic', 'removed'],
          properties: { topic: { type: 'string' }, removed: { type: 'integer', minimum: 0 } },
        }),
        ...fail(400),
      },
      { tags: ['unrouted'], operationId: 'dropUnrouted' },
    ),
  },
  '/api/unrouted/{topic}/replay': {
    parameters: [pathParam('topic', 'Topic')],
    post: op(
      'operator',
      "Replay a topic's unrouted events to the hooks registered on it since",
      {
        '200': answer('One run per hook for each event kept (door api, not verified, as a replay of a run); the replayed events are removed', {
          type: 'object',
          required: ['topic', 'replayed', 'runs', 'run_ids', 'hooks', 'skipped_truncated'],
          properties: {
            topic: { type: 'string' },
            replayed: { type: 'integer', minimum: 0, description: 'Events replayed (and removed)' },
            runs: { type: 'integer', minimum: 0 },
            run_ids: { type: 'array', items: { type: 'string' } },
            hooks: { type: 'array', items: { type: 'string' } },
            skipped_truncated: {
              type: 'integer',
              minimum: 0,
              description: 'Events kept truncated (payload_truncated): not replayed, still listed; message says what to do',
            },
            message: { type: 'string', description: 'With skipped_truncated > 0: why they were not replayed' },
          },
        }),
        ...fail(400, 409),
      },
      {
        tags: ['unrouted'],
        operationId: 'replayUnrouted',
        description: 'Needs the operator role. 409 when still no hook is registered on the topic: register one first.',
      },
    ),
  },
  '/api/hooks/{name}': {
    parameters: [pathParam('name', 'Hook name')],
    get: op('reader', 'One hook', { '200': answer('The hook', ref('Hook')), ...fail(404) }, { tags: ['hooks'], operationId: 'getHook' }),
    delete: op(
      'operator',
      'Remove a hook (its kept runs stay)',
      { '200': answer('Removed', ref('Removed')), ...fail(404) },
      { tags: ['hooks'], operationId: 'removeHook' },
    ),
  },
  '/api/hooks/{name}/links': {
    parameters: [pathParam('name', 'Hook name')],
    get: op(
      'reader',
      "A hook's trigger links (never a token)",
      {
        '200': answer('Oldest first', { type: 'object', required: ['links'], properties: { links: { type: 'array', items: ref('TriggerLink') } } }),
        ...fail(404),
      },
      { tags: ['hooks'], operationId: 'listTriggerLinks' },
    ),
    post: op(
      'operator',
      'Make a trigger link that fires this hook (POST /trigger/{token})',
      { '201': answer('Made: the token is shown here once', ref('TriggerLinkCreated')), ...fail(400, 404) },
      { tags: ['hooks'], operationId: 'createTriggerLink', requestBody: { required: false, content: json(ref('TriggerLinkInput')) } },
    ),
  },
  '/api/hooks/{name}/links/{id}': {
    parameters: [pathParam('name', 'Hook name'), pathParam('id', 'Trigger link id', { type: 'string' })],
    delete: op(
      'operator',
      'Revoke a trigger link at once (again: no change)',
      {
        '200': answer('Revoked', {
          type: 'object',
          required: ['revoked', 'link'],
          properties: { revoked: { type: 'boolean', enum: [true] }, link: ref('TriggerLink') },
        }),
        ...fail(404),
      },
      { tags: ['hooks'], operationId: 'revokeTriggerLink' },
    ),
  },
  '/api/hooks/topics/{topic}/verifier': {
    parameters: [pathParam('topic', 'Topic')],
    get: op(
      'reader',
      "A topic's verifier binding (secret references only)",
      { '200': answer('The binding', ref('Verifier')), ...fail(404) },
      { tags: ['verifiers'], operationId: 'getVerifier' },
    ),
    put: op(
      'admin',
      'Bind or replace the verifier of a topic',
      {
        '200': answer('Replaced', { type: 'object', properties: { created: { type: 'boolean', enum: [false] }, verifier: ref('Verifier') } }),
        '201': answer('Bound', { type: 'object', properties: { created: { type: 'boolean', enum: [true] }, verifier: ref('Verifier') } }),
        ...fail(400),
      },
      { tags: ['verifiers'], operationId: 'putVerifier', requestBody: body(ref('VerifierInput')) },
    ),
    delete: op(
      'admin',
      'Remove the binding (the topic becomes open)',
      { '200': answer('Removed', ref('Removed')), ...fail(404) },
      { tags: ['verifiers'], operationId: 'removeVerifier' },
    ),
  },
  '/api/hooks/topics/{topic}/dedupe': {
    parameters: [pathParam('topic', 'Topic')],
    get: op(
      'reader',
      "A topic's dedupe key",
      { '200': answer('The dedupe key', ref('Dedupe')), ...fail(404) },
      { tags: ['verifiers'], operationId: 'getDedupe' },
    ),
    put: op(
      'admin',
      'Set or replace the dedupe key of a topic',
      {
        '200': answer('Replaced', { type: 'object', properties: { created: { type: 'boolean', enum: [false] }, dedupe: ref('Dedupe') } }),
        '201': answer('Set', { type: 'object', properties: { created: { type: 'boolean', enum: [true] }, dedupe: ref('Dedupe') } }),
        ...fail(400),
      },
      {
        tags: ['verifiers'],
        operationId: 'putDedupe',
        requestBody: body(ref('DedupeInput')),
        description:
          "Needs the admin role. The expression runs over {headers, query, body} of every delivery on the topic that its verifier gave no delivery id (a verifier's delivery id wins). " +
          'A non-empty string or a number is the delivery id, claimed for horizon_seconds in the same write that keeps the runs: a repeat is 200 duplicate. ' +
          'null, no output or "" keeps without dedupe; a jq error, several outputs or any other value is a 400 that keeps nothing.',
      },
    ),
    delete: op(
      'admin',
      'Remove the dedupe key',
      { '200': answer('Removed', ref('Removed')), ...fail(404) },
      { tags: ['verifiers'], operationId: 'removeDedupe' },
    ),
  },
  '/api/interactions': {
    get: op(
      'reader',
      'List interactions (what parked runs wait on), newest first, with filters and a cursor',
      { '200': answer('A page of interactions', ref('InteractionPage')), ...fail(400) },
      {
        tags: ['interactions'],
        operationId: 'listInteractions',
        parameters: [
          { name: 'status', in: 'query', schema: { type: 'string', enum: [...INTERACTION_STATUSES] } },
          { name: 'kind', in: 'query', schema: { type: 'string', enum: [...INTERACTION_KINDS] } },
          { name: 'run', in: 'query', description: 'The parked run', schema: { type: 'string' } },
          { name: 'hook', in: 'query', description: "The parked run's hook", schema: ref('Name') },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', description: 'next_cursor of the previous page', schema: { type: 'string' } },
        ],
      },
    ),
  },
  '/api/interactions/{id}': {
    parameters: [pathParam('id', 'Interaction id (128 random bits)', { type: 'string' })],
    get: op(
      'reader',
      'One interaction: its run, tool, args hash, expiry, status, resolution and kept outcome',
      { '200': answer('The interaction', ref('Interaction')), ...fail(404) },
      { tags: ['interactions'], operationId: 'getInteraction' },
    ),
  },
  '/api/interactions/{id}/cancel': {
    parameters: [pathParam('id', 'Interaction id', { type: 'string' })],
    post: op(
      'operator',
      'Cancel an open interaction; its parked run ends cancelled',
      { '200': answer('The interaction, cancelled', ref('Interaction')), ...fail(400, 404, 409) },
      {
        tags: ['interactions'],
        operationId: 'cancelInteraction',
        description: 'Needs the operator role. Body `{reason?}` (optional). An interaction already resolved is 409 naming who resolved it and how.',
        requestBody: {
          required: false,
          content: json({ type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 1000 } } }),
        },
      },
    ),
  },
  '/api/tools': {
    get: op(
      'reader',
      "Every tool the deployment can call, and the registered tool services; with ?format, the catalogue in a model vendor's tool shape",
      {
        '200': answer('Tools', {
          type: 'object',
          required: ['tools'],
          properties: {
            format: { type: 'string', enum: ['openai', 'anthropic', 'mcp'], description: 'with ?format: the shape of each entry of tools' },
            tools: { type: 'array', items: { anyOf: [ref('Tool'), { type: 'object', description: "a vendor's tool definition (with ?format)" }] } },
            registered: { type: 'array', items: ref('ToolRecord'), description: 'without ?format' },
            discovery: {
              type: 'array',
              items: ref('DiscoveryStatus'),
              description: 'without ?format: the last discoveries of every openapi, mcp and grpc registration, by the executors',
            },
          },
        }),
        ...fail(400),
      },
      {
        tags: ['tools'],
        operationId: 'listTools',
        description:
          "Needs the reader role; with ?format, an agent token may also call it and sees only the tools it may call (HOOKS_TOOLS_ALLOW ∩ the agent's tools_allow).",
        parameters: [
          {
            name: 'format',
            in: 'query',
            description:
              'openai: {"type":"function","function":{name,description,parameters}} (descriptions cut to 1024); anthropic: {name,description,input_schema}; mcp: {name,description,inputSchema}. Injected arguments are hidden in every shape.',
            schema: { type: 'string', enum: ['openai', 'anthropic', 'mcp'] },
          },
        ],
      },
    ),
    post: op(
      'admin',
      'Register or replace a tool service',
      {
        '200': answer('Replaced', {
          type: 'object',
          properties: { created: { type: 'boolean', enum: [false] }, tool: ref('ToolRecord'), ...DISCOVERY_FIELDS },
        }),
        '201': answer('Registered', {
          type: 'object',
          properties: { created: { type: 'boolean', enum: [true] }, tool: ref('ToolRecord'), ...DISCOVERY_FIELDS },
        }),
        ...fail(400),
        '422': errorResponse(
          'the service answered with something that cannot be used (not JSON, not OpenAPI 3, larger than HOOKS_OPENAPI_MAX_BYTES); nothing registered',
        ),
        '502': errorResponse('the service could not be read (unreachable, an HTTP error, a timeout); nothing registered'),
        '503': errorResponse(
          'no executor answered the discovery request within HOOKS_DISCOVERY_TIMEOUT_SECONDS (discovery runs on the executors, never on the ingress); nothing registered',
        ),
      },
      {
        tags: ['tools'],
        operationId: 'putTool',
        description:
          'Needs the admin role. An openapi, mcp or grpc registration is discovered before it is kept, by an executor (the ingress never reaches a registered service): the answer counts its tools, or says why the service cannot be read.',
        parameters: [
          {
            name: 'discover',
            in: 'query',
            description: 'false: keep an openapi, mcp or grpc registration without discovering it (a service that is not up yet)',
            schema: { type: 'string', enum: ['true', 'false'], default: 'true' },
          },
        ],
        requestBody: body(ref('ToolRecordInput')),
      },
    ),
  },
  '/api/tools/{name}': {
    parameters: [pathParam('name', 'Tool name', { type: 'string' })],
    get: op(
      'reader',
      'One tool with its JSON Schema (and its record when registered); a provider registration lists its tools and its discovery status',
      { '200': answer('The tool', ref('Tool')), ...fail(404) },
      { tags: ['tools'], operationId: 'getTool' },
    ),
    delete: op(
      'admin',
      'Remove a registered tool service; refused while a hook calls it',
      { '200': answer('Removed', ref('Removed')), ...fail(404, 409) },
      { tags: ['tools'], operationId: 'removeTool' },
    ),
  },
  ...CALL_PATHS,
  ...MCP_PATHS,
  ...agentPaths({ op, answer, fail, ref, pathParam, body }),
  ...stateDeclarationPaths({ op, answer, fail, ref, pathParam, body }),
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
    schemas: { ...SCHEMAS, ...AGENT_SCHEMAS, ...STATE_DECLARATION_SCHEMAS, ...MCP_SCHEMAS },
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
