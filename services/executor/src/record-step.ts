import { backoffMs, isRetryableKind } from '@hookyard/core';
import type { HttpExchange, Run, RunHead } from '@hookyard/core';
import type { Attempt } from './attempt';
import { agentOfRun } from './agent-call';
import type { ExecutorParts, Outcome } from './executor-parts';

/** Writes the outcome: finished, retried later, or held as failed. */
export async function recordOutcome(x: ExecutorParts, a: Attempt, startedAt: number, outcome: Outcome, http: HttpExchange | null): Promise<void> {
  const { settings, stores, logger, metrics, clock, reporter } = x.deps;
  const { run } = a;
  if ('parked' in outcome) {
    // The park ended the attempt: no lease, no worker slot, nothing else to write.
    observe(x, run, startedAt, 'parked');
    return;
  }
  if ('status' in outcome) {
    const done = await a.writeOutcome(outcome.status, settings.leaseMs, (token, now) =>
      stores.runs.complete(run.id, token, outcome.status, outcome.result, now, http),
    );
    observe(x, run, startedAt, outcome.status);
    countAgentCall(x, run, outcome.status);
    return reporter.finished(done);
  }
  if (a.superseded) throw outcome.error;
  const { error, acted } = outcome;
  if (!acted && isRetryableKind(error.kind) && run.attempts < settings.maxAttempts) {
    const dueAt = clock.now() + backoffMs(run.attempts, settings.retryBaseMs, settings.retryCapMs);
    const waiting = await a.writeOutcome('retry_wait', settings.leaseMs, (token, now) =>
      stores.runs.scheduleRetry(run.id, token, error.toInfo(), dueAt, now, http),
    );
    metrics.retried.inc({ hook: run.hook, kind: error.kind });
    reporter.announce(waiting, 'retry_scheduled');
    observe(x, run, startedAt, 'retry_wait');
    logger.warn(
      { run: run.id, hook: run.hook, attempt: run.attempts, kind: error.kind, err: error.message, due_at: new Date(dueAt).toISOString() },
      'attempt failed before the hook acted; retry scheduled',
    );
    return;
  }
  const done = await a.writeOutcome('failed', settings.leaseMs, (token, now) => stores.runs.fail(run.id, token, error.toInfo(), now, http));
  observe(x, run, startedAt, 'failed');
  countAgentCall(x, run, 'failed');
  await reporter.finished(done);
}

/** A run the claim ended skipped in its own step (its plan said so): counted and reported as an attempt's outcome is. */
export async function recordSkippedByClaim(x: ExecutorParts, head: RunHead, now: number): Promise<void> {
  const { metrics } = x.deps;
  metrics.started.inc({ hook: head.hook });
  if (head.attempts === 1) metrics.acceptToStart.observe(Math.max(0, now - Date.parse(head.created_at)) / 1000);
  observe(x, head, now, 'skipped');
  await x.deps.reporter.finished(head);
}

/** An agent's call that ended: counted per agent, tool and outcome. */
function countAgentCall(x: ExecutorParts, run: Run, status: string): void {
  const agent = agentOfRun(run);
  const tool = (run.payload as { tool?: unknown } | null)?.tool;
  if (agent && typeof tool === 'string') x.deps.metrics.agentCalls.inc({ agent, tool, status });
}

function observe(x: ExecutorParts, run: Pick<Run, 'hook'>, startedAt: number, status: string): void {
  x.deps.metrics.duration.observe({ hook: run.hook, status }, Math.max(0, x.deps.clock.now() - startedAt) / 1000);
}
