import { createSecretResolver, secretScopeOf, toHookyardError, traced } from '@hookyard/core';
import type { Run } from '@hookyard/core';
import type { ClaimedPlanned } from '@hookyard/store';
import type { RunPlanHint } from '@hookyard/bus';
import { Attempt, LeaseKeeper } from './attempt';
import { runAttempt } from './attempt-steps';
import { claimRun } from './claim-step';
import type { AttemptState, ExecutorParts, Outcome, RunExecutorDeps } from './executor-parts';
import { HookCache, PolicyCache } from './hook-cache';
import { approvalGate } from './approval-step';
import { HookEvaluator } from './hook-plan';
import { preplan } from './preplan';
import { recordOutcome, recordSkippedByClaim } from './record-step';
import { SPAN, beginAttempt, tracingOn } from './tracing';

export type { ApprovalContinuation, PausePoint, RunExecutorDeps } from './executor-parts';

/**
 * Runs one attempt of one run per `handle` call, as a sequence of named
 * steps: plan before the claim (preplan.ts), claim (claim-step.ts), the
 * attempt (attempt-steps.ts: condition, door contract, checks, act, tool),
 * outcome (record-step.ts). Attempts in flight are tracked so a shutdown can
 * hand them back.
 */
export class RunExecutor {
  // A set, not a map by run id: a stale attempt and its replacement may both be here for a moment.
  private readonly inFlight = new Set<Attempt>();
  private readonly parts: ExecutorParts;
  private readonly leases: LeaseKeeper;
  /** No new claims once set (stop() began). */
  private closed = false;
  /** Set when the grace is over and what is left is handed back: a claim landing now is handed back too. */
  private handingBack = false;

  constructor(private readonly deps: RunExecutorDeps) {
    this.parts = {
      deps,
      evaluator: new HookEvaluator({
        jq: deps.jq,
        hooks: deps.stores.hooks,
        interactions: deps.stores.interactions,
        states: deps.stores.states,
        jqTimeoutMs: deps.settings.jqTimeoutMs,
      }),
      hooks: new HookCache(deps.stores.hooks, deps.clock),
      policies: new PolicyCache(deps.stores.hooks, deps.clock),
      secrets: deps.secrets ?? createSecretResolver({ scope: secretScopeOf(deps.settings) }),
      gate: approvalGate(deps.tools, deps.stores.hooks, deps.jq, deps.settings),
      closed: () => this.closed,
    };
    this.leases = new LeaseKeeper(deps.settings.leaseMs);
  }

  attempts(): Attempt[] {
    return [...this.inFlight];
  }

  /**
   * Takes no more work: no claim is made after this. A claim already sent is
   * a run in flight like any other: it gets the grace, then is handed back.
   */
  close(): void {
    this.closed = true;
  }

  /** Ends the grace: hands back every attempt in flight, and any claim that still lands. */
  async handBackAll(reason: string): Promise<number> {
    this.closed = true;
    this.handingBack = true;
    const left = this.attempts();
    for (const a of left) await this.handBack(a, reason);
    return left.length;
  }

  /**
   * Interrupts an attempt and gives its run back to the store, whose interrupt
   * policy decides: not acted -> due again (the attempt counts); a started
   * tool -> replayed if crash-resumable, else held as failed (and reported).
   */
  async handBack(a: Attempt, reason: string): Promise<void> {
    const { stores, settings, logger } = this.deps;
    a.interrupt('shutdown');
    try {
      const policy = { maxAttempts: settings.maxAttempts, retryDelayMs: 0 };
      const out = await a.writeOutcome('handed back', settings.leaseMs, (token, now) => stores.runs.release(a.run.id, token, reason, policy, now));
      logger.warn({ run: a.run.id, hook: a.run.hook, attempt: a.run.attempts, outcome: out.outcome, err: out.error.message }, 'run handed back');
      if (out.outcome === 'failed') {
        const run = await stores.runs.get(a.run.id);
        if (run) await this.deps.reporter.finished(run);
      }
    } catch (err) {
      const e = toHookyardError(err);
      // Already finished, or taken over by another worker: nothing to hand back.
      logger.warn({ run: a.run.id, kind: e.kind, err: e.message }, 'could not hand back a run');
    }
  }

  /**
   * One attempt of `runId`; `traceparent` is the one its dispatch message
   * carried (tracing); `hint` the hook, topic and payload it carried, from
   * which the run is planned before it is claimed (a plan that holds is
   * applied by the claim itself).
   */
  async handle(runId: string, traceparent?: string, hint?: RunPlanHint): Promise<void> {
    // Stopping: no new claim (a claim would use up an attempt only to be handed back).
    if (this.closed) return;
    const { stores, metrics, clock } = this.deps;
    const claimStartedAt = tracingOn() ? Date.now() : 0;
    // Traced attempts plan after the claim, inside their span.
    const pre = hint && !tracingOn() ? await preplan(this.parts, runId, hint) : null;
    if (pre && this.closed) return;
    // Read beside the claim, not after it: the policy does not depend on the run, and this saves a
    // sequential round trip before the tool starts. Not read for a plan the claim may apply (it checks
    // the version the plan used); unused when the claim finds nothing.
    const policy = pre ? undefined : stores.hooks.getApprovalPolicy();
    policy?.catch(() => undefined);
    const now = clock.now();
    const claimed = await claimRun(this.parts, runId, now, pre);
    if (!claimed) return;
    const applied = pre ? (claimed as ClaimedPlanned).applied : null;
    if (applied === 'skipped') return recordSkippedByClaim(this.parts, claimed.run, now);
    // The claim refused the plan (the policy, the hook or the run changed): the next plan reads the policy again.
    if (applied === 'claimed') this.parts.policies.forget();
    const planned = applied === 'start' ? pre : null;
    // The claim answers the head of a run whose start it applied: the rest is what the plan was made from.
    const run: Run = planned
      ? { ...claimed.run, payload: planned.payload, headers: null, input: planned.call!.kwargs, result: null, history: [] }
      : (claimed.run as Run);
    const a = new Attempt(run, claimed.token, stores.runs, clock, this.deps.logger, this.deps.sleep);
    a.policy = policy;
    a.hookRevision = claimed.hookRevision;
    a.planned = planned ?? undefined;
    // A claim that landed after the grace ended: give the run straight back rather than start work.
    if (this.handingBack) return this.handBack(a, 'shutdown');
    this.inFlight.add(a);
    this.leases.add(a);
    metrics.started.inc({ hook: a.run.hook });
    this.deps.reporter.announce(a.run, 'started');
    if (a.run.attempts === 1) metrics.acceptToStart.observe(Math.max(0, now - Date.parse(a.run.created_at)) / 1000);
    metrics.inFlight.inc();
    // Tracing on: the attempt's steps run inside its span (see tracing.ts); off: nothing is built.
    const span = tracingOn() ? beginAttempt(a.run, traceparent, claimStartedAt) : undefined;
    try {
      // An interrupted attempt stops at once even if its tool ignores the signal.
      await Promise.race([span ? span.within(() => this.work(a, now)) : this.work(a, now), a.interrupted]);
    } finally {
      span?.end(a.interruptError);
      this.leases.delete(a);
      this.inFlight.delete(a);
      metrics.inFlight.dec();
    }
  }

  /** The attempt's steps, then its outcome written (never by an attempt that was interrupted). */
  private async work(a: Attempt, startedAt: number): Promise<void> {
    const state: AttemptState = { acted: a.run.acted === 'start' };
    let outcome: Outcome;
    try {
      outcome = await runAttempt(this.parts, a, state);
    } catch (err) {
      outcome = { error: toHookyardError(err), acted: state.acted };
    }
    if (a.interruptReason) return;
    try {
      await traced(SPAN.outcome, async (span) => {
        span?.setAttribute('hookyard.run.outcome', 'status' in outcome ? outcome.status : 'parked' in outcome ? 'parked' : `error:${outcome.error.kind}`);
        await recordOutcome(this.parts, a, startedAt, outcome, state.http ?? null);
      });
    } catch (err) {
      const e = toHookyardError(err);
      const where = { run: a.run.id, hook: a.run.hook, attempt: a.run.attempts, err: e.message };
      // Never overwrite: a refused write means a newer attempt owns the run.
      if (a.superseded) this.deps.logger.warn(where, 'attempt superseded; its outcome is not written');
      else this.deps.logger.error({ ...where, kind: e.kind }, 'could not record the outcome; the lease sweep takes the run over');
    }
  }
}
