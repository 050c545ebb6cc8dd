export { INGEST_EVENT_SCHEMA, INGEST_HEADERS_SCHEMA, INGEST_TOPIC_SCHEMA } from './ingest-message';
export { RUN_FAILED_EVENT_SCHEMA, RUN_SUMMARY_SCHEMA } from './run-summary';
export { MESSAGE_SCHEMAS, validateMessage } from './validate';
export type { MessageCheck, MessageKind } from './validate';
