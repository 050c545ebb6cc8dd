import { randomBytes } from 'node:crypto';
import {
  HOOKS_APPROVAL_REQUESTED_TOPIC,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  idempotencyKeyOf,
  assignOwn,
  createSecretResolver,
  secretScopeOf,
  allows,
  argsHash,
  backoffMs,
  forbidden,
  internal,
  isRetryableKind,
  notFound,
  toHookyardError,
} from '@hookyard/core';
import type {
  Clock,
  SecretResolver,
  Hook,
  HookMetrics,
  HookyardError,
  HttpExchange,
  Interaction,
  Logger,
  Run,
  RunHead,
  Settings,
  SubjectKey,
} from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import type { Claimed, ClaimedPlanned, CompletedStatus, Stores } from '@hookyard/store';
import type { RunPlanHint } from '@hookyard/bus';
import { ApprovalRepo, ParkRequest, isParkRequest, toolPolicy, type ApprovalDecision, type ToolPolicy, type ToolRepo } from '@hookyard/tools';
import { linksForCall, scrubError, scrubResult } from './approval-links';
import { answeredStep, approvalGate, decideFresh, policyCall, type ApprovalStep } from './approval-step';
import { Attempt, LeaseKeeper, OUTCOME_RETRY_CAP_MS, OUTCOME_RETRY_FIRST_MS, realSleep } from './attempt';
import type { Preplan } from './attempt';
import { byRun, checkAct, commitAct, intentOf } from './door';
import { HookCache, PolicyCache } from './hook-cache';
import { HookEvaluator, TOOL_EXTRA_SUBJECT, hookAllowlist, notAllowed } from './hook-plan';
import type { DoorAct } from './hook-plan';
import { agentCallOf, agentOfRun } from './agent-call';
import { checkStoppedClaim, committedOutcome, waitOutcome } from './woken';
import type { WokenOutcome } from './woken';
import type { RunReporter } from '@hookyard/report';
import { callTool } from './tool-call';
import { SPAN, beginAttempt, recordWait, tracingOn } from './tracing';
import { traced } from '@hookyard/core';

type Outcome = { status: CompletedStatus; result: unknown } | { error: HookyardError; acted: boolean } | { parked: Interaction };

/** What an attempt learnt on its way: which side of acting it is, and its HTTP tool's last reply (kept with its outcome line). */
interface AttemptState {
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

/**
 * Runs one attempt of one run per `handle` call: claim, condition, door
 * contract, checks, act, tool, outcome. Attempts in flight are tracked so a
 * shutdown can hand them back.
 */
export class RunExecutor {
  // A set, not a map by run id: a stale attempt and its replacement may both be here for a moment.
  private readonly inFlight = new Set<Attempt>();
  private readonly evaluator: HookEvaluator;
  /** Hook records by the revision the claim answers: no read between the claim and the tool while a hook is unchanged. */
  private readonly hooks: HookCache;
  /** The approval policy plans made before a claim decide with (the claim checks its version). */
  private readonly policies: PolicyCache;
  private readonly leases: LeaseKeeper;
  /** The approval policy in front of every provider: every call of this executor goes through it. */
  private readonly gate: ApprovalRepo;
  /** Resolves HOOKS_APPROVAL_LINK_SECRET when an approval's links are signed. */
  private readonly secrets: SecretResolver;
  /** No new claims once set (stop() began). */
  private closed = false;
  /** Set when the grace is over and what is left is handed back: a claim landing now is handed back too. */
  private handingBack = false;

  constructor(private readonly deps: RunExecutorDeps) {
    this.evaluator = new HookEvaluator({
      jq: deps.jq,
      hooks: deps.stores.hooks,
      interactions: deps.stores.interactions,
      states: deps.stores.states,
      jqTimeoutMs: deps.settings.jqTimeoutMs,
    });
    this.hooks = new HookCache(deps.stores.hooks, deps.clock);
    this.policies = new PolicyCache(deps.stores.hooks, deps.clock);
    this.leases = new LeaseKeeper(deps.settings.leaseMs);
    this.secrets = deps.secrets ?? createSecretResolver({ scope: secretScopeOf(deps.settings) });
    this.gate = approvalGate(deps.tools, deps.stores.hooks, deps.jq, deps.settings);
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
    const { settings, stores, metrics, logger, clock } = this.deps;
    const claimStartedAt = tracingOn() ? Date.now() : 0;
    // Traced attempts plan after the claim, inside their span.
    const pre = hint && !tracingOn() ? await this.preplan(runId, hint) : null;
    if (pre && this.closed) return;
    // Read beside the claim, not after it: the policy does not depend on the run, and this saves a
    // sequential round trip before the tool starts. Not read for a plan the claim may apply (it checks
    // the version the plan used); unused when the claim finds nothing.
    const policy = pre ? undefined : stores.hooks.getApprovalPolicy();
    policy?.catch(() => undefined);
    const now = clock.now();
    let claimed: Claimed | ClaimedPlanned | null;
    try {
      claimed = pre ? await this.claimPlanned(runId, now, pre) : await stores.runs.claim(runId, settings.instanceId, settings.leaseMs, now);
    } catch (err) {
      const e = toHookyardError(err);
      // not_found: the run was discarded or expired since it was published.
      if (e.kind === 'not_found') logger.debug({ run: runId, err: e.message }, 'run to claim is gone');
      else logger.warn({ run: runId, kind: e.kind, err: e.message }, 'claim failed; the sweep dispatches the run again');
      return;
    }
    // Not claimable: a duplicate delivery, not due yet, or finished.
    if (!claimed) return;
    const applied = pre ? (claimed as ClaimedPlanned).applied : null;
    if (applied === 'skipped') return this.skippedByClaim(claimed.run, now);
    // The claim refused the plan (the policy, the hook or the run changed): the next plan reads the policy again.
    if (applied === 'claimed') this.policies.forget();
    const planned = applied === 'start' ? pre : null;
    // The claim answers the head of a run whose start it applied: the rest is what the plan was made from.
    const run: Run = planned
      ? { ...claimed.run, payload: planned.payload, headers: null, input: planned.call!.kwargs, result: null, history: [] }
      : (claimed.run as Run);
    const a = new Attempt(run, claimed.token, stores.runs, clock, logger, this.deps.sleep);
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

  /**
   * Plans a fresh run from its dispatch hint, before any store write: the
   * condition, the arguments, the allowlist and the approval policy. Only a
   * plan the claim can apply alone comes back (skip, or start this tool with
   * these arguments); anything else — a hook with a subject (`$state`,
   * `$parked` are reads), a door contract act, an approval that parks or
   * denies, a jq error, a tool not allowed — is null, and the run is planned
   * after its claim as before, where each of those is handled and recorded.
   */
  private async preplan(runId: string, hint: RunPlanHint): Promise<Preplan | null> {
    try {
      const [current, policy] = await Promise.all([this.hooks.current(hint.hook), this.policies.current()]);
      if (!current || current.hook.subject) return null;
      const { hook, revision } = current;
      // JSON.parse keeps a `__proto__` key as an own property: payload keys never reach a prototype.
      const payload: unknown = JSON.parse(hint.payloadJson);
      const run = { id: runId, hook: hint.hook, topic: hint.topic, payload } as Run;
      const plan = await this.evaluator.plan(hook, run);
      const { payloadJson } = hint;
      const policyVersion = policy.version;
      if (plan.skip)
        return {
          hook,
          payload,
          claim: { revision, payloadJson, policyVersion, topic: hint.topic, nonce: randomBytes(8).toString('hex'), plan: { skip: { result: plan.result } } },
        };
      if (plan.act) return null;
      if (!allows(hookAllowlist(hook, this.deps.settings.toolsAllow), hook.tool)) return null;
      const step = await decideFresh(this.gate, policyCall(hook, plan.kwargs, hint.topic, null, null), hook.approval ?? [], Promise.resolve(policy));
      if (step.next !== 'call') return null;
      const tool = await toolPolicy(this.deps.tools, hook.tool);
      const note = step.detail ? { event: 'approval policy', detail: step.detail } : undefined;
      return {
        hook,
        payload,
        claim: {
          revision,
          payloadJson,
          policyVersion,
          topic: hint.topic,
          nonce: randomBytes(8).toString('hex'),
          plan: { start: { input: plan.kwargs, resumable: tool.crashResumable, ...(note ? { note } : {}) } },
        },
        call: { kwargs: plan.kwargs, extras: plan.extras, subject: plan.subject, decision: step.decision, policy: tool },
      };
    } catch (err) {
      // Whatever failed here fails again after the claim, where it is recorded on the run.
      this.deps.logger.debug({ run: runId, err: toHookyardError(err).message }, 'no plan before the claim; planning after it');
      return null;
    }
  }

  /**
   * The planned claim, sent again with the same nonce while the store is
   * unreachable (for at most half a lease): a claim that recorded its start but
   * whose answer was lost must reach this attempt, or its run would lapse as
   * started without its tool ever called. A repeat of a call that landed
   * answers the claim it made (see PlannedClaim.nonce).
   */
  private async claimPlanned(runId: string, now: number, pre: Preplan): Promise<ClaimedPlanned | null> {
    const { settings, stores, clock } = this.deps;
    const sleep = this.deps.sleep ?? realSleep;
    const until = clock.now() + settings.leaseMs / 2;
    for (let wait = OUTCOME_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, OUTCOME_RETRY_CAP_MS)) {
      try {
        return await stores.runs.claimPlanned(runId, settings.instanceId, settings.leaseMs, now, pre.claim);
      } catch (err) {
        const e = toHookyardError(err);
        if ((e.kind !== 'unavailable' && e.kind !== 'timeout') || clock.now() + wait > until || this.closed) throw e;
        this.deps.logger.debug({ run: runId, err: e.message }, 'planned claim not answered; sending it again');
        await sleep(wait);
      }
    }
  }

  /** A run the claim ended skipped in its own step (its plan said so): counted and reported as an attempt's outcome is. */
  private async skippedByClaim(head: RunHead, now: number): Promise<void> {
    const { metrics } = this.deps;
    metrics.started.inc({ hook: head.hook });
    if (head.attempts === 1) metrics.acceptToStart.observe(Math.max(0, now - Date.parse(head.created_at)) / 1000);
    this.observe(head, now, 'skipped');
    await this.deps.reporter.finished(head);
  }

  private async work(a: Attempt, startedAt: number): Promise<void> {
    const state: AttemptState = { acted: a.run.acted === 'start' };
    let outcome: Outcome;
    try {
      outcome = await this.attempt(a, state);
    } catch (err) {
      outcome = { error: toHookyardError(err), acted: state.acted };
    }
    if (a.interruptReason) return;
    try {
      await traced(SPAN.outcome, async (span) => {
        span?.setAttribute('hookyard.run.outcome', 'status' in outcome ? outcome.status : 'parked' in outcome ? 'parked' : `error:${outcome.error.kind}`);
        await this.record(a, startedAt, outcome, state.http ?? null);
      });
    } catch (err) {
      const e = toHookyardError(err);
      const where = { run: a.run.id, hook: a.run.hook, attempt: a.run.attempts, err: e.message };
      // Never overwrite: a refused write means a newer attempt owns the run.
      if (a.superseded) this.deps.logger.warn(where, 'attempt superseded; its outcome is not written');
      else this.deps.logger.error({ ...where, kind: e.kind }, 'could not record the outcome; the lease sweep takes the run over');
    }
  }

  /** The hook's steps up to the tool's result. Throws the failure; `state.acted` says on which side of acting. */
  private async attempt(a: Attempt, state: AttemptState): Promise<Outcome> {
    const { run } = a;
    const { stores } = this.deps;
    // Planned before the claim, which recorded the start: on to the tool with what was planned.
    if (a.planned?.call) {
      state.acted = true;
      const { kwargs, extras, subject, decision, policy } = a.planned.call;
      return this.callHookTool(a, a.planned.hook, { kwargs, extras, subject, decision, policy, startsHere: true }, state);
    }
    // Interrupted after its door act committed (the store made it due again): the commit is done and is
    // never made twice; the run ends with what it did, read from the records.
    if (run.acted === 'cancel' || run.acted === 'resume' || run.acted === 'take') {
      state.acted = true;
      await a.write((token, now) =>
        stores.runs.note(
          run.id,
          token,
          'committed',
          `its ${run.acted} on ${run.acted_ids.join(', ')} committed before the interruption: ending with its outcome`,
          now,
        ),
      );
      return committedOutcome(run, run.acted, run.acted_ids, stores.interactions);
    }
    // An agent's call: the call (tool, arguments, runtime allowlist) is the run's payload, and its agent's record
    // stands where a hook's would; there is no condition, door contract or subject.
    const call = run.door === 'agent' ? await agentCallOf(run, stores.agents) : null;
    if (call && 'revoked' in call) {
      await a.write((token, now) => stores.runs.note(run.id, token, 'agent', call.revoked, now));
      return { status: 'denied', result: { message: call.revoked, rule: null, policy_version: null } };
    }
    const hook = call ? call.hook : await this.hooks.get(run.hook, a.hookRevision);
    if (!hook) throw notFound(`hook '${run.hook}' is no longer registered`);
    // A start made before an operator's retry: the store resets attempts and keeps the start, and
    // every claim counts one, so a started run claimed at attempt 1 was retried (a crash replay
    // comes at 2 or later). Its call used up the approval it had (the retry dropped the link to
    // it): this start asks the current policy again, and may park or be denied.
    const retried = run.acted === 'start' && run.attempts === 1;
    // A run woken from its interaction goes on from the answer.
    let approved = false;
    let answered: Interaction | null = null;
    if (run.interaction && !retried) {
      const i = await stores.interactions.get(run.interaction);
      if (i && i.status !== 'open') {
        if (tracingOn()) recordWait(i);
        const woken = await this.woken(a, hook, i);
        if (woken !== 'proceed') return woken;
        approved = true;
        if (i.kind === 'approval') answered = i;
      }
    }
    // Stopped mid-claim last time: go on only if the claim provably did not commit.
    if (run.claim_intent && run.acted === '') {
      const check = await checkStoppedClaim(run, stores.interactions);
      if ('error' in check) return { error: check.error, acted: false };
      await a.write((token, now) => stores.runs.note(run.id, token, 'claim_checked', check.note, now));
      if ('committed' in check) {
        // The claim committed before the stop: record it as the attempt would have, and end with its outcome.
        const { verb, ids } = check.committed;
        await a.write((token, now) => stores.runs.act(run.id, token, { acted: verb, actedIds: ids }, now));
        state.acted = true;
        return committedOutcome(run, verb, ids, stores.interactions);
      }
    }
    let kwargs: Record<string, unknown>;
    let extras: Record<string, unknown>;
    let subject: SubjectKey | null;
    if (call) {
      // A replayed start calls with the kept input, like a hook's; a fresh one with the call's arguments.
      kwargs = state.acted && !approved ? (run.input ?? {}) : call.args;
      extras = { [TOOL_EXTRA_IDEMPOTENCY_KEY]: idempotencyKeyOf(run) };
      subject = null;
    } else if (state.acted && !approved) {
      // A replayed start: the kept input, the same extras; no condition or door contract.
      kwargs = run.input ?? {};
      subject = await this.evaluator.subject(hook, run);
      extras = await this.evaluator.extras(hook, run, subject);
    } else {
      const plan = await traced(SPAN.condition, async (span) => {
        const p = await this.evaluator.plan(hook, run);
        span?.setAttribute('hookyard.condition.matched', !p.skip);
        return p;
      });
      if (plan.skip) return { status: 'skipped', result: plan.result };
      if (plan.act) return this.act(a, hook, plan.act, plan.handOn, state);
      ({ kwargs, extras, subject } = plan);
      // Extras the answering run handed on are merged in; the platform's own (idempotency key, subject) stay.
      const handedOn = answered?.resolution?.extras;
      if (handedOn) {
        const own = { [TOOL_EXTRA_IDEMPOTENCY_KEY]: extras[TOOL_EXTRA_IDEMPOTENCY_KEY], [TOOL_EXTRA_SUBJECT]: extras[TOOL_EXTRA_SUBJECT] };
        assignOwn(extras, handedOn);
        for (const [k, v] of Object.entries(own))
          if (v === undefined) delete extras[k];
          else extras[k] = v;
      }
    }
    const allowlist = call ? call.allowlist(this.deps.settings.toolsAllow) : hookAllowlist(hook, this.deps.settings.toolsAllow);
    if (!allows(allowlist, hook.tool)) throw notAllowed(hook.tool, call ? `agent '${call.agent}'` : `hook '${hook.name}'`, allowlist);
    const step = await this.approvalStep(a, hook, kwargs, extras, answered);
    // A replayed start was allowed when it first started; the policy (or its approval) must still allow it.
    if (state.acted && !approved && !retried && step.next !== 'call') {
      throw forbidden(
        `the replayed start of tool '${hook.tool}' is no longer allowed: ${step.next === 'deny' ? step.detail : `the policy now asks for an approval (${step.decision.rule})`}`,
      );
    }
    if (step.next === 'deny') {
      await a.write((token, now) => stores.runs.note(run.id, token, 'approval policy', step.detail, now));
      return { status: 'denied', result: step.result };
    }
    if (step.next === 'park') return this.parkForApproval(a, hook, kwargs, extras, step.decision);
    // Started by this attempt (not a replay of an earlier attempt's start, which may have left).
    const startsHere = !state.acted || approved || retried;
    if (startsHere && step.detail) await a.write((token, now) => stores.runs.note(run.id, token, 'approval policy', step.detail, now));
    const policy = await toolPolicy(this.deps.tools, hook.tool);
    if (startsHere) {
      // Recorded before the call: from here on the platform adds no attempts.
      await a.write((token, now) => stores.runs.act(run.id, token, { acted: 'start', input: kwargs, resumable: policy.crashResumable }, now));
      state.acted = true;
    }
    return this.callHookTool(a, hook, { kwargs, extras, subject, decision: step.decision, policy, startsHere }, state);
  }

  /** The tool call of an attempt whose start is recorded (by this attempt when `startsHere`, else by an earlier one). */
  private async callHookTool(
    a: Attempt,
    hook: Hook,
    call: {
      kwargs: Record<string, unknown>;
      extras: Record<string, unknown>;
      subject: SubjectKey | null;
      decision: ApprovalDecision;
      policy: ToolPolicy;
      startsHere: boolean;
    },
    state: AttemptState,
  ): Promise<Outcome> {
    const { run } = a;
    const { stores } = this.deps;
    const { kwargs, extras, subject, policy, startsHere } = call;
    // The signed links of the approval a hooks_approval_requested run is about: made for this call only, never kept.
    const links = await linksForCall(
      { settings: this.deps.settings, secrets: this.secrets, interactions: stores.interactions, logger: this.deps.logger },
      run,
      this.deps.clock.now(),
    );
    let called: { result: unknown };
    // The reply of the tool's HTTP call (the last, under its retry policy); one that lands after the call lost its race is not its.
    let listening = true;
    const onHttp = (x: HttpExchange) => {
      if (listening) state.http = scrubResult(x, links) as HttpExchange;
    };
    try {
      called = await callTool(this.gate, {
        tool: hook.tool,
        args: kwargs,
        ctx: {
          runId: run.id,
          hook: hook.name,
          topic: run.topic,
          attempt: run.attempts,
          idempotencyKey: run.id,
          extras: links ? { ...extras, ...links.extras } : extras,
          subject,
          logger: this.deps.logger,
          approval: call.decision,
          onHttp,
        },
        interrupt: a,
        timeoutMs: this.deps.settings.toolTimeoutMs,
        retry: policy.retry,
        logger: this.deps.logger,
      });
    } catch (err) {
      const e = scrubError(toHookyardError(err), links);
      // A call that never left is not a call: the start is withdrawn, and the platform's backoff applies.
      if (startsHere && e.notSent && !a.interruptReason) {
        // Tried again through a store blip like an outcome write (idempotent per token): the
        // blip that kept the tool from being reached often keeps this write out too.
        await a.writeOutcome('start withdrawn', this.deps.settings.leaseMs, (token, now) =>
          stores.runs.withdrawStart(run.id, token, `its tool call never left: ${e.kind}: ${e.message}`, now),
        );
        state.acted = false;
      }
      throw e;
    } finally {
      listening = false;
    }
    const { result } = called;
    if (isParkRequest(result)) return this.park(a, hook, kwargs, extras, result);
    return { status: 'succeeded', result: scrubResult(result, links) };
  }

  /** A run woken from interaction `i`: a wait ends from its answer; an approval asks the approval continuation. */
  private async woken(a: Attempt, hook: Hook, i: Interaction): Promise<Outcome | 'proceed'> {
    const { run } = a;
    if (i.kind === 'wait') return waitOutcome(i);
    if (this.deps.approvals) return this.deps.approvals({ run, hook, interaction: i });
    // Approved, or expired with on_timeout allow: on to the call (its arguments are checked against args_hash there).
    if (i.status === 'approved' || (i.status === 'expired' && i.on_timeout === 'allow')) return 'proceed';
    const step = answeredStep(this.gate, i, hook.tool, {});
    if (step.next !== 'deny') return { error: internal(`run woke from approval ${i.id} in status ${i.status}`), acted: run.acted !== '' };
    await a.write((token, now) => this.deps.stores.runs.note(run.id, token, 'approval policy', step.detail, now));
    return { status: 'denied', result: step.result };
  }

  /**
   * What the approval policy says about this call. A run woken by its
   * answered approval reads that answer (and hashes its arguments again)
   * instead of asking the policy.
   */
  private async approvalStep(
    a: Attempt,
    hook: Hook,
    kwargs: Record<string, unknown>,
    extras: Record<string, unknown>,
    answered: Interaction | null,
  ): Promise<ApprovalStep> {
    if (answered) return answeredStep(this.gate, answered, hook.tool, kwargs);
    const subject = extras[TOOL_EXTRA_SUBJECT] as { scope: string; kind: string; key: string } | undefined;
    return decideFresh(this.gate, policyCall(hook, kwargs, a.run.topic, subject ?? null, agentOfRun(a.run)), hook.approval ?? [], a.policy);
  }

  /**
   * Parks the run, before its hook acts, on a new approval bound to the tool,
   * the hash of the exact arguments, the rule, the policy version and the
   * expiry; then fires `hooks_approval_requested` so a deployment routes it to
   * people (a run on that topic itself fires none: no loops).
   */
  private async parkForApproval(
    a: Attempt,
    hook: Hook,
    kwargs: Record<string, unknown>,
    extras: Record<string, unknown>,
    decision: ApprovalDecision,
  ): Promise<Outcome> {
    const { run } = a;
    const subject = (extras[TOOL_EXTRA_SUBJECT] as Interaction['subject'] | undefined) ?? null;
    await a.write((token, now) =>
      this.deps.stores.runs.note(
        run.id,
        token,
        'approval requested',
        `by ${decision.rule} (${decision.source} rules, policy version ${decision.policy_version})${decision.message ? `: ${decision.message}` : ''}`,
        now,
      ),
    );
    const request = new ParkRequest('approval', (decision.timeout_seconds ?? 0) * 1000, decision.on_timeout ?? 'deny', {
      rule: decision.rule,
      policyVersion: decision.policy_version,
      answerHooks: decision.answer_hooks ?? [],
      // Only an agent's call has a caller to ask; a hook's run keeps no approver.
      approver: decision.approver && agentOfRun(run) ? decision.approver : null,
      subject,
    });
    const outcome = await this.park(a, hook, kwargs, extras, request);
    if ('parked' in outcome && run.topic !== HOOKS_APPROVAL_REQUESTED_TOPIC) {
      const i = outcome.parked;
      const payload = {
        interaction: i.id,
        run: run.id,
        hook: run.hook,
        topic: run.topic,
        agent: agentOfRun(run),
        tool: hook.tool,
        args: kwargs,
        rule: decision.rule,
        message: decision.message,
        policy_version: decision.policy_version,
        answer_hooks: i.answer_hooks,
        on_timeout: i.on_timeout,
        expires_at: i.expires_at,
        subject,
      };
      await this.deps.reporter.platformEvent(HOOKS_APPROVAL_REQUESTED_TOPIC, payload, { run: run.id, hook: run.hook });
    }
    return outcome;
  }

  /** The tool asked to park its run (the `wait` tool): one atomic step ends the attempt and opens the interaction. */
  private async park(a: Attempt, hook: Hook, kwargs: Record<string, unknown>, extras: Record<string, unknown>, req: ParkRequest): Promise<Outcome> {
    const { stores, metrics, logger } = this.deps;
    const { run } = a;
    const subject = (req.extra.subject ?? extras[TOOL_EXTRA_SUBJECT] ?? null) as Interaction['subject'];
    // An end-of-attempt write like complete: tried again through a store blip (park answers a re-send as stored).
    const { interaction } = await a.writeOutcome('parked', this.deps.settings.leaseMs, (token, now) =>
      stores.interactions.park({
        run: run.id,
        token,
        kind: req.kind,
        tool: hook.tool,
        argsHash: argsHash(kwargs),
        rule: req.extra.rule ?? null,
        policyVersion: req.extra.policyVersion ?? null,
        answerHooks: req.extra.answerHooks,
        approver: req.extra.approver ?? null,
        subject,
        onTimeout: req.onTimeout,
        expiresAt: now + req.timeoutMs,
        now,
      }),
    );
    metrics.parkedTotal.inc({ hook: run.hook, kind: req.kind });
    this.deps.reporter.announce({ ...run, status: 'parked', lease: null, interaction: interaction.id, updated_at: interaction.created_at }, 'parked');
    logger.info({ run: run.id, hook: run.hook, interaction: interaction.id, kind: req.kind, expires_at: interaction.expires_at }, 'run parked');
    return { parked: interaction };
  }

  /**
   * The door contract acts on open interactions: checks, then `claim_intent`,
   * the commit, and `acted`. Woken runs are published; the run ends with what
   * it did (a take: the taken outcome's result).
   */
  private async act(a: Attempt, hook: Hook, act: DoorAct, handOn: Record<string, unknown> | null, state: AttemptState): Promise<Outcome> {
    const { stores, clock, logger } = this.deps;
    const { run } = a;
    const found = await checkAct(act, hook, run, stores);
    await a.write((token, now) => stores.runs.setClaimIntent(run.id, token, intentOf(act), now));
    await this.deps.pause?.('claim_intent', run);
    if (a.interruptReason) throw a.interruptError!;
    const committed = await commitAct(act, handOn, byRun(hook, run), found, stores.interactions, () => clock.now());
    await a.write((token, now) => stores.runs.act(run.id, token, { acted: act.verb, actedIds: committed.ids }, now));
    state.acted = true;
    for (const woken of committed.woken) this.deps.reporter.announce(woken, 'woken');
    if (committed.woken.length > 0) {
      await this.deps.dispatch?.(committed.woken.map((r) => r.id)).catch((err: unknown) => {
        logger.warn({ run: run.id, err: toHookyardError(err).message }, 'could not publish the woken runs; the sweep dispatches them');
      });
    }
    for (const ended of committed.ended) await this.deps.reporter.finished(ended);
    logger.info({ run: run.id, hook: hook.name, acted: act.verb, ids: committed.ids }, 'door contract acted');
    if (committed.error) return { error: committed.error, acted: true };
    if (act.verb === 'take') return { status: 'succeeded', result: committed.taken?.result ?? null };
    return { status: 'succeeded', result: act.verb === 'cancel' ? { cancelled: committed.ids } : { resumed: committed.ids } };
  }

  /** Writes the outcome: finished, retried later, or held as failed. */
  private async record(a: Attempt, startedAt: number, outcome: Outcome, http: HttpExchange | null): Promise<void> {
    const { settings, stores, logger, metrics, clock } = this.deps;
    const { run } = a;
    if ('parked' in outcome) {
      // The park ended the attempt: no lease, no worker slot, nothing else to write.
      this.observe(run, startedAt, 'parked');
      return;
    }
    if ('status' in outcome) {
      const done = await a.writeOutcome(outcome.status, settings.leaseMs, (token, now) =>
        stores.runs.complete(run.id, token, outcome.status, outcome.result, now, http),
      );
      this.observe(run, startedAt, outcome.status);
      this.countAgentCall(run, outcome.status);
      return this.deps.reporter.finished(done);
    }
    if (a.superseded) throw outcome.error;
    const { error, acted } = outcome;
    if (!acted && isRetryableKind(error.kind) && run.attempts < settings.maxAttempts) {
      const dueAt = clock.now() + backoffMs(run.attempts, settings.retryBaseMs, settings.retryCapMs);
      const waiting = await a.writeOutcome('retry_wait', settings.leaseMs, (token, now) =>
        stores.runs.scheduleRetry(run.id, token, error.toInfo(), dueAt, now, http),
      );
      metrics.retried.inc({ hook: run.hook, kind: error.kind });
      this.deps.reporter.announce(waiting, 'retry_scheduled');
      this.observe(run, startedAt, 'retry_wait');
      logger.warn(
        { run: run.id, hook: run.hook, attempt: run.attempts, kind: error.kind, err: error.message, due_at: new Date(dueAt).toISOString() },
        'attempt failed before the hook acted; retry scheduled',
      );
      return;
    }
    const done = await a.writeOutcome('failed', settings.leaseMs, (token, now) => stores.runs.fail(run.id, token, error.toInfo(), now, http));
    this.observe(run, startedAt, 'failed');
    this.countAgentCall(run, 'failed');
    await this.deps.reporter.finished(done);
  }

  /** An agent's call that ended: counted per agent, tool and outcome. */
  private countAgentCall(run: Run, status: string): void {
    const agent = agentOfRun(run);
    const tool = (run.payload as { tool?: unknown } | null)?.tool;
    if (agent && typeof tool === 'string') this.deps.metrics.agentCalls.inc({ agent, tool, status });
  }

  private observe(run: Pick<Run, 'hook'>, startedAt: number, status: string): void {
    this.deps.metrics.duration.observe({ hook: run.hook, status }, Math.max(0, this.deps.clock.now() - startedAt) / 1000);
  }
}
