import { systemClock } from '@hookyard/core';
import { createRunReporter } from '@hookyard/report';
import type { RoleDeps } from '@hookyard/role';
import { sweep, type SweepReport } from './sweep';

export type { RunEventSink, RunSummary } from '@hookyard/bus';
export type { SweepReport } from './sweep';

/** What the scheduler runs on: the role's deps less what it never reads (it calls, describes and evaluates nothing). */
export type SchedulerDeps = Pick<RoleDeps, 'settings' | 'stores' | 'bus' | 'metrics' | 'logger' | 'clock' | 'events'>;

export interface SchedulerHandle {
  stop(): Promise<void>;
  /** One full sweep now (tests). */
  sweepOnce(): Promise<SweepReport>;
}

/**
 * Sweeps every `settings.sweepMs`: re-dispatches due runs, takes over lapsed
 * leases, expires finished runs, refreshes the gauges. Sweeps never overlap
 * within a process; the next tick is timed from the end of the last sweep.
 */
export async function startScheduler(deps: SchedulerDeps): Promise<SchedulerHandle> {
  const { settings, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const reporter = createRunReporter({
    runs: deps.stores.runs,
    bus: deps.bus,
    metrics: deps.metrics,
    logger,
    clock,
    dispatchGraceMs: settings.dispatchGraceMs,
    events: deps.events,
  });
  const sweepDeps = { settings, stores: deps.stores, bus: deps.bus, metrics: deps.metrics, logger, clock, reporter };

  // Sweeps run one after another: a tick and a sweepOnce() never interleave.
  let chain: Promise<unknown> = Promise.resolve();
  function sweepNow(): Promise<SweepReport> {
    const next = chain.then(() => sweep(sweepDeps));
    chain = next.catch(() => undefined);
    return next;
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void sweepNow()
        .then((r) => {
          if (r.dispatched + r.retried + r.replayed + r.failed + r.expired > 0) logger.debug({ ...r }, 'sweep');
        })
        .catch((err: unknown) => logger.error({ err: String(err) }, 'sweep failed; tried again next tick'))
        .finally(schedule);
    }, settings.sweepMs);
  }
  schedule();
  logger.info({ sweepMs: settings.sweepMs, store: deps.stores.kind }, 'scheduler started');

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
      logger.info('scheduler stopped');
    },
    sweepOnce: sweepNow,
  };
}
