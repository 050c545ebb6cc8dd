import { ERROR_KINDS, FINGERPRINT_PATTERN } from '@hookyard/core';
import type { PathBuilders } from './path-builders';

type Obj = Record<string, unknown>;

const isoTime = { type: 'string', format: 'date-time' };
const fingerprint = { type: 'string', pattern: FINGERPRINT_PATTERN.source };

/** The failure groups' schemas (GET /api/hook-runs/failures). */
export const FAILURE_SCHEMAS: Obj = {
  FailureGroup: {
    type: 'object',
    description: 'The failed runs of one hook with one error kind and one message fingerprint',
    required: ['hook', 'agent', 'kind', 'fingerprint', 'pattern', 'sample_message', 'sample_run', 'count', 'first_seen', 'last_seen'],
    additionalProperties: false,
    properties: {
      hook: { type: 'string', description: "The runs' hook (an agent's calls: agent:<name>)" },
      agent: { type: 'string', nullable: true, description: "The agent whose calls these are; null for a hook's runs" },
      kind: { type: 'string', enum: [...ERROR_KINDS] },
      fingerprint: {
        ...fingerprint,
        description: 'SHA-256 (16 hex) of the masked message: numbers, ids, UUIDs, times, IPs with ports, URL hosts and query values, emails masked',
      },
      pattern: { type: 'string', description: 'The masked message the runs share, e.g. "connect ECONNREFUSED <ip>"' },
      sample_message: { type: 'string', description: "The newest run's message, as it was" },
      sample_run: { type: 'string', description: "The newest run's id (GET /api/hook-runs/{id})" },
      count: { type: 'integer', minimum: 1, description: 'Failed runs of the group in the window' },
      first_seen: { ...isoTime, description: 'When the earliest run in the window failed' },
      last_seen: { ...isoTime, description: 'When the latest run failed' },
    },
  },
  FailureGroups: {
    type: 'object',
    required: ['groups', 'group_count', 'window'],
    additionalProperties: false,
    properties: {
      groups: { type: 'array', items: { $ref: '#/components/schemas/FailureGroup' }, description: 'Most runs first, then the latest seen' },
      group_count: { type: 'integer', minimum: 0, description: 'Groups in the window (more than groups holds when limit cut the list)' },
      window: {
        type: 'object',
        required: ['max', 'scanned', 'cut', 'oldest'],
        additionalProperties: false,
        properties: {
          max: { type: 'integer', minimum: 1, maximum: 5000, description: 'The most failed runs scanned (the window query parameter)' },
          scanned: { type: 'integer', minimum: 0, description: 'Failed runs scanned, newest first; each is counted in a group' },
          cut: { type: 'boolean', description: 'More failed runs match than were scanned: older ones are not counted' },
          oldest: { ...isoTime, nullable: true, description: 'When the oldest scanned run was kept; null when none was' },
        },
      },
    },
  },
};

/** `GET /api/hook-runs/failures`: failed runs grouped by cause (reader). */
export function failurePaths(b: PathBuilders): Obj {
  return {
    '/api/hook-runs/failures': {
      get: b.op(
        'reader',
        'Failed runs grouped by hook, error kind and message fingerprint',
        { '200': b.answer('The groups and the window scanned', b.ref('FailureGroups')), ...b.fail(400) },
        {
          tags: ['runs'],
          operationId: 'listFailureGroups',
          description:
            'Needs the reader role. Scans the newest `window` failed runs (held for an operator) that match the filters, newest first, and groups them; ' +
            '`window.cut` says when older failed runs were left out. Retry or discard one group with POST /api/hook-runs/retry|discard and ' +
            'filter {status: failed, hook (or agent), kind, fingerprint}.',
          parameters: [
            { name: 'hook', in: 'query', schema: b.ref('Name') },
            { name: 'agent', in: 'query', description: "An agent's calls (not with hook)", schema: b.ref('Name') },
            { name: 'kind', in: 'query', description: 'Only failures of this error kind', schema: { type: 'string', enum: [...ERROR_KINDS] } },
            { name: 'fingerprint', in: 'query', description: 'Only failures with this message fingerprint', schema: fingerprint },
            { name: 'since', in: 'query', description: 'ISO 8601: runs created at or after', schema: { type: 'string' } },
            {
              name: 'window',
              in: 'query',
              description: 'How many of the newest failed runs to scan',
              schema: { type: 'integer', minimum: 1, maximum: 5000, default: 5000 },
            },
            { name: 'limit', in: 'query', description: 'Groups answered', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          ],
        },
      ),
    },
  };
}
