export type { PublishOptions, RunBus, RunHandler, Subscription } from './types';
export { createMemoryBus } from './memory-bus';
export { HINT_MAX_MESSAGE_BYTES, HINT_MAX_PAYLOAD_BYTES, PLAN_HEADER, decodeHints, encodeHints } from './run-hints';
export type { RunPlanHint } from './run-hints';
export { createJetStreamBus, RUN_ACK_WAIT_MS, RUN_CONSUMER, RUN_IDS_PER_MESSAGE, runSubject } from './jetstream-bus';
export type { JetStreamBusOptions } from './jetstream-bus';
export { toBusError } from './nats-errors';
export { redactNatsUrl } from './nats-setup';
export type { StreamStorage } from './nats-setup';
export { natsCredentials, roleInboxPrefix } from './nats-auth';
export type { NatsCredentialSettings, NatsCredentials } from './nats-auth';
export { createNatsIngest, INGEST_CONSUMER, INGEST_DUPLICATE_WINDOW_MS, INGEST_MAX_BYTES, ingestSubject } from './nats-ingest';
export type { IngestHandler, IngestMessage, IngestVerdict, NatsIngest, NatsIngestOptions } from './nats-ingest';
export { createMemoryRunEventPublisher, createRunEventPublisher, runEventSubject } from './run-events';
export type { MemoryRunEventPublisher, RunEventPublisher, RunEventPublisherOptions, RunSummary } from './run-events';
export { agentCallEventsSubject, createCallRouter, createRunEventHub, createRunEventSubscriber } from './run-event-feed';
export type { CallRouter, RunEventFeed, RunEventHub, RunEventSubscriber, RunEventSubscriberOptions } from './run-event-feed';
export { acceptedSummaries, announceRun, summarizeRun } from './run-summary';
export type { RunEventSink } from './run-summary';
export {
  createDiscoveryHub,
  createDiscoveryRequester,
  createDiscoveryResponder,
  discoverySubject,
  DiscoveryUnansweredError,
  DISCOVERY_QUEUE,
} from './discovery';
export type { DiscoveryHandler, DiscoveryHub, DiscoveryNatsOptions, DiscoveryRequester, DiscoveryResponder } from './discovery';
