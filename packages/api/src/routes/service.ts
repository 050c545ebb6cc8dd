/**
 * The routes outside /api: the public door, trigger links, signed approval
 * links, the ops routes and the agent door's /mcp. They keep their own
 * handlers (the door is answered before express); these declarations give
 * the document and the guard that every route is declared.
 */
import { Type, type Static } from '@sinclair/typebox';
import { answer, bare, route, type Answer, type RouteDecl } from '../decl';
import { ApiError } from '../skeleton';

/** What the console needs to sign a person in (GET /console/sso.json): no secret, the console is a public client. */
export const ConsoleSso = Type.Object(
  {
    issuer: Type.String(),
    client_id: Type.String({ description: "The console's public client id (HOOKS_OIDC_CONSOLE_CLIENT_ID)" }),
    resource: Type.String({ description: "The API's audience, sent as `resource` (RFC 8707) so the token is for the API and nothing else" }),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    scope: Type.String(),
  },
  { additionalProperties: false },
);
/** The console's single sign-on config, as GET /console/sso.json answers it (`sso`, when set). */
export type ConsoleSsoConfig = Static<typeof ConsoleSso>;

const OPEN = [] as const;
const RETRY_AFTER = { 'Retry-After': { schema: { type: 'integer' } } };

export const DoorAccepted = Type.Object(
  {
    status: Type.Unsafe<'accepted' | 'duplicate'>({ type: 'string', enum: ['accepted', 'duplicate'] }),
    runs: Type.Optional(Type.Integer({ minimum: 0, description: 'Runs kept (one per hook on the topic); absent on duplicate' })),
    run_ids: Type.Optional(Type.Array(Type.String(), { description: 'The ids of the runs kept (GET /api/hook-runs/{id}); absent on duplicate' })),
    event_id: Type.Optional(
      Type.Unsafe<string | null>({
        type: 'string',
        nullable: true,
        description: 'The id every run id of this event starts with; null when nothing was kept; absent on duplicate',
      }),
    ),
    unrouted: Type.Optional(
      Type.Unsafe<true>({
        type: 'boolean',
        enum: [true],
        description: 'Present when no hook is registered on the topic (runs: 0): the event is kept under GET /api/unrouted',
      }),
    ),
    message: Type.Optional(Type.String({ description: 'With unrouted: says no hook is registered on the topic and where the event is kept' })),
  },
  { $id: 'DoorAccepted' },
);
export const DoorRejected = Type.Object(
  { status: Type.Unsafe<'rejected'>({ type: 'string', enum: ['rejected'] }), error: Type.String() },
  { $id: 'DoorRejected' },
);
export const DoorError = Type.Object({ error: Type.String() }, { $id: 'DoorError' });
const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Unsafe<'2.0'>({ type: 'string', enum: ['2.0'] }),
    error: Type.Object({ code: Type.Integer(), message: Type.String() }),
    id: Type.Unsafe<string | null>({ nullable: true, type: 'string' }),
  },
  { $id: 'JsonRpcError', description: 'A JSON-RPC error with no id, as the MCP SDK answers a request it refuses before reading it' },
);

const doorError = (description: string): Answer => answer(description, DoorError);
const rpc = (description: string): Answer => answer(description, JsonRpcError);
const html = (description: string): Answer => answer(description, Type.String(), 'text/html');
const anyBody = Type.Unknown();

const DOOR_FAILS = (limiter: string): Record<number, Answer> => ({
  405: doorError('Not POST (GET only for a verifier handshake)'),
  408: doorError('The body was not received in time'),
  413: doorError('Body larger than HOOKS_BODY_MAX_BYTES (the answer names the limit and the setting)'),
  414: doorError('Query string longer than HOOKS_QUERY_MAX_BYTES (the answer names the limit and the setting)'),
  429: {
    ...answer(
      `Flood limiter (${limiter}): the management API's error shape, kind \`unavailable\`, the message naming HOOKS_DOOR_RATE and HOOKS_DOOR_BURST`,
      ApiError,
    ),
    headers: RETRY_AFTER,
  },
});

const topicParams = Type.Object({
  topic: Type.Unsafe<string>({
    $ref: '#/components/schemas/Name',
    description: 'The topic; one that does not match the name pattern is 400 naming the pattern',
  }),
});

export const deliverEvent = route({
  method: 'POST',
  base: '',
  path: '/universal_webhook/:topic',
  role: 'public',
  security: OPEN,
  beforeExpress: true,
  tag: 'door',
  operationId: 'deliverEvent',
  summary: 'Deliver an event on a topic',
  description:
    'The public door. The raw body is verified (when the topic has a verifier binding) before it is parsed. Any content type: a JSON object ' +
    '(query parameters merged in, the body wins a clash), other JSON under `body`, urlencoded and multipart forms as fields (a file part is refused), ' +
    'text under `raw_body`, other bytes under `raw_body_base64`. One run per hook on the topic is kept in one atomic write before the answer; ' +
    'a topic with no hooks is accepted with `runs: 0`, `unrouted: true` and a message naming the topic; the event is kept under GET /api/unrouted.',
  params: topicParams,
  body: anyBody,
  bodyOptional: true,
  bodyContentType: '*/*',
  answers: {
    200: answer('Kept (`accepted`, with the number of runs), or a delivery id already seen (`duplicate`, nothing kept)', DoorAccepted),
    400: answer(
      'The topic does not match ^[a-z0-9][a-z0-9_-]*$ (at most 128 characters), or the body does not parse as its declared type, nests too deep, or carries a file',
      DoorRejected,
    ),
    401: doorError('Verification failed (constant message)'),
    ...DOOR_FAILS('per client and per topic'),
    500: doorError('`accept failed`: the store refused or could not be reached; nothing was kept and no delivery id claimed (retry)'),
    503: doorError(
      '`accept outcome unknown`: the keep was sent and no answer came; it may be kept. Retry with the same delivery id: a duplicate if it was kept',
    ),
  },
});

export const verifierHandshake = route({
  method: 'GET',
  base: '',
  path: '/universal_webhook/:topic',
  role: 'public',
  security: OPEN,
  beforeExpress: true,
  tag: 'door',
  operationId: 'verifierHandshake',
  summary: "A verifier's GET handshake",
  description: 'Answered only when the topic has a verifier binding whose kind uses a GET handshake; 405 otherwise.',
  params: topicParams,
  answers: { 200: bare('Handshake answered'), 405: doorError('No GET handshake on this topic') },
});

export const fireTriggerLink = route({
  method: 'POST',
  base: '',
  path: '/trigger/:token',
  role: 'public',
  security: OPEN,
  tag: 'door',
  operationId: 'fireTriggerLink',
  summary: "Fire a trigger link's hook",
  description:
    'For senders that cannot sign a body. The token is the credential, found by its SHA-256 (no string compare). The body is read, capped and parsed as at ' +
    "the public door (a file part is refused), then one run of the link's hook alone is kept (door `trigger`, not verified, `trigger_link` its id) and " +
    'the use counted in the same store step as the check, so max_uses holds under concurrency. A trigger run can never answer an approval.',
  params: Type.Object({ token: Type.String({ description: "The trigger link's token, as shown once when the link was made" }) }),
  body: anyBody,
  bodyOptional: true,
  bodyContentType: '*/*',
  answers: {
    200: answer('Kept: `{"status":"accepted","runs":1,...}`', DoorAccepted),
    400: answer('The body does not parse as its declared type, nests too deep, or carries a file (no use spent)', DoorRejected),
    404: doorError('A wrong, revoked, expired or used-up token, or a link whose hook is gone: one fixed body for all'),
    ...DOOR_FAILS('per client and per link'),
    405: doorError('Not POST'),
    500: doorError('`accept failed`: nothing was kept; the use was given back when the keep was never sent (a keep the store refused leaves it spent)'),
    503: doorError('`accept outcome unknown`: the keep was sent and no answer came; it may be kept (the use stays counted; GET /api/hook-runs?hook= tells)'),
  },
});

const LINK_ANSWERS = {
  200: html('The confirmation page (GET), or the answer recorded (POST)'),
  403: html('The link is not valid (one fixed page whatever was wrong)'),
  404: html('Approval links are not enabled (HOOKS_APPROVAL_LINK_SECRET unset)'),
  409: html('Already answered (naming who, how and when), or expired'),
  500: html('Nothing was answered (logged)'),
};
const LINK_GET =
  'No token: the HMAC-SHA256 signature over the id, the verdict, the expiry and the issuer (key HOOKS_APPROVAL_LINK_SECRET) is the credential, checked in constant time. ' +
  'A link without an issuer (made before links named one) is refused (403). ' +
  'GET never answers (chat apps fetch links to preview them): it shows what is asked and a button that POSTs.';
const LINK_POST =
  'Answers the approval once (via link, by "signed link issued to <issuer>, used from <address> (<user agent>)"); a second POST is 409. Form field `reason` is optional.';
const LINK_PARAMS = Type.Object({ id: Type.String({ description: 'Interaction id (an approval)' }) });
const LINK_QUERY = Type.Object({
  exp: Type.String({ description: 'When the link stops working (epoch seconds, signed)' }),
  by: Type.String({
    description: 'Whom the link was issued to (signed): `<role>:<token id>` (GET /api/interactions/{id}) or `hook:<name>` (the request event)',
  }),
  sig: Type.String({ description: 'The link signature' }),
});

const link = (verdict: 'approve' | 'deny', method: 'GET' | 'POST') =>
  route({
    method,
    base: '',
    path: `/approvals/:id/${verdict}`,
    role: 'public',
    security: OPEN,
    tag: 'approvals',
    operationId: `${verdict}Link${method === 'GET' ? 'Page' : ''}`,
    summary: method === 'GET' ? `Signed ${verdict} link: a confirmation page (changes nothing)` : `Signed ${verdict} link: answers the approval (once)`,
    description: method === 'GET' ? LINK_GET : LINK_POST,
    params: LINK_PARAMS,
    query: LINK_QUERY,
    ...(method === 'POST'
      ? {
          body: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }),
          bodyOptional: true as const,
          bodyContentType: 'application/x-www-form-urlencoded',
        }
      : {}),
    answers: LINK_ANSWERS,
  });

const ops = (path: string, operationId: string, summary: string, answers: Record<number, Answer>, description?: string): RouteDecl => ({
  method: 'GET',
  base: '',
  path,
  role: 'public',
  security: OPEN,
  tag: 'ops',
  operationId,
  summary,
  ...(description ? { description } : {}),
  answers,
});

const AGENT_DOOR =
  'MCP over streamable HTTP (protocol revisions 2025-06-18 and 2025-11-25, the SDK negotiates) for agent clients: an agent token ' +
  '(POST /api/agents makes one; a management token is 401), checked on every request, so a revoked or rotated token is refused at once and its sessions closed. ' +
  'Host and Origin must name loopback or the host of HOOKS_PUBLIC_URL (DNS-rebinding protection). A session (Mcp-Session-Id) is bound to the agent that opened it. ' +
  'tools/list serves the agent\'s visible tools (deployment ∩ agent ∩ the Hookyard-Tools-Allow header or _meta "hookyard/tools_allow"), 100 a page; ' +
  'every tools/call is kept as a run (door `agent`) and answered with its outcome, a denial sentence (isError), or, while it waits for approval, a result ' +
  'naming the run, the approval and the idempotency key that fetches the outcome (or an MCP task, when params.task asks for one).';

const MCP_COMMON: Record<number, Answer> = {
  401: {
    description:
      'No agent token, a wrong, revoked or rotated one, a management token, or (HOOKS_OIDC_ISSUER) an access token that does not verify for this resource',
    headers: {
      'WWW-Authenticate': {
        schema: { type: 'string' },
        description:
          'Bearer realm="hookyard" (error="invalid_token" when a token was sent); with HOOKS_OIDC_ISSUER, Bearer resource_metadata="<the RFC 9728 metadata URL>", scope="hookyard:agent" (and error="invalid_token", error_description when a token was sent)',
      },
    },
    schema: Type.Unsafe({ $ref: '#/components/schemas/Error' }),
  },
  403: rpc('The Host or Origin names another site'),
  404: rpc("The session id is unknown, closed, or another agent's (-32001 Session not found)"),
  429: { ...rpc("The agent's flood bucket is empty (HOOKS_AGENT_RATE, HOOKS_AGENT_BURST)"), headers: RETRY_AFTER },
};

const mcp = (
  method: 'GET' | 'POST' | 'DELETE',
  operationId: string,
  summary: string,
  description: string,
  answers: Record<number, Answer>,
  body?: RouteDecl['body'],
): RouteDecl => ({
  method,
  base: '',
  path: '/mcp',
  role: 'agent',
  agentDoor: true,
  // Taken off at the app's entry, as the public door (agent/mcp-mount.ts).
  beforeExpress: true,
  // An agent token, not a management one.
  security: [{ agentToken: [] }],
  tag: 'agents',
  operationId,
  summary,
  description,
  ...(body ? { body } : {}),
  answers: { ...answers, ...MCP_COMMON },
});

/** The routes outside /api, declared for the document and the guard. */
export const SERVICE_ROUTES: readonly RouteDecl[] = [
  deliverEvent,
  verifierHandshake,
  fireTriggerLink,
  link('approve', 'GET'),
  link('approve', 'POST'),
  link('deny', 'GET'),
  link('deny', 'POST'),
  ops('/healthz', 'healthz', 'The process answers', { 200: answer('Alive', Type.Object({ status: Type.Unsafe<'ok'>({ type: 'string', enum: ['ok'] }) })) }),
  ops('/readyz', 'readyz', 'The store and co-hosted roles answer (within 800 ms); the bus is not required', {
    200: answer(
      'Ready; `degraded` names a bus out of reach (events are kept, the sweep dispatches them later)',
      Type.Object({ status: Type.Unsafe<'ready'>({ type: 'string', enum: ['ready'] }), degraded: Type.Optional(Type.String()) }),
    ),
    503: answer('Not ready, with the reason', Type.Object({ status: Type.Unsafe<'unready'>({ type: 'string', enum: ['unready'] }), reason: Type.String() })),
  }),
  ops('/metrics', 'metrics', 'Prometheus metrics (prefix tai42_hook_runs_)', { 200: answer('Prometheus text exposition format', Type.String(), 'text/plain') }),
  ops('/openapi.json', 'openapi', 'This document', { 200: answer('OpenAPI 3.0 document', Type.Unsafe<Record<string, unknown>>({ type: 'object' })) }),
  ops(
    '/console',
    'console',
    'The operator console (a browser page; sign in with a management token)',
    { 200: html('The console page'), 503: bare('The console assets were not built') },
    'Static assets built by `pnpm build`, under a strict Content-Security-Policy. The page holds nothing secret; it calls this API with the ' +
      "bearer token pasted at sign-in (kept in session storage) and shows only what the token's role may do. 503 when the assets were not built.",
  ),
  ops(
    '/favicon.ico',
    'favicon',
    "The console's icon",
    { 200: answer('An SVG icon (image/svg+xml, whatever the name says)', Type.String(), 'image/svg+xml'), 503: bare('The console assets were not built') },
    "The icon the console page links (under /console/assets), also here where browsers and tools look for a site's icon by default; on both ports when HOOKS_ADMIN_PORT splits them.",
  ),
  ops(
    '/console/sso.json',
    'consoleSso',
    "How the console signs a person in at the IdP (public, like the IdP's own metadata)",
    {
      200: answer('The single sign-on config, or null', Type.Object({ sso: Type.Unsafe<ConsoleSsoConfig | null>({ ...ConsoleSso, nullable: true }) })),
    },
    '`{"sso": null}` without HOOKS_OIDC_CONSOLE_CLIENT_ID (or while the IdP metadata cannot be read); else the issuer, the console\'s public ' +
      'client id, the API audience to ask for (`resource`), the authorization and token endpoints and the scopes.',
  ),
  mcp(
    'POST',
    'mcpPost',
    'Send MCP JSON-RPC messages (initialize opens a session)',
    AGENT_DOOR,
    {
      200: bare('The answers, as JSON or an SSE stream (text/event-stream) carrying progress notifications first'),
      202: bare('Notifications or responses only: accepted'),
      400: rpc('Not JSON (-32700), nested deeper than the cap, not JSON-RPC, or no session id on a request other than initialize'),
      406: rpc('Accept must list application/json and text/event-stream'),
      413: rpc('Body larger than HOOKS_API_BODY_MAX_BYTES'),
      415: rpc('Content-Type must be application/json'),
    },
    Type.Unknown({ description: 'A JSON-RPC message or batch' }),
  ),
  mcp(
    'GET',
    'mcpStream',
    "Open the session's stream of server notifications (notifications/tools/list_changed)",
    'The streamable HTTP GET of a session (see POST /mcp).',
    {
      200: bare('An SSE stream'),
      400: rpc('No session id'),
      409: rpc('The session already has its stream open'),
    },
  ),
  mcp('DELETE', 'mcpEndSession', 'End the session', 'The streamable HTTP DELETE of a session (see POST /mcp).', {
    200: bare('Ended'),
    400: rpc('No session id'),
  }),
];
