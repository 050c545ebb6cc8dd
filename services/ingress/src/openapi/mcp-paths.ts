/** The agent door's MCP endpoint in the OpenAPI document (`/mcp`): the HTTP side only, MCP itself is the protocol's own. */

type Obj = Record<string, unknown>;

const RPC_ERROR: Obj = {
  type: 'object',
  description: 'A JSON-RPC error with no id, as the MCP SDK answers a request it refuses before reading it',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
    id: { nullable: true, type: 'string' },
  },
};
/** Components the /mcp entries refer to. */
export const MCP_SCHEMAS: Obj = { JsonRpcError: RPC_ERROR };

const rpc = (description: string): Obj => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcError' } } } });

const AGENT_DOOR =
  'MCP over streamable HTTP (protocol revisions 2025-06-18 and 2025-11-25, the SDK negotiates) for agent clients: an agent token ' +
  '(POST /api/agents makes one; a management token is 401), checked on every request, so a revoked or rotated token is refused at once and its sessions closed. ' +
  'Host and Origin must name loopback or the host of HOOKS_PUBLIC_URL (DNS-rebinding protection). A session (Mcp-Session-Id) is bound to the agent that opened it. ' +
  'tools/list serves the agent\'s visible tools (deployment ∩ agent ∩ the Hookyard-Tools-Allow header or _meta "hookyard/tools_allow"), 100 a page; ' +
  'every tools/call is kept as a run (door `agent`) and answered with its outcome, a denial sentence (isError), or, while it waits for approval, a result ' +
  'naming the run, the approval and the idempotency key that fetches the outcome (or an MCP task, when params.task asks for one).';

const COMMON: Obj = {
  '401': {
    description:
      'No agent token, a wrong, revoked or rotated one, a management token, or (HOOKS_OIDC_ISSUER) an access token that does not verify for this resource',
    headers: {
      'WWW-Authenticate': {
        schema: { type: 'string' },
        description:
          'Bearer realm="hookyard" (error="invalid_token" when a token was sent); with HOOKS_OIDC_ISSUER, Bearer resource_metadata="<the RFC 9728 metadata URL>", scope="hookyard:agent" (and error="invalid_token", error_description when a token was sent)',
      },
    },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  },
  '403': rpc('The Host or Origin names another site'),
  '404': rpc("The session id is unknown, closed, or another agent's (-32001 Session not found)"),
  '429': { ...rpc("The agent's flood bucket is empty (HOOKS_AGENT_RATE, HOOKS_AGENT_BURST)"), headers: { 'Retry-After': { schema: { type: 'integer' } } } },
};

const op = (operationId: string, summary: string, extra: Obj): Obj => ({
  tags: ['agents'],
  operationId,
  summary,
  // An agent token, not a management one (agentToken in the document's security schemes).
  security: [{ agentToken: [] }],
  'x-hookyard-role': 'agent',
  ...extra,
});

export const MCP_PATHS: Obj = {
  '/mcp': {
    post: op('mcpPost', 'Send MCP JSON-RPC messages (initialize opens a session)', {
      description: AGENT_DOOR,
      requestBody: { required: true, content: { 'application/json': { schema: { description: 'A JSON-RPC message or batch' } } } },
      responses: {
        '200': { description: 'The answers, as JSON or an SSE stream (text/event-stream) carrying progress notifications first' },
        '202': { description: 'Notifications or responses only: accepted' },
        '400': rpc('Not JSON (-32700), nested deeper than the cap, not JSON-RPC, or no session id on a request other than initialize'),
        '406': rpc('Accept must list application/json and text/event-stream'),
        '413': rpc('Body larger than HOOKS_API_BODY_MAX_BYTES'),
        '415': rpc('Content-Type must be application/json'),
        ...COMMON,
      },
    }),
    get: op('mcpStream', "Open the session's stream of server notifications (notifications/tools/list_changed)", {
      description: 'The streamable HTTP GET of a session (see POST /mcp).',
      responses: { '200': { description: 'An SSE stream' }, '400': rpc('No session id'), '409': rpc('The session already has its stream open'), ...COMMON },
    }),
    delete: op('mcpEndSession', 'End the session', {
      description: 'The streamable HTTP DELETE of a session (see POST /mcp).',
      responses: { '200': { description: 'Ended' }, '400': rpc('No session id'), ...COMMON },
    }),
  },
};
