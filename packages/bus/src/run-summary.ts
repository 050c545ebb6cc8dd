import { toHookyardError } from '@hookyard/core';
import type { Logger, RunHead, RunEventType } from '@hookyard/core';
import type { RunSummary } from './run-events';

/**
 * A run as a run event tells it (`RunSummary`, the wire shape of
 * `<prefix>.events.run.<status>.<hook>`) and the fire-and-forget announce of
 * one: what the doors, the operators' routes and the run reporter publish.
 */

/** Where run events are announced (optional; a failure there is logged, never fatal). */
export interface RunEventSink {
  publish(summary: RunSummary): Promise<void>;
}

/**
 * The summary of a run as `event` left it, as published on
 * `<prefix>.events.run.<status>.<hook>`; `duration_ms` only for an outcome.
 */
export function summarizeRun(run: RunHead, event: RunEventType = 'finished'): RunSummary {
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
export function announceRun(sink: RunEventSink | undefined, run: RunHead, event: RunEventType, logger: Logger): void {
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
