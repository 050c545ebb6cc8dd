export type { RunBus, Subscription } from './types';
export { createMemoryBus } from './memory-bus';
export { createJetStreamBus, RUN_CONSUMER, RUN_IDS_PER_MESSAGE, runSubject } from './jetstream-bus';
export type { JetStreamBusOptions } from './jetstream-bus';
export { toBusError } from './nats-errors';
