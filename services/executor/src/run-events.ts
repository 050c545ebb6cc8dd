import type { ErrorKind, Run } from '@hookyard/core';

/**
 * The summary of a finished run, as the events sink receives it. Declared here
 * structurally so it matches `createRunEventPublisher` of @hookyard/bus without
 * the executor depending on how that publisher is built.
 */
export interface RunSummary {
  run_id: string;
  hook: string;
  topic: string;
  status: Run['status'];
  attempts: number;
  error_kind: ErrorKind | null;
  error_message: string | null;
  created_at: string;
  finished_at: string | null;
  /** From the start of the last attempt (or creation, if it never started) to the finish. */
  duration_ms: number | null;
}

/** Where finished runs are announced (optional; a failure there is logged, never fatal). */
export interface RunEventSink {
  publish(summary: RunSummary): Promise<void>;
}

export function summarize(run: Run): RunSummary {
  const from = Date.parse(run.started_at ?? run.created_at);
  const to = run.finished_at === null ? NaN : Date.parse(run.finished_at);
  return {
    run_id: run.id,
    hook: run.hook,
    topic: run.topic,
    status: run.status,
    attempts: run.attempts,
    error_kind: run.error?.kind ?? null,
    error_message: run.error?.message ?? null,
    created_at: run.created_at,
    finished_at: run.finished_at,
    duration_ms: Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, to - from) : null,
  };
}
