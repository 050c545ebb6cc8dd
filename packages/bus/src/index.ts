export type { RunBus, Subscription } from './types';
export { createMemoryBus } from './memory-bus';
export { createJetStreamBus, RUN_CONSUMER, RUN_IDS_PER_MESSAGE, runSubject } from './jetstream-bus';
export type { JetStreamBusOptions } from './jetstream-bus';
export { toBusError } from './nats-errors';
export { createNatsIngest, INGEST_CONSUMER, ingestSubject } from './nats-ingest';
export type { IngestHandler, IngestMessage, IngestVerdict, NatsIngest, NatsIngestOptions } from './nats-ingest';
export { createMemoryRunEventPublisher, createRunEventPublisher, runEventSubject } from './run-events';
export type { MemoryRunEventPublisher, RunEventPublisher, RunEventPublisherOptions, RunSummary } from './run-events';
