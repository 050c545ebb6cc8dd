import { systemClock, toHookyardError } from '@hookyard/core';
import type { Logger } from '@hookyard/core';
import type { Subscription } from '@hookyard/bus';
import { createRunReporter } from '@hookyard/report';
import type { RoleDeps } from '@hookyard/role';
import { RunExecutor } from './run-executor';
import type { ApprovalContinuation, PausePoint } from './run-executor';

export type { RunEventSink, RunSummary } from '@hookyard/bus';

/** What the executor runs on: the role's deps (it streams no run events) and its own extras. */
export interface ExecutorDeps extends Omit<RoleDeps, 'runEvents'> {
  /** What a run woken from an approval does next (the approval policy's continuation). */
  approvals?: ApprovalContinuation;
}

/**
 * Test-only: HOOKYARD_TEST_PAUSE_AT=claim_intent holds every attempt that has
 * just written its claim intent (before the claim commits) and logs
 * 'test pause point reached', so a fault test can SIGKILL the process at
 * exactly that point. Unset (always, outside tests) it does nothing.
 */
function testPause(logger: Logger): ((point: PausePoint, run: { id: string }) => Promise<void>) | undefined {
  const at = process.env.HOOKYARD_TEST_PAUSE_AT;
  if (at !== 'claim_intent') return undefined;
  logger.warn({ point: at }, 'HOOKYARD_TEST_PAUSE_AT is set: attempts stop at this point (tests only)');
  return (point, run) => {
    logger.warn({ point, run: run.id }, 'test pause point reached');
    return new Promise<void>(() => undefined);
  };
}

export interface ExecutorHandle {
  /** Stop taking work; give in-flight runs graceMs; hand back the rest. */
  stop(graceMs: number): Promise<void>;
  inFlight(): number;
  /** Runs in flight at most from the next run admitted (a live HOOKS_MAX_WORKERS); runs in flight are never cancelled. */
  resize(maxWorkers: number): void;
}

function settledOrTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    void work.finally(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * Starts taking run ids from the bus, up to `settings.maxWorkers` at once in
 * this process. The handle's stop() drains: no new work, a grace period for
 * the runs in flight, then the store's interrupt policy for the rest.
 */
export async function startExecutor(deps: ExecutorDeps): Promise<ExecutorHandle> {
  const { settings, stores, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const reporter = createRunReporter({
    runs: stores.runs,
    bus: deps.bus,
    metrics: deps.metrics,
    logger,
    clock,
    dispatchGraceMs: settings.dispatchGraceMs,
    events: deps.events,
  });
  const executor = new RunExecutor({
    settings,
    stores,
    jq: deps.jq,
    tools: deps.tools,
    metrics: deps.metrics,
    logger,
    clock,
    reporter,
    dispatch: (ids) => deps.bus.publish(ids),
    approvals: deps.approvals,
    pause: testPause(logger),
  });
  let stopping = false;
  const handlers = new Set<Promise<void>>();

  const subscription: Subscription = await deps.bus.subscribe(
    async (runId, traceparent, hint) => {
      // A message delivered while draining is left to the sweep: the run is still due.
      if (stopping) return;
      const p = executor.handle(runId, traceparent, hint).catch((err: unknown) => {
        const e = toHookyardError(err);
        logger.error({ run: runId, kind: e.kind, err: e.message }, 'run handler failed');
      });
      handlers.add(p);
      try {
        await p;
      } finally {
        handlers.delete(p);
      }
    },
    { concurrency: settings.maxWorkers },
  );
  // role and instance are on every line already (the logger's base): each key once.
  logger.info({ workers: settings.maxWorkers, bus: deps.bus.kind, store: stores.kind }, 'executor started');

  let stopped: Promise<void> | undefined;
  async function drain(graceMs: number): Promise<void> {
    stopping = true;
    executor.close();
    const unsubscribed = subscription.stop();
    await settledOrTimeout(Promise.allSettled([...handlers]), graceMs);
    const handedBack = await executor.handBackAll('shutdown');
    await unsubscribed;
    logger.info({ handedBack }, 'executor stopped');
  }

  return {
    stop(graceMs) {
      stopped ??= drain(graceMs);
      return stopped;
    },
    inFlight: () => executor.attempts().length,
    resize(maxWorkers) {
      subscription.resize(maxWorkers);
      logger.info({ workers: maxWorkers }, 'executor workers resized');
    },
  };
}
