import { toHookyardError } from '@hookyard/core';
import type { Clock, HookMetrics, Logger, Settings } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import type { LapsedOutcome, Stores } from '@hookyard/store';
import type { RunReporter } from '@hookyard/report';

/** Runs taken per store step; a full batch means "there may be more", so the step runs again. */
export const SWEEP_BATCH = 200;
/** Bound on rounds of one step in one sweep, so a flood cannot pin a sweep forever. */
const MAX_ROUNDS = 50;

/** What one sweep did. */
export interface SweepReport {
  /** Due runs published again (nobody claimed them within the dispatch grace). */
  dispatched: number;
  /** Lapsed leases due again (not acted) and published. */
  retried: number;
  /** Lapsed leases of crash-resumable starts, published to replay their start. */
  replayed: number;
  /** Lapsed leases held as failed. */
  failed: number;
  /** Finished runs deleted by retention. */
  expired: number;
  /** Open interactions past their expiry, resolved `expired`; their runs are published to apply on_timeout. */
  interactionsExpired: number;
  /** One line per step that threw; that step is tried again next tick. */
  errors: string[];
}

export interface SweepDeps {
  settings: Settings;
  stores: Stores;
  bus: RunBus;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  reporter: RunReporter;
}

/**
 * One full sweep: due runs, lapsed leases, retention, gauges. Each step is one
 * atomic store call, so several schedulers may sweep at once; a step that
 * throws is logged and does not stop the others.
 */
export async function sweep(deps: SweepDeps): Promise<SweepReport> {
  const { settings, stores, bus, metrics, logger, clock } = deps;
  const report: SweepReport = { dispatched: 0, retried: 0, replayed: 0, failed: 0, expired: 0, interactionsExpired: 0, errors: [] };

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      const e = toHookyardError(err);
      report.errors.push(`${name}: ${e.kind}: ${e.message}`);
      logger.error({ step: name, kind: e.kind, err: e.message }, 'sweep step failed; tried again next tick');
    }
  }

  async function publish(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await bus.publish(ids);
    metrics.dispatched.inc({ source: 'sweep' }, ids.length);
  }

  await step('due', async () => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const ids = await stores.runs.sweepDue(clock.now(), SWEEP_BATCH, settings.dispatchGraceMs);
      // Published after the store moved their next dispatch: a lost publish waits one grace, never forever.
      await publish(ids);
      report.dispatched += ids.length;
      if (ids.length < SWEEP_BATCH) break;
    }
  });

  await step('lapsed', async () => {
    // Due again at once: the lapsed lease already kept the run waiting a whole lease.
    const policy = { maxAttempts: settings.maxAttempts, retryDelayMs: 0 };
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const outcomes = await stores.runs.sweepLapsed(clock.now(), SWEEP_BATCH, policy);
      metrics.leaseLapsed.inc(outcomes.length);
      await takeOver(outcomes);
      if (outcomes.length < SWEEP_BATCH) break;
    }
  });

  async function takeOver(outcomes: LapsedOutcome[]): Promise<void> {
    for (const o of outcomes) {
      logger.warn({ run: o.id, hook: o.hook, attempt: o.attempts, outcome: o.outcome, err: o.error.message }, 'lease lapsed; run taken over');
    }
    const again = outcomes.filter((o) => o.outcome !== 'failed');
    report.retried += again.filter((o) => o.outcome === 'retry').length;
    report.replayed += again.filter((o) => o.outcome === 'replay').length;
    // Published first: a failure report that cannot read its run must not hold these back.
    await publish(again.map((o) => o.id));
    // Lapses are rare and off the hot path: reading the run to announce it (only when someone listens) is cheap enough.
    if (deps.reporter.announcing) {
      for (const o of again) {
        const run = await stores.runs.get(o.id).catch(() => null);
        if (run) deps.reporter.announce(run, 'retry_scheduled');
      }
    }
    for (const o of outcomes.filter((x) => x.outcome === 'failed')) {
      report.failed += 1;
      try {
        const run = await stores.runs.get(o.id);
        if (run) await deps.reporter.finished(run);
      } catch (err) {
        const e = toHookyardError(err);
        logger.error(
          { run: o.id, hook: o.hook, attempt: o.attempts, kind: o.error.kind, message: o.error.message, err: e.message },
          'hook run failed (lease lapsed); could not read it to report it',
        );
      }
    }
  }

  await step('interactions', async () => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const expired = await stores.interactions.expireDue(clock.now(), SWEEP_BATCH);
      for (const i of expired)
        logger.info({ interaction: i.id, kind: i.kind, run: i.run, on_timeout: i.on_timeout }, 'interaction expired; its run applies on_timeout');
      // The store made each run due in the same step: a lost publish is covered by the due sweep.
      await publish(expired.map((i) => i.run));
      // Off the hot path, and only when someone listens: each woken run read once to announce it.
      if (deps.reporter.announcing) {
        for (const i of expired) {
          const run = await stores.runs.get(i.run).catch(() => null);
          if (run) deps.reporter.announce(run, 'woken');
        }
      }
      report.interactionsExpired += expired.length;
      if (expired.length < SWEEP_BATCH) break;
    }
  });

  await step('expired', async () => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const n = await stores.runs.sweepExpired(clock.now(), settings.retentionMs, SWEEP_BATCH);
      report.expired += n;
      if (n < SWEEP_BATCH) break;
    }
  });

  await step('counts', async () => {
    const c = await stores.runs.counts();
    metrics.pending.set(c.pending + c.retry_wait);
    metrics.heldFailed.set(c.failed);
    metrics.parked.set(c.parked);
  });

  return report;
}
