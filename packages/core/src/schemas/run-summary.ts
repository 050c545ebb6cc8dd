import { ERROR_KINDS } from '../errors';
import { NAME_MAX_LENGTH, NAME_PATTERN_SOURCE } from '../names';
import { RUN_STATUSES } from '../types';

const name = { type: 'string', pattern: NAME_PATTERN_SOURCE, maxLength: NAME_MAX_LENGTH } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;

/**
 * What `<prefix>.events.run.<status>.<hook>` carries (RunSummary of
 * @hookyard/bus): one message each time a run reaches succeeded, skipped or
 * failed. Core NATS, at most once: a subscriber that was away misses it (the
 * management API has the run).
 */
export const RUN_SUMMARY_SCHEMA = {
  title: 'RunSummary',
  type: 'object',
  required: ['run_id', 'hook', 'topic', 'status', 'attempts', 'error_kind', 'error_message', 'created_at', 'finished_at', 'duration_ms'],
  additionalProperties: false,
  properties: {
    run_id: { type: 'string', minLength: 1 },
    hook: name,
    topic: name,
    status: { type: 'string', enum: [...RUN_STATUSES] },
    attempts: { type: 'integer', minimum: 0 },
    error_kind: { oneOf: [{ type: 'string', enum: [...ERROR_KINDS] }, { type: 'null' }] },
    error_message: { type: ['string', 'null'] },
    created_at: isoTime,
    finished_at: { oneOf: [isoTime, { type: 'null' }] },
    duration_ms: { description: 'From the start of the last attempt (or creation) to the finish', type: ['number', 'null'], minimum: 0 },
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
