import type { Clock, HookMetrics, Logger, Settings } from '@hookyard/core';
import type { RunBus, RunEventFeed, RunEventSink } from '@hookyard/bus';
import type { JqEngine } from '@hookyard/jq';
import type { Stores } from '@hookyard/store';
import type { ToolRepo } from '@hookyard/tools';

/**
 * What every role runs on, built once by `hookyard serve` (or a test) and
 * handed to the role that starts: the executor's `ExecutorDeps`, the
 * scheduler's `SchedulerDeps`, the ingress's `IngressDeps` and its API's
 * `ApiContext`, and the CLI's `Runtime` are this type, narrowed or widened
 * with what only that role takes.
 */
export interface RoleDeps {
  /** The process's one settings object (live reloads write into it). */
  settings: Settings;
  stores: Stores;
  bus: RunBus;
  jq: JqEngine;
  /**
   * The tools this role calls (an executor: every provider) or describes and
   * checks hooks against (an ingress: the catalogue the executors describe).
   */
  tools: ToolRepo;
  metrics: HookMetrics;
  logger: Logger;
  /** Time as the role reads it (default: the system clock); tests pass a ManualClock. */
  clock?: Clock;
  /**
   * Where this role announces run events (`<prefix>.events.run.<status>.<hook>`:
   * the doors' accepted runs, claims, parks, retries, outcomes, operators'
   * retries, discards, replays and answered approvals). Absent: none are
   * announced. The caller owns it.
   */
  events?: RunEventSink;
  /**
   * The run events the ingress streams at `GET /api/events` (the caller owns
   * and closes it); absent, that route answers 503. Only the ingress reads it.
   */
  runEvents?: RunEventFeed;
}
