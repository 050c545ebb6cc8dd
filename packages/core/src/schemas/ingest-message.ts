import { NAME_MAX_LENGTH, NAME_PATTERN_SOURCE } from '../names';

/**
 * The body of a message on `<prefix>.ingest.<topic>`. Any bytes are accepted
 * and read by their Content-Type exactly as the HTTP door reads them; this
 * schema describes the common case, a JSON object (the run payload as sent).
 */
export const INGEST_EVENT_SCHEMA = {
  title: 'IngestEvent',
  description:
    'Any bytes, read by the Content-Type header as the HTTP door reads a body. A JSON object ' +
    '(Content-Type application/json or *+json; also assumed when the header is absent) becomes the payload of ' +
    'one run per hook on the topic. Other JSON is kept as {"body": value}, text/* as {"raw_body": text}, ' +
    'form data as its fields, anything else as {"raw_body_base64": "..."}. A body that does not parse as its ' +
    'declared type is rejected (acknowledged, never redelivered, counted and logged).',
  type: 'object',
  additionalProperties: true,
} as const;

/** The NATS headers the ingest door reads; every other header is ignored. */
export const INGEST_HEADERS_SCHEMA = {
  title: 'IngestHeaders',
  type: 'object',
  properties: {
    'Nats-Msg-Id': {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description:
        "The sender's delivery id. Hookyard claims it per topic (HOOKS_NATS_DEDUPE_SECONDS, default 24 h), so a " +
        "resend keeps nothing and is acknowledged as a duplicate; JetStream's own window spans every topic and is " +
        'kept at its 100 ms minimum. Without it every message is a new event.',
    },
    'Content-Type': {
      type: 'string',
      default: 'application/json',
      description: 'How to read the body (see IngestEvent). application/json when absent.',
    },
    traceparent: {
      type: 'string',
      description:
        "W3C trace context of the sender's span. With tracing on (OTEL_* variables) the ingest span continues it " +
        '(a malformed one starts a trace) and the kept runs carry that trace; ignored with tracing off.',
    },
  },
  additionalProperties: { type: 'string' },
} as const;

/** The topic is the subject after `<prefix>.ingest.`: one token matching the name pattern. */
export const INGEST_TOPIC_SCHEMA = {
  title: 'Topic',
  type: 'string',
  pattern: NAME_PATTERN_SOURCE,
  maxLength: NAME_MAX_LENGTH,
} as const;
