import { AGENT_TOKEN_PREFIX, ALLOWLIST_ENTRY_PATTERN } from '@hookyard/core';

type Obj = Record<string, unknown>;

/** The builders document.ts describes its operations with (passed in, so this file does not import document.ts). */
export interface PathBuilders {
  op(role: 'reader' | 'operator' | 'admin', summary: string, responses: Obj, extra?: Obj): Obj;
  answer(description: string, schema: Obj): Obj;
  fail(...codes: number[]): Obj;
  ref(name: string): Obj;
  pathParam(name: string, description: string, schema?: Obj): Obj;
  body(schema: Obj): Obj;
}

const isoTime = { type: 'string', format: 'date-time' };
const allowEntry = { type: 'string', pattern: ALLOWLIST_ENTRY_PATTERN.source };
const identities = {
  type: 'array',
  maxItems: 20,
  description:
    "IdP identities that act as this agent with an OAuth access token for the agent door (HOOKS_OIDC_ISSUER): the token's issuer, and its `sub` (subject) and/or its `client_id`/`azp` (client_id); at least one of the two",
  items: {
    type: 'object',
    required: ['issuer'],
    additionalProperties: false,
    properties: { issuer: { type: 'string', format: 'uri' }, subject: { type: 'string', minLength: 1 }, client_id: { type: 'string', minLength: 1 } },
  },
};

/** The agent principals' schemas (GET/POST /api/agents). */
export const AGENT_SCHEMAS: Obj = {
  Agent: {
    type: 'object',
    description: 'An agent principal: never its token (shown once, when made or rotated; kept only as its SHA-256)',
    required: ['id', 'name', 'description', 'tools_allow', 'token_id', 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        description:
          "Made when the agent is made and never changed: its calls, idempotency keys, tasks and sessions belong to it, so an agent made again under a revoked one's name inherits none of them. An agent made before ids existed has its name as id",
      },
      name: { $ref: '#/components/schemas/Name' },
      description: { type: 'string', nullable: true },
      tools_allow: {
        type: 'array',
        minItems: 1,
        items: allowEntry,
        description: "The agent's own allowlist (`*`, exact names, `!name`): what it may list and call is HOOKS_TOOLS_ALLOW ∩ this ∩ a caller's runtime list",
      },
      token_id: {
        type: 'string',
        pattern: '^[0-9a-f]{8}$',
        description: "The first 8 hex chars of the token's SHA-256: tells tokens apart without showing one",
      },
      created_at: isoTime,
      updated_at: { ...isoTime, description: 'Changes when the token is rotated' },
      identities,
    },
  },
  AgentInput: {
    type: 'object',
    required: ['name', 'tools_allow'],
    additionalProperties: false,
    properties: {
      name: { $ref: '#/components/schemas/Name' },
      description: { type: 'string', maxLength: 500, nullable: true },
      tools_allow: { type: 'array', minItems: 1, maxItems: 200, items: allowEntry },
      identities,
    },
  },
  AgentWithToken: {
    type: 'object',
    required: ['agent', 'token'],
    properties: {
      agent: { $ref: '#/components/schemas/Agent' },
      token: {
        type: 'string',
        pattern: `^${AGENT_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`,
        description: `\`${AGENT_TOKEN_PREFIX}\` and 256 random bits, base64url: shown in this answer only. It reaches only the agent door, never the management API`,
      },
    },
  },
};

/** `/api/agents...`: agent principals, admin only. */
export function agentPaths(b: PathBuilders): Obj {
  const name = b.pathParam('name', 'Agent name');
  const revokes = 'The old token is refused from its next request on, and the MCP door closes the sessions opened with it.';
  return {
    '/api/agents': {
      get: b.op(
        'admin',
        'Every agent principal, by name (never a token)',
        { '200': b.answer('Agents', { type: 'object', required: ['agents'], properties: { agents: { type: 'array', items: b.ref('Agent') } } }) },
        { tags: ['agents'], operationId: 'listAgents' },
      ),
      post: b.op(
        'admin',
        'Make an agent principal with its own tool allowlist; its token is answered once',
        { '201': b.answer('Made: the token is shown here once', b.ref('AgentWithToken')), ...b.fail(400, 409) },
        {
          tags: ['agents'],
          operationId: 'createAgent',
          description: 'Needs the admin role. 400 names every bad or unknown field (a bad tools_allow entry by its index); 409 when the name is taken.',
          requestBody: b.body(b.ref('AgentInput')),
        },
      ),
    },
    '/api/agents/{name}': {
      parameters: [name],
      get: b.op(
        'admin',
        'One agent principal (never its token)',
        { '200': b.answer('The agent', b.ref('Agent')), ...b.fail(404) },
        { tags: ['agents'], operationId: 'getAgent' },
      ),
      delete: b.op(
        'admin',
        'Revoke an agent at once',
        {
          '204': {
            description: `Revoked. ${revokes} Its calls waiting on an approval end denied ("agent revoked"); the name is free again, and an agent made under it has a new id and none of these calls.`,
          },
          ...b.fail(404),
        },
        { tags: ['agents'], operationId: 'revokeAgent' },
      ),
    },
    '/api/agents/{name}/rotate': {
      parameters: [name],
      post: b.op(
        'admin',
        'Give an agent a new token (answered once); the old one stops working at once',
        { '200': b.answer(`Rotated. ${revokes}`, b.ref('AgentWithToken')), ...b.fail(400, 404) },
        { tags: ['agents'], operationId: 'rotateAgent' },
      ),
    },
  };
}
