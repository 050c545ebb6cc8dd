import { ERROR_KINDS } from '../errors';
import { NAME_MAX_LENGTH, NAME_PATTERN_SOURCE } from '../names';
import { RUN_EVENT_TYPES, RUN_STATUSES } from '../types';

const name = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;

/**
 * What `<prefix>.events.run.<status>.<hook>` carries (RunSummary of
 * @hookyard/bus): one message per transition worth watching (`event`: kept,
 * started, parked, retry scheduled, an outcome, an operator's retry or
 * discard, woken by an answer). Core NATS, at most once: a subscriber that was
 * away misses it, and a busy publisher may drop some (the management API has
 * the run). The API's declared RunEvent is this schema (core depends on no
 * package, so it is written here in the same OpenAPI 3.0 dialect, `nullable`;
 * test/nats/asyncapi.test.ts holds the two equal).
 */
export const RUN_SUMMARY_SCHEMA = {
  title: 'RunSummary',
  type: 'object',
  required: [
    'run_id',
    'event',
    'at',
    'hook',
    'topic',
    'status',
    'attempts',
    'error_kind',
    'error_message',
    'created_at',
    'finished_at',
    'due_at',
    'duration_ms',
  ],
  additionalProperties: false,
  properties: {
    run_id: { type: 'string', minLength: 1 },
    event: {
      description:
        "What happened: accepted (kept by a door, a platform event or an operator's replay), started (claimed by an executor), parked (waiting on an interaction), " +
        'retry_scheduled (an attempt failed before the hook acted, or its lease lapsed; due_at says when the next is due), finished (an outcome: succeeded, skipped, denied, cancelled or failed), ' +
        'retried (an operator retried it), discarded (an operator discarded it), woken (its interaction was answered, resumed by a hook or expired: it is due again)',
      type: 'string',
      enum: [...RUN_EVENT_TYPES],
    },
    at: { description: 'When it happened', ...isoTime },
    hook: name,
    topic: name,
    status: { description: 'The status the run is in after the event', type: 'string', enum: [...RUN_STATUSES] },
    attempts: { type: 'integer', minimum: 0 },
    error_kind: { type: 'string', enum: [...ERROR_KINDS, null], nullable: true },
    error_message: { type: 'string', nullable: true },
    created_at: isoTime,
    finished_at: { ...isoTime, nullable: true },
    due_at: { description: 'When the next attempt is due (retry_scheduled), else null', ...isoTime, nullable: true },
    duration_ms: { description: 'From the start of the last attempt (or creation) to the finish', type: 'number', minimum: 0, nullable: true },
  },
} as const;

/**
 * The payload of the `hooks_run_failed` platform event: kept as a run's
 * payload for every hook registered on that topic, one per run held as failed.
 */
export const RUN_FAILED_EVENT_SCHEMA = {
  title: 'HooksRunFailedEvent',
  type: 'object',
  required: ['run_id', 'hook', 'topic', 'attempts', 'error', 'acted', 'failed_at'],
  additionalProperties: false,
  properties: {
    run_id: { type: 'string', minLength: 1 },
    hook: name,
    topic: name,
    attempts: { type: 'integer', minimum: 0 },
    error: {
      oneOf: [
        {
          type: 'object',
          required: ['kind', 'message'],
          properties: { kind: { type: 'string', enum: [...ERROR_KINDS] }, message: { type: 'string' } },
          additionalProperties: true,
        },
        { type: 'null' },
      ],
    },
    acted: { type: 'string', enum: ['', 'cancel', 'resume', 'take', 'start'] },
    failed_at: isoTime,
  },
} as const;
