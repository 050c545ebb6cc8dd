export { MSG_ID_MAX_LENGTH, createNatsIngestHandler } from './ingest-handler';
export type { NatsIngestHandlerDeps } from './ingest-handler';
export { createDedupeStep } from '../door/dedupe';
