export { createMemoryBucketStore } from './memory/memory-buckets';
export { createMemoryStores } from './memory/create';
export { memoryOnlyCounts } from './memory/held';
export type { MemoryOnlyCounts } from './memory/held';
export { createRedisStores } from './redis/create';
export type { RedisStoresOptions } from './redis/create';
export { MAX_HOOKS_PER_EVENT } from './run-ids';
export { JOINABLE_STATUSES, UNKNOWN_OUTCOME_ENDS, isJoinable } from './agent-rules';
export { AUDIT_ENTRY_MAX_BYTES, auditListOf } from './audit-rules';
export type { AuditActor, AuditBounds, AuditEntry, AuditFilter, AuditList, AuditPage, AuditRecorded } from './audit-rules';
export { DEFAULT_STATE_MAX_BYTES } from './state-rules';
export { migrateFreeFormStates } from './migrate-states';
export type { StateMigration } from './migrate-states';
export {
  STATS_BUCKETS,
  STATS_MAX_HOOKS,
  STATS_MINUTE_MS,
  STATS_TTL_MS,
  STATS_WINDOWS,
  bucketUpperMs,
  countsByHook,
  emptyCounts,
  percentiles,
  statsBucket,
  statsSeries,
  windowMinutes,
} from './stats-rules';
export type { DeniedAgent, MinuteStats, Percentiles, PlainCounts, SeriesPoint, StatsCounts, StatsSeries, StatsWindow } from './stats-rules';
export type { MemoryStoresOptions } from './memory/create';
export type {
  ActInput,
  AgentChange,
  AgentStore,
  AuditStore,
  KeepAgentCallInput,
  KeptAgentCall,
  BucketLimit,
  BucketStore,
  Claimed,
  ClaimedPlanned,
  PlannedClaim,
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
  ReplayEdit,
  UnknownOutcomeVerdict,
  RunStore,
  Stores,
  TakeManyResult,
  TakeResult,
  UnroutedBounds,
  UnroutedEvent,
  UnroutedPage,
  UnroutedTopic,
  UnroutedUsage,
} from './types';
