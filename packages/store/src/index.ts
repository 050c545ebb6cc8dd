export { createMemoryStores } from './memory/create';
export { createRedisStores } from './redis/create';
export type { RedisStoresOptions } from './redis/create';
export { MAX_HOOKS_PER_EVENT } from './run-ids';
export type {
  ActInput,
  Claimed,
  CompletedStatus,
  DeliveryClaim,
  HookStore,
  InteractionFilter,
  InteractionPage,
  InteractionStore,
  InterruptPolicy,
  KeepDeliveryResult,
  KeepEventInput,
  KeptRun,
  LapsedOutcome,
  ParkInput,
  ResolveInput,
  RunCounts,
  RunFilter,
  RunPage,
  RunStore,
  Stores,
  ToolStore,
} from './types';
