import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { INGEST_EVENT_SCHEMA, INGEST_HEADERS_SCHEMA, INGEST_TOPIC_SCHEMA } from './ingest-message';
import { RUN_FAILED_EVENT_SCHEMA, RUN_SUMMARY_SCHEMA } from './run-summary';

/** Every message schema by kind; docs/asyncapi.yaml carries the same objects. */
export const MESSAGE_SCHEMAS = {
  ingest_event: INGEST_EVENT_SCHEMA,
  ingest_headers: INGEST_HEADERS_SCHEMA,
  topic: INGEST_TOPIC_SCHEMA,
  run_summary: RUN_SUMMARY_SCHEMA,
  run_failed_event: RUN_FAILED_EVENT_SCHEMA,
} as const;

export type MessageKind = keyof typeof MESSAGE_SCHEMAS;

export type MessageCheck = { ok: true } | { ok: false; errors: string[] };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

let compiled: Map<MessageKind, ValidateFunction> | null = null;

function validators(): Map<MessageKind, ValidateFunction> {
  if (compiled) return compiled;
  // ajv-formats is not a dependency: the one format we use is checked here.
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, logger: false });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) });
  compiled = new Map();
  for (const [kind, schema] of Object.entries(MESSAGE_SCHEMAS)) compiled.set(kind as MessageKind, ajv.compile(schema));
  return compiled;
}

function line(e: ErrorObject): string {
  const at = e.instancePath || '(root)';
  return `${at} ${e.message ?? 'is invalid'}${e.keyword === 'enum' ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`;
}

/** Checks a value against the schema of a message kind; every miss is one line. */
export function validateMessage(kind: MessageKind, value: unknown): MessageCheck {
  const validate = validators().get(kind);
  if (!validate) return { ok: false, errors: [`unknown message kind ${JSON.stringify(kind)}`] };
  if (validate(value)) return { ok: true };
  return { ok: false, errors: (validate.errors ?? []).map(line) };
}
