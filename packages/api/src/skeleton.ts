import { Type } from '@sinclair/typebox';
import { ERROR_KIND_NAMES, Enum } from './routes/hooks-shared';

type Obj = Record<string, unknown>;

/** The body of every management API error: `{"error": {"kind", "message", "details"?}}`. */
export const ApiError = Type.Object(
  {
    error: Type.Object({
      kind: Enum(ERROR_KIND_NAMES),
      message: Type.String(),
      details: Type.Optional(Type.Array(Type.String(), { description: 'One line per miss (e.g. every refused field of a registration)' })),
    }),
  },
  { $id: 'Error' },
);

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string): Obj => ({ description, content: { 'application/json': { schema: ERROR_REF } } });

/** The shared error answers routes refer to as `#/components/responses/E<status>`. */
export const ERROR_RESPONSES: Obj = {
  E400: errorResponse('bad_input: one line per miss in details'),
  E401: errorResponse('unauthorized: missing or unknown bearer token'),
  E403: errorResponse("forbidden: the token's role is too low, or an agent token on a route outside the agent door"),
  E404: errorResponse('not_found'),
  E409: errorResponse('conflict: the state forbids it (the message says why)'),
  E503: errorResponse('unavailable: a dependency is out of reach or a limit is reached; retry later'),
  E429: { ...errorResponse('Too many management requests'), headers: { 'Retry-After': { schema: { type: 'integer' } } } },
  E500: errorResponse('internal (the body says nothing about the cause; it is logged)'),
};

/** The document around the paths: what it is, its tags and how a caller authenticates. */
export const SKELETON = {
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
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'A management token from HOOKS_API_TOKENS' },
    agentToken: { type: 'http', scheme: 'bearer', description: 'An agent token (made by POST /api/agents); it reaches only the agent door' },
  },
};
