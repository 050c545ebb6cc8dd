import type { PathBuilders } from './path-builders';

type Obj = Record<string, unknown>;

const isoTime = { type: 'string', format: 'date-time' };
const anyJson = { nullable: true, description: 'A record as JSON (secrets never kept)' };

/** The audit trail's schemas (GET /api/audit). */
export const AUDIT_SCHEMAS: Obj = {
  AuditEntry: {
    type: 'object',
    description:
      'One operator or admin change (or a refused attempt: see status). Never holds a secret: tokens, signatures, URL passwords and values under secret-shaped keys are `[redacted]`.',
    required: ['id', 'at', 'actor', 'action', 'target', 'client', 'status', 'request'],
    properties: {
      id: { type: 'string', pattern: '^[0-9a-z]{22}$', description: 'Time-sortable' },
      at: isoTime,
      actor: {
        type: 'object',
        required: ['kind', 'role', 'label'],
        properties: {
          kind: { type: 'string', enum: ['token', 'agent', 'link'] },
          role: { type: 'string', enum: ['reader', 'operator', 'admin'], nullable: true },
          label: {
            type: 'string',
            description: "`<role>:<first 8 hex of the token's SHA-256>`, `agent:<name>` or `link:<interaction id>` (a signed approval link)",
          },
        },
      },
      action: {
        type: 'string',
        description: 'e.g. hook.register, policy.update, interaction.approve; a route not named is recorded as `<METHOD> /api/<route>`',
      },
      target: { type: 'string', nullable: true, description: 'What was acted on: a hook or tool name, a run or interaction id, a topic…' },
      client: { type: 'string', description: "The client's address (HOOKS_TRUSTED_PROXIES)" },
      status: {
        type: 'integer',
        description: 'The HTTP status the request was answered with; a refusal (4xx) keeps no before/after and is bounded apart from the changes',
      },
      request: { type: 'object', properties: { method: { type: 'string' }, path: { type: 'string' } } },
      before: { ...anyJson, description: 'The record before the change (null: there was none), where one applies' },
      after: { ...anyJson, description: 'The record after the change (null: it is gone), where one applies' },
      detail: { ...anyJson, description: 'A reason, a bulk selection and its counts, the variables a reload applied' },
    },
  },
};

/** `GET /api/audit`. */
export function auditPaths(b: PathBuilders): Obj {
  const query = (name: string, description: string, schema: Obj = { type: 'string' }) => ({ name, in: 'query', description, schema });
  return {
    '/api/audit': {
      get: b.op(
        'admin',
        'The audit trail: every operator and admin change, newest first',
        {
          '200': b.answer('One page; pass next_cursor back as cursor for older entries', {
            type: 'object',
            required: ['entries', 'next_cursor', 'retention_days', 'max_entries', 'max_refused'],
            properties: {
              entries: { type: 'array', items: b.ref('AuditEntry') },
              next_cursor: { type: 'string', nullable: true },
              retention_days: { type: 'number', description: 'HOOKS_AUDIT_RETENTION_DAYS' },
              max_entries: { type: 'integer', description: 'HOOKS_AUDIT_MAX_ENTRIES: most changes kept' },
              max_refused: { type: 'integer', description: 'HOOKS_AUDIT_MAX_REFUSED: most refused attempts (4xx) kept, apart from the changes' },
            },
          }),
          ...b.fail(400),
        },
        {
          tags: ['audit'],
          operationId: 'listAudit',
          parameters: [
            query('action', 'An exact action (hook.register) or a family (hook.*)'),
            query('actor', 'A label (operator:1a2b3c4d, agent:ci-bot, link:<id>), a role, or a kind (token, agent, link)'),
            query('target', 'An exact target'),
            query('since', 'Entries at or after this ISO 8601 time', isoTime),
            query('until', 'Entries at or before this ISO 8601 time', isoTime),
            query('limit', 'Entries per page', { type: 'integer', minimum: 1, maximum: 500, default: 50 }),
            query('cursor', "A page's next_cursor"),
          ],
        },
      ),
    },
  };
}
