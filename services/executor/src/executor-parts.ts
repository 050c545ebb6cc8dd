import type { Clock, Hook, HookMetrics, HookyardError, HttpExchange, Interaction, Logger, Run, SecretResolver, Settings } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import type { CompletedStatus, Stores } from '@hookyard/store';
import type { RunReporter } from '@hookyard/report';
import type { ApprovalRepo, ToolRepo } from '@hookyard/tools';
import type { HookCache, PolicyCache } from './hook-cache';
import type { HookEvaluator } from './hook-plan';
import type { WokenOutcome } from './woken';

/** How an attempt ends: an outcome to write, a failure (on which side of acting), or parked on an interaction. */
export type Outcome = { status: CompletedStatus; result: unknown } | { error: HookyardError; acted: boolean } | { parked: Interaction };

/** What an attempt learnt on its way: which side of acting it is, and its HTTP tool's last reply (kept with its outcome line). */
export interface AttemptState {
  acted: boolean;
  http?: HttpExchange;
}

/** A named point in an attempt where a test may hold it (see `pause` below). */
export type PausePoint = 'claim_intent';

/**
 * What a run woken from an approval does next (the approval policy wires it):
 * end (denied, or arguments changed meanwhile), or go on to call its tool
 * (`proceed`). Without one, such a run is held failed saying so.
 */
export type ApprovalContinuation = (input: { run: Run; hook: Hook; interaction: Interaction }) => Promise<WokenOutcome | 'proceed'>;

export interface RunExecutorDeps {
  settings: Settings;
  stores: Stores;
  jq: JqEngine;
  tools: ToolRepo;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  reporter: RunReporter;
  /** Waits between two tries of an outcome write (default: a timer). Tests pass one that moves a manual clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Publishes run ids for executors (the runs a resume woke); without it the sweep dispatches them. */
  dispatch?: (ids: string[]) => Promise<void>;
  approvals?: ApprovalContinuation;
  /** Resolves secret references of settings (the approval link key); default: env and mounted files in the settings' scope. */
  secrets?: SecretResolver;
  /**
   * Test seam: awaited at the named point of an attempt (after `claim_intent`
   * is written, before the claim commits), so a fault test can stop a process
   * exactly there. Absent in production.
   */
  pause?: (point: PausePoint, run: Run) => Promise<void>;
}

/** What every step of an attempt works with: the executor's dependencies and the parts it built from them once. */
export interface ExecutorParts {
  deps: RunExecutorDeps;
  evaluator: HookEvaluator;
  /** Hook records by the revision the claim answers: no read between the claim and the tool while a hook is unchanged. */
  hooks: HookCache;
  /** The approval policy plans made before a claim decide with (the claim checks its version). */
  policies: PolicyCache;
  /** The approval policy in front of every provider: every call of this executor goes through it. */
  gate: ApprovalRepo;
  /** Resolves HOOKS_APPROVAL_LINK_SECRET when an approval's links are signed. */
  secrets: SecretResolver;
  /** True once the executor takes no new claims (stop() began). */
  closed(): boolean;
}
