import { RunEvent } from '@hookyard/api';
import { MESSAGE_SCHEMAS, type MessageKind } from '@hookyard/core';

/** The names docs/asyncapi.yaml gives the message schemas (components.schemas), and core's kind of each. */
const NAMES: Record<string, MessageKind> = {
  Topic: 'topic',
  IngestHeaders: 'ingest_headers',
  IngestEvent: 'ingest_event',
  RunSummary: 'run_summary',
  HooksRunFailedEvent: 'run_failed_event',
};

/** A plain JSON copy of a schema: TypeBox's symbol keys and `$id` dropped. */
function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).flatMap(([k, v]) => (k === '$id' ? [] : [[k, plain(v)]])));
}

/**
 * components.schemas of the AsyncAPI description (docs/asyncapi.yaml), generated: the run event's is the
 * API's declared RunEvent (the `data` of GET /api/events), the others core's message schemas, which the
 * consumers and producers validate with. The command in test/nats/asyncapi.test.ts writes them into the file.
 */
export const ASYNCAPI_SCHEMAS: Record<string, unknown> = Object.fromEntries(
  Object.entries(NAMES).map(([name, kind]) => [name, plain(kind === 'run_summary' ? RunEvent : MESSAGE_SCHEMAS[kind])]),
);
