import { toHookyardError } from '@hookyard/core';
import type { Clock, HookMetrics, Logger, Run, RunEventType } from '@hookyard/core';
import type { RunBus } from './types';
import type { RunSummary } from './run-events';

/**
 * Everything that happens once a run is finished, in one place: the failure
 * report (ERROR log, metric) and the events sink. The `hooks_run_failed`
 * platform event is not here: the store keeps it in the same atomic step as
 * the fail transition, so it cannot be lost (the sweep dispatches it). The
 * executor and the scheduler (for the runs its lapse sweep fails) share it.
 */

/** Where run events are announced (optional; a failure there is logged, never fatal). */
export interface RunEventSink {
  publish(summary: RunSummary): Promise<void>;
}

/** The one store verb the reporter needs (structural, so the bus package does not depend on the store). */
export interface PlatformEventKeeper {
  keepEvent(input: { topic: string; payload: unknown; now: number; dispatchGraceMs: number }): Promise<{ id: string; hook: string }[]>;
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
  finished(run: Run): Promise<void>;
  /**
   * Announces a transition that is not an outcome (`started`, `parked`,
   * `retry_scheduled`, ...) from the run as the caller holds it: no store
   * read, nothing awaited, a failure logged at debug (a live view may miss it).
   */
  announce(run: Run, event: RunEventType): void;
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
      const kept = await deps.runs.keepEvent({ topic, payload, now, dispatchGraceMs: deps.dispatchGraceMs });
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

  async function toSink(run: Run): Promise<void> {
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

/**
 * The summary of a run as `event` left it, as published on
 * `<prefix>.events.run.<status>.<hook>`; `duration_ms` only for an outcome.
 */
export function summarizeRun(run: Run, event: RunEventType = 'finished'): RunSummary {
  const from = Date.parse(run.started_at ?? run.created_at);
  const to = run.finished_at === null || event !== 'finished' ? NaN : Date.parse(run.finished_at);
  const at =
    event === 'accepted'
      ? run.created_at
      : event === 'started'
        ? (run.started_at ?? run.updated_at)
        : event === 'finished'
          ? (run.finished_at ?? run.updated_at)
          : run.updated_at;
  return {
    run_id: run.id,
    event,
    at,
    hook: run.hook,
    topic: run.topic,
    status: run.status,
    attempts: run.attempts,
    error_kind: run.error?.kind ?? null,
    error_message: run.error?.message ?? null,
    created_at: run.created_at,
    finished_at: run.finished_at,
    due_at: event === 'retry_scheduled' ? run.due_at : null,
    duration_ms: Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, to - from) : null,
  };
}

/**
 * Publishes `run` as `event` left it, without waiting: a miss (no sink, NATS
 * away) is only a live view's loss, logged at debug. For callers that hold
 * the run already (an executor's claim, an operator's retry): no store read.
 */
export function announceRun(sink: RunEventSink | undefined, run: Run, event: RunEventType, logger: Logger): void {
  if (!sink) return;
  sink
    .publish(summarizeRun(run, event))
    .catch((err: unknown) => logger.debug({ run: run.id, event, err: toHookyardError(err).message }, 'run event not published'));
}

/**
 * The `accepted` summaries of the runs a door just kept, from what the door
 * holds (ids, hooks, the topic and the keep's time): no store read.
 */
export function acceptedSummaries(topic: string, kept: readonly { id: string; hook: string }[], keptAt: number): RunSummary[] {
  const at = new Date(keptAt).toISOString();
  return kept.map((k) => ({
    run_id: k.id,
    event: 'accepted',
    at,
    hook: k.hook,
    topic,
    status: 'pending',
    attempts: 0,
    error_kind: null,
    error_message: null,
    created_at: at,
    finished_at: null,
    due_at: null,
    duration_ms: null,
  }));
}
