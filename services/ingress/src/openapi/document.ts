import { MCP_PATHS, MCP_SCHEMAS } from './mcp-paths';
import { SCHEMAS } from './components';

type Obj = Record<string, unknown>;
const ref = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Obj): Obj => ({ 'application/json': { schema } });
const answer = (description: string, schema: Obj): Obj => ({ description, content: json(schema) });
const pathParam = (name: string, description: string, schema: Obj = ref('Name')): Obj => ({ name, in: 'path', required: true, description, schema });

const open = { security: [] };
const doorError = (description: string): Obj => answer(description, ref('DoorError'));

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
  ...MCP_PATHS,
};

/**
 * The hand-written paths of the routes not declared in @hookyard/api yet (the
 * door, trigger links, approval links, ops, /mcp): openapi/index.ts lays them
 * under the generated document (GET /openapi.json).
 */
export const LEGACY_DOCUMENT: Obj = { paths: PATHS, components: { schemas: { ...SCHEMAS, ...MCP_SCHEMAS } } };
