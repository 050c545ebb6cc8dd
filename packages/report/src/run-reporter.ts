import { toHookyardError } from '@hookyard/core';
import type { Clock, HookMetrics, Logger, RunHead, RunEventType } from '@hookyard/core';
import { acceptedSummaries, announceRun, summarizeRun, type RunBus, type RunEventSink } from '@hookyard/bus';

/**
 * Everything that happens once a run is finished, in one place: the failure
 * report (ERROR log, metric) and the events sink. The `hooks_run_failed`
 * platform event is not here: the store keeps it in the same atomic step as
 * the fail transition, so it cannot be lost (the sweep dispatches it). The
 * executor and the scheduler (for the runs its lapse sweep fails) share it.
 */

/** The one store verb the reporter needs (structural, so the reporter does not depend on the store). */
export interface PlatformEventKeeper {
  keepEvent(input: { topic: string; payload: unknown; now: number; dispatchGraceMs: number; door: 'platform' }): Promise<{ id: string; hook: string }[]>;
}

export interface RunReporterDeps {
  runs: PlatformEventKeeper;
  bus: Pick<RunBus, 'publish'>;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  dispatchGraceMs: number;
  events?: RunEventSink;
}

export interface RunReporter {
  /** Reports a run that just reached an outcome (succeeded, skipped, denied, cancelled, failed). Never throws. */
  finished(run: RunHead): Promise<void>;
  /**
   * Announces a transition that is not an outcome (`started`, `parked`,
   * `retry_scheduled`, ...) from the run as the caller holds it: no store
   * read, nothing awaited, a failure logged at debug (a live view may miss it).
   */
  announce(run: RunHead, event: RunEventType): void;
  /** True when there is somewhere to announce to (so a caller may skip reading a run only to announce it). */
  readonly announcing: boolean;
  /**
   * Fires a platform event (e.g. `hooks_approval_requested`): keeps one run
   * per hook on `topic` and publishes them. Best effort: a failure is logged
   * with `about`, never thrown.
   */
  platformEvent(topic: string, payload: unknown, about: { run: string; hook: string }): Promise<void>;
}

export function createRunReporter(deps: RunReporterDeps): RunReporter {
  const { metrics, logger } = deps;

  async function platformEvent(topic: string, payload: unknown, about: { run: string; hook: string }): Promise<void> {
    const now = deps.clock.now();
    try {
      // Door platform, never verified: a platform event cannot answer an approval.
      const kept = await deps.runs.keepEvent({ topic, payload, now, dispatchGraceMs: deps.dispatchGraceMs, door: 'platform' });
      for (const k of kept) metrics.accepted.inc({ topic, hook: k.hook });
      if (kept.length > 0 && deps.events) for (const summary of acceptedSummaries(topic, kept, now)) void deps.events.publish(summary).catch(() => undefined);
      if (kept.length > 0) {
        await deps.bus.publish(kept.map((k) => k.id));
        metrics.dispatched.inc({ source: 'event' }, kept.length);
      }
    } catch (err) {
      // The cause is already logged; the event is best effort.
      const e = toHookyardError(err);
      logger.warn({ run: about.run, hook: about.hook, kind: e.kind, err: e.message }, `could not fire the ${topic} platform event`);
    }
  }

  async function toSink(run: RunHead): Promise<void> {
    if (!deps.events) return;
    try {
      await deps.events.publish(summarizeRun(run));
    } catch (err) {
      logger.warn({ run: run.id, err: toHookyardError(err).message }, 'could not publish the run event');
    }
  }

  return {
    platformEvent,
    announcing: deps.events !== undefined,
    announce: (run, event) => announceRun(deps.events, run, event, logger),
    async finished(run) {
      if (run.status === 'failed') {
        const kind = run.error?.kind ?? 'internal';
        const message = run.error?.message ?? '(no error recorded)';
        logger.error({ run: run.id, hook: run.hook, topic: run.topic, attempt: run.attempts, kind, message }, 'hook run failed');
        metrics.failed.inc({ hook: run.hook, kind });
      } else if (run.status === 'succeeded') {
        metrics.succeeded.inc({ hook: run.hook });
      } else if (run.status === 'skipped') {
        metrics.skipped.inc({ hook: run.hook });
      } else if (run.status === 'denied') {
        metrics.denied.inc({ hook: run.hook });
      } else if (run.status === 'cancelled') {
        metrics.cancelled.inc({ hook: run.hook });
      }
      await toSink(run);
    },
  };
}
