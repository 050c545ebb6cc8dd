import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { UnroutedEvent, UnroutedTopic } from './agents-shared';
import { NAME_MAX, NAME_PATTERN } from './hooks-shared';
import { WholeNumber } from './runs-shared';

const Topic = Type.Object({
  topic: Type.String({
    description: 'Topic',
    pattern: NAME_PATTERN,
    maxLength: NAME_MAX,
    'x-error': { maxLength: `topic must be at most ${NAME_MAX} characters`, '*': `topic {got} must match ${NAME_PATTERN}` },
  }),
});
/** A bad topic in the path is a 400 whose message says it. */
const TOPIC_REFUSED = { refused: 'unrouted topic refused', linesInMessage: true } as const;
const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

export const listUnroutedTopics = route({
  method: 'GET',
  path: '/unrouted',
  role: 'reader',
  operationId: 'listUnroutedTopics',
  tag: 'unrouted',
  summary: 'Topics with events that came in while no hook was registered on them',
  query: Type.Object({}, { additionalProperties: false }),
  refused: 'GET /api/unrouted takes no query parameters',
  answers: {
    200: answer(
      'The topic seen last first, with the bounds they are kept within (HOOKS_UNROUTED_*)',
      Type.Object({
        topics: Type.Array(UnroutedTopic),
        bounds: Type.Object({
          keep: Type.Integer(),
          topics: Type.Integer(),
          retention_seconds: Type.Number(),
          max_bytes: Type.Integer({ description: 'HOOKS_UNROUTED_MAX_BYTES: all kept events together' }),
          event_max_bytes: Type.Integer({ description: 'HOOKS_UNROUTED_EVENT_MAX_BYTES: one kept event' }),
        }),
        usage: Type.Object({
          events: Count('Events kept, every topic'),
          bytes: Count('Bytes of their JSON, at most max_bytes'),
          dropped: Count('Events dropped (oldest first) to stay within max_bytes'),
        }),
      }),
    ),
  },
  errors: [400],
});

export const listUnrouted = route({
  method: 'GET',
  path: '/unrouted/:topic',
  role: 'reader',
  operationId: 'listUnrouted',
  tag: 'unrouted',
  summary: "A topic's unrouted events, newest first",
  params: Topic,
  query: Type.Object(
    { limit: Type.Optional(WholeNumber(500, 50)), cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })) },
    { additionalProperties: false },
  ),
  knownInRefusal: true,
  ...TOPIC_REFUSED,
  answers: {
    200: answer(
      'One page; pass next_cursor back as cursor for older events',
      Type.Object({ topic: Type.String(), events: Type.Array(UnroutedEvent), next_cursor: Type.Unsafe<string | null>({ type: 'string', nullable: true }) }),
    ),
  },
  errors: [400],
});

export const replayUnrouted = route({
  method: 'POST',
  path: '/unrouted/:topic/replay',
  role: 'operator',
  operationId: 'replayUnrouted',
  tag: 'unrouted',
  summary: "Replay a topic's unrouted events to the hooks registered on it since",
  description: '409 when still no hook is registered on the topic: register one first.',
  params: Topic,
  ...TOPIC_REFUSED,
  answers: {
    200: answer(
      'One run per hook for each event kept (door api, not verified, as a replay of a run); the replayed events are removed',
      Type.Object({
        topic: Type.String(),
        replayed: Count('Events replayed (and removed)'),
        runs: Count(),
        run_ids: Type.Array(Type.String()),
        hooks: Type.Array(Type.String()),
        skipped_truncated: Count('Events kept truncated (payload_truncated): not replayed, still listed; message says what to do'),
        message: Type.Optional(Type.String({ description: 'With skipped_truncated > 0: why they were not replayed' })),
      }),
    ),
  },
  errors: [400, 409],
  audit: 'unrouted.replay',
});

export const dropUnrouted = route({
  method: 'DELETE',
  path: '/unrouted/:topic',
  role: 'operator',
  operationId: 'dropUnrouted',
  tag: 'unrouted',
  summary: "Drop a topic's unrouted events",
  params: Topic,
  ...TOPIC_REFUSED,
  answers: { 200: answer('How many were dropped', Type.Object({ topic: Type.String(), removed: Count() })) },
  errors: [400],
  audit: 'unrouted.drop',
});

export const UNROUTED_ROUTES = [listUnroutedTopics, listUnrouted, replayUnrouted, dropUnrouted] as const;
