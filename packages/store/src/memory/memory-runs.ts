import { isDeepStrictEqual } from 'node:util';
import { AGENT_CALL_TOPIC, FINISHED_STATUSES, HOOKS_RUN_FAILED_TOPIC, HookyardError, agentHookName, badInput, conflict, notFound } from '@hookyard/core';
import type { ErrorInfo, HttpExchange, Run, RunHead, RunStatus } from '@hookyard/core';
import { agentKeyScope, callIdentity, isJoinable } from '../agent-rules';
import { decideInterrupt, replayDetail } from '../interrupt';
import { MAX_HOOKS_PER_EVENT, idInTimeRange, runIdAt, runIdBase } from '../run-ids';
import * as rules from '../run-rules';
import { errorMatches } from '../run-filter';
import type {
  ActInput,
  Claimed,
  ClaimedPlanned,
  PlannedClaim,
  CompletedStatus,
  DeliveryClaim,
  InterruptPolicy,
  KeepDeliveryResult,
  KeepAgentCallInput,
  KeepEventInput,
  KeptAgentCall,
  KeptRun,
  LapsedOutcome,
  RunCounts,
  RunFilter,
  RunPage,
  ReplayEdit,
  UnknownOutcomeVerdict,
  RunStore,
  UnroutedPage,
  UnroutedTopic,
  UnroutedUsage,
} from '../types';
import { unroutedRecordOf } from '../unrouted-rules';
import { DeliveryClaims } from './delivery-claims';
import { MemoryUnrouted } from './memory-unrouted';
import { MemoryStats, hookTotalsOf, outcomeField, statsBucket } from '../stats-rules';
import type { MinuteStats, PlainCounts } from '../stats-rules';

/** A kept run plus what the store tracks beside it. */
interface Slot {
  run: Run;
  /** Fencing token of the latest claim (survives the attempt, unlike `run.lease`). */
  token: number;
  /**
   * What ended the attempt of `token` ('' while it runs or after an operator
   * verb): complete, fail, schedule_retry, released, lapsed. Lets a repeated
   * end-of-attempt write recognise its own outcome (as the Lua scripts do).
   */
  ended: string;
  /** Next time the sweep dispatches it; null unless pending/retry_wait. */
  dispatchAt: number | null;
  dueMs: number | null;
  /** When the latest attempt was claimed (its tool duration runs from there); null before the first claim. */
  /** The nonce of the planned claim that took the attempt (a repeat of that call answers it). */
  claimNonce?: string;
  claimedMs: number | null;
  finishedMs: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A copy of the run without its bulky fields, as outcome writes answer (run_head in transitions.lua). */
function headOf(run: Run): RunHead {
  const { payload: _payload, headers: _headers, input: _input, result: _result, history: _history, ...head } = run;
  return structuredClone(head);
}
const sameError = (a: ErrorInfo | null, b: ErrorInfo) => !!a && a.kind === b.kind && a.message === b.message;

/**
 * The run store in one process. Every method does its whole state change
 * synchronously (no await inside), so each is atomic like its Lua twin.
 */
export class MemoryRunStore implements RunStore {
  private readonly slots = new Map<string, Slot>();
  private readonly deliveries = new DeliveryClaims();
  private readonly unrouted = new MemoryUnrouted();
  /** An agent's idempotency key (`agent id\nkey`) -> the run it kept and until when the key answers it. */
  private readonly agentKeys = new Map<string, { id: string; until: number }>();
  /** `<agent scope>\n<call identity>` -> the run of the latest such call kept (joined while isJoinable). */
  private readonly openCalls = new Map<string, string>();
  /** Per-minute counters, kept by the transitions as stats.lua keeps them. */
  private readonly stats = new MemoryStats();
  /**
   * Set by the interaction store: keeps a completed run's outcome on the
   * interaction it was resumed from, inside `complete` (one step, as in complete.lua).
   */
  keepOutcome: ((run: Run, now: number) => void) | undefined;
  /** Set by the interaction store: a discarded parked run's open interaction is cancelled in the same step. */
  onDiscardParked: ((run: Run, now: number) => void) | undefined;
  /** Set by the interaction store: the interactions of runs deleted by retention go with them. */
  onExpired: ((runIds: string[]) => void) | undefined;

  constructor(
    private readonly hookNamesOnTopic: (topic: string) => string[],
    /** The current revision of a hook (read in the claim's step, as claim.lua does). */
    private readonly hookRevisionOf: (name: string) => string | null,
    private readonly policyVersionOf: () => number = () => 0,
  ) {}

  /** The delivery ids whose duplicate check still holds at `now` (see memoryOnlyCounts). */
  deliveryIdsHeld(now: number): number {
    return this.deliveries.heldAt(now);
  }

  async keepEvent(input: KeepEventInput): Promise<KeptRun[]> {
    return this.keep(input, input.deliveryId ?? null);
  }

  async keepDelivery(input: KeepEventInput, claim: DeliveryClaim): Promise<KeepDeliveryResult> {
    if (!Number.isInteger(claim.ttlMs) || claim.ttlMs < 1) throw badInput(`delivery claim ttl must be a positive integer of ms, got ${claim.ttlMs}`);
    // The HTTP door's claims keep the key they always had; another door's carry its name, so doors never share one.
    const door = input.door ?? rules.DEFAULT_DOOR;
    const key = JSON.stringify(door === 'http' ? [input.topic, claim.id] : [input.topic, claim.id, door]);
    // Checked first, claimed after the keep: a refused keep (too many hooks) leaves no claim, as in keep_event.lua.
    if (this.deliveries.held(key, input.now)) return { status: 'duplicate' };
    const runs = this.keep(input, claim.id);
    this.deliveries.claim(key, claim.ttlMs, input.now);
    return { status: 'kept', runs };
  }

  async keepAgentCall(input: KeepAgentCallInput): Promise<KeptAgentCall> {
    const scope = agentKeyScope(input);
    const key = `${scope}\n${input.call.idempotency_key}`;
    const held = this.agentKeys.get(key);
    if (held && held.until > input.now && this.slots.has(held.id)) return { id: held.id, created: false, joined: false };
    // An identical call still open is joined (keep_agent_call.lua: the pointer is checked against the run's state as it is now).
    const identity = `${scope}\n${callIdentity(input.call)}`;
    const open = this.openCalls.get(identity);
    const openSlot = open ? this.slots.get(open) : undefined;
    if (openSlot && isJoinable(openSlot.run.status, openSlot.run.acted, openSlot.ended)) {
      this.agentKeys.set(key, { id: openSlot.run.id, until: input.now + input.keyTtlMs });
      return { id: openSlot.run.id, created: false, joined: true };
    }
    const id = runIdAt(runIdBase(input.now, 0), 0);
    const slot = pendingSlot(
      {
        id,
        hook: agentHookName(input.agent),
        topic: AGENT_CALL_TOPIC,
        payload: input.call,
        delivery_id: null,
        door: 'agent',
        verified: false,
        replay_of: null,
        trigger_link: null,
        traceparent: input.traceparent ?? null,
      },
      input.now,
      input.dispatchGraceMs,
    );
    this.slots.set(id, slot);
    this.stats.add(input.now, slot.run.hook, 'a');
    this.log(slot, input.now, 'kept', rules.agentKeptDetail(input.agent, input.call));
    // Keys past their time are dropped as new ones come, so the map stays as large as the calls within the TTL.
    if (this.agentKeys.size >= 1024 && this.agentKeys.size % 1024 === 0) {
      for (const [k, v] of this.agentKeys) if (v.until <= input.now) this.agentKeys.delete(k);
      for (const [k, runId] of this.openCalls) {
        const s = this.slots.get(runId);
        if (!s || !isJoinable(s.run.status, s.run.acted, s.ended)) this.openCalls.delete(k);
      }
    }
    this.agentKeys.set(key, { id, until: input.now + input.keyTtlMs });
    this.openCalls.set(identity, id);
    return { id, created: true, joined: false };
  }

  async keepHookRun(input: KeepEventInput, hook: string): Promise<KeptRun[]> {
    return this.hookNamesOnTopic(input.topic).includes(hook) ? this.keep(input, null, undefined, [hook]) : [];
  }

  /**
   * `cap`: keep only the first `cap` hooks instead of refusing more than MAX_HOOKS_PER_EVENT (platform events);
   * `only`: these hooks instead of the topic's (keepHookRun).
   */
  private keep(input: KeepEventInput, deliveryId: string | null, cap?: number, only?: string[]): KeptRun[] {
    const names = only ?? (cap === undefined ? this.hookNamesOnTopic(input.topic) : this.hookNamesOnTopic(input.topic).slice(0, cap));
    if (names.length > MAX_HOOKS_PER_EVENT) {
      throw badInput(`topic ${input.topic} has ${names.length} hooks; at most ${MAX_HOOKS_PER_EVENT} runs per event`);
    }
    // No hook: kept as unrouted in the same step that found none (keep_unrouted.lua on Redis).
    if (names.length === 0 && input.unrouted && input.unrouted.keep > 0) {
      this.unrouted.keep(input.topic, unroutedRecordOf(input, deliveryId, input.unrouted.eventMaxBytes), input.unrouted, input.now);
    }
    const base = runIdBase(input.now, 0);
    const payload = structuredClone(input.payload ?? null);
    return names.map((hook, i) => {
      const id = runIdAt(base, i);
      const slot = pendingSlot(
        {
          id,
          hook,
          topic: input.topic,
          payload,
          delivery_id: deliveryId,
          door: input.door ?? rules.DEFAULT_DOOR,
          verified: input.verified === true,
          replay_of: null,
          trigger_link: input.triggerLink ?? null,
          traceparent: input.traceparent ?? null,
          headers: input.headers ?? null,
        },
        input.now,
        input.dispatchGraceMs,
      );
      this.slots.set(id, slot);
      this.stats.add(input.now, hook, 'a');
      this.log(slot, input.now, 'kept', rules.keptDetail(input));
      return { id, hook };
    });
  }

  async listUnroutedTopics(notBefore: number): Promise<UnroutedTopic[]> {
    return this.unrouted.listTopics(notBefore);
  }

  async listUnrouted(topic: string, notBefore: number, limit: number, cursor?: string | null): Promise<UnroutedPage> {
    return this.unrouted.list(topic, notBefore, limit, cursor);
  }

  async removeUnrouted(topic: string, ids?: readonly string[]): Promise<number> {
    return this.unrouted.remove(topic, ids);
  }

  async unroutedUsage(): Promise<UnroutedUsage> {
    return this.unrouted.usageNow();
  }

  async get(id: string): Promise<Run | null> {
    const slot = this.slots.get(id);
    return slot ? structuredClone(slot.run) : null;
  }

  async claim(id: string, owner: string, leaseMs: number, now: number): Promise<Claimed | null> {
    const slot = this.find(id);
    const run = slot.run;
    if ((run.status !== 'pending' && run.status !== 'retry_wait') || (slot.dueMs ?? Infinity) > now) return null;
    slot.token += 1;
    slot.ended = '';
    run.attempts += 1;
    run.lease = { owner, until: now + leaseMs, token: slot.token };
    slot.claimedMs = now;
    if (run.started_at === null) {
      run.started_at = iso(now);
      this.stats.add(now, run.hook, `q${statsBucket(now - Date.parse(run.created_at))}`);
    }
    slot.dispatchAt = null;
    this.setStatus(slot, 'running', now);
    this.log(slot, now, 'claimed', rules.claimDetail(owner, leaseMs));
    return { run: structuredClone(run), token: slot.token, hookRevision: this.hookRevisionOf(run.hook) };
  }

  async claimPlanned(id: string, owner: string, leaseMs: number, now: number, planned: PlannedClaim): Promise<ClaimedPlanned | null> {
    const slot = this.find(id);
    const before = slot.run;
    // A repeat of this very call answers the claim it made (claim_planned.lua: a re-send after a dropped connection).
    if (slot.claimNonce === planned.nonce) {
      const hookRevision = this.hookRevisionOf(before.hook);
      if (before.status === 'skipped') return { applied: 'skipped', token: slot.token, run: headOf(before), hookRevision };
      if (before.status === 'running' && before.acted === 'start') return { applied: 'start', token: slot.token, run: headOf(before), hookRevision };
      if (before.status === 'running') return { applied: 'claimed', token: slot.token, run: structuredClone(before), hookRevision };
    }
    const revision = this.hookRevisionOf(before.hook);
    // As claim_planned.lua: the plan holds for a fresh run whose hook is still at the planned revision.
    const plain =
      before.attempts === 0 &&
      before.acted === '' &&
      !before.interaction &&
      before.claim_intent === '' &&
      before.door !== 'agent' &&
      before.topic === planned.topic &&
      revision !== null &&
      revision === planned.revision &&
      this.policyVersionOf() === planned.policyVersion &&
      samePayload(before.payload, planned.payloadJson);
    const claimed = await this.claim(id, owner, leaseMs, now);
    if (!claimed) return null;
    slot.claimNonce = planned.nonce;
    if (!plain) return { ...claimed, applied: 'claimed' };
    const { plan } = planned;
    if ('skip' in plan) {
      const result = rules.boundResult(plan.skip.result);
      slot.ended = 'complete';
      slot.run.result = result;
      slot.run.error = null;
      this.finish(slot, 'skipped', now);
      this.log(slot, now, 'skipped', rules.completeDetail('skipped', result));
      return { applied: 'skipped', token: claimed.token, run: headOf(slot.run), hookRevision: revision };
    }
    const { input, resumable, note } = plan.start;
    if (note) this.log(slot, now, note.event, note.detail);
    await this.act(id, claimed.token, { acted: 'start', input, resumable }, now);
    return { applied: 'start', token: claimed.token, run: headOf(slot.run), hookRevision: revision };
  }

  async renew(id: string, token: number, leaseMs: number, now: number): Promise<void> {
    const slot = this.attempt(id, token);
    slot.run.lease = { owner: slot.run.lease?.owner ?? '', until: now + leaseMs, token };
  }

  async setClaimIntent(id: string, token: number, intent: string, now: number): Promise<void> {
    const slot = this.attempt(id, token);
    if (slot.run.claim_intent === intent && this.lastLineIs(slot, now, 'claim_intent', intent)) return;
    slot.run.claim_intent = intent;
    slot.run.updated_at = iso(now);
    this.log(slot, now, 'claim_intent', intent);
  }

  async act(id: string, token: number, act: ActInput, now: number): Promise<void> {
    const slot = this.attempt(id, token);
    const run = slot.run;
    const ids = act.actedIds ?? [];
    const resent = run.acted === act.acted && isDeepStrictEqual(run.acted_ids, ids);
    if (resent && this.lastLineIs(slot, now, 'acted', rules.actDetail(act))) return;
    run.acted = act.acted;
    run.acted_ids = [...ids];
    if (act.input !== undefined) run.input = structuredClone(act.input);
    run.resumable = act.resumable ?? false;
    run.claim_intent = '';
    run.updated_at = iso(now);
    this.log(slot, now, 'acted', rules.actDetail(act));
  }

  async note(id: string, token: number, event: string, detail: string, now: number): Promise<void> {
    const slot = this.attempt(id, token);
    if (!this.lastLineIs(slot, now, event, detail)) this.log(slot, now, event, detail);
  }

  async withdrawStart(id: string, token: number, detail: string, now: number): Promise<void> {
    const slot = this.attempt(id, token);
    const run = slot.run;
    if (run.acted === '') return;
    if (run.acted !== 'start') throw conflict(`run ${id} committed a ${run.acted}; only a tool start that never left can be withdrawn`);
    run.acted = '';
    run.acted_ids = [];
    run.input = null;
    run.resumable = false;
    run.updated_at = iso(now);
    this.log(slot, now, 'not_sent', detail);
  }

  async noteLostOutcome(id: string, token: number, detail: string, now: number): Promise<Run> {
    const slot = this.find(id);
    const run = slot.run;
    if (slot.token !== token || slot.ended !== 'lapsed' || run.status === 'running') {
      throw rules.staleTokenError(id, token, run.status, slot.token) as HookyardError;
    }
    if (!this.lastLineIs(slot, now, 'outcome_lost', detail)) {
      run.error = { kind: run.error?.kind ?? 'unavailable', message: `${detail}; ${run.error?.message ?? ''}` };
      run.updated_at = iso(now);
      this.log(slot, now, 'outcome_lost', detail);
    }
    return structuredClone(run);
  }

  async complete(id: string, token: number, status: CompletedStatus, result: unknown, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const bounded = rules.boundResult(result);
    const slot = this.ending(id, token, 'complete', (r) => r.status === status && isDeepStrictEqual(r.result, bounded));
    if (slot.ended) return headOf(slot.run);
    slot.ended = 'complete';
    slot.run.result = bounded;
    // An earlier attempt's error (a lapsed lease, a retried failure) is history now, as in complete.lua.
    slot.run.error = null;
    this.finish(slot, status, now);
    this.log(slot, now, status, rules.completeDetail(status, slot.run.result), rules.keptExchange(http));
    this.keepOutcome?.(slot.run, now);
    return headOf(slot.run);
  }

  /**
   * Parks the live attempt's run on interaction `interactionId` (called by the
   * interaction store inside its own synchronous step). A re-send by the same
   * attempt, already parked on this interaction, answers the run as stored.
   * Returns the run, or throws like any attempt write.
   */
  parkRun(id: string, token: number, interactionId: string, detail: string, now: number, approval = false): Run {
    const slot = this.ending(id, token, 'park', (r) => r.status === 'parked' && r.interaction === interactionId);
    if (slot.ended) return slot.run;
    slot.ended = 'park';
    // An approval asked for is counted in its minute, as park.lua counts it.
    if (approval) this.stats.add(now, slot.run.hook, 'p');
    const run = slot.run;
    run.lease = null;
    run.due_at = null;
    slot.dueMs = null;
    slot.dispatchAt = null;
    run.interaction = interactionId;
    run.parked_on = [interactionId];
    this.setStatus(slot, 'parked', now);
    this.log(slot, now, 'parked', detail);
    return run;
  }

  /** The attempt check of `parkRun`, without writing: throws what parkRun would. */
  checkAttempt(id: string, token: number): Run {
    return this.ending(id, token, 'park', (r) => r.status === 'parked').run;
  }

  /**
   * Wakes the run parked on `interactionId` after its resolution: due now, or
   * ended `cancelled`. A run no longer parked on it is left alone (null).
   */
  wakeRun(id: string, interactionId: string, to: 'pending' | 'cancelled', detail: string, now: number): Run | null {
    const slot = this.slots.get(id);
    if (!slot || slot.run.status !== 'parked' || slot.run.interaction !== interactionId) return slot ? slot.run : null;
    slot.run.parked_on = [];
    slot.ended = '';
    if (to === 'cancelled') {
      slot.run.result = { cancelled: interactionId };
      this.finish(slot, 'cancelled', now);
    } else {
      this.makeDue(slot, 'pending', now, now);
    }
    this.log(slot, now, to === 'cancelled' ? 'cancelled' : 'woken', detail);
    return slot.run;
  }

  /** The run as stored (not a copy), for the interaction store's synchronous steps. */
  peek(id: string): Run | null {
    return this.slots.get(id)?.run ?? null;
  }

  async fail(id: string, token: number, error: ErrorInfo, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const slot = this.ending(id, token, 'fail', (r) => r.status === 'failed' && sameError(r.error, error));
    if (slot.ended) return headOf(slot.run);
    slot.ended = 'fail';
    slot.run.error = { kind: error.kind, message: error.message };
    this.finish(slot, 'failed', now);
    this.log(slot, now, 'failed', rules.errorDetail(error), rules.keptExchange(http));
    this.keepFailedEvent(slot.run, now);
    return headOf(slot.run);
  }

  async scheduleRetry(id: string, token: number, error: ErrorInfo, dueAt: number, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const slot = this.ending(id, token, 'schedule_retry', (r) => r.status === 'retry_wait' && sameError(r.error, error) && r.due_at === iso(dueAt));
    if (slot.ended) return headOf(slot.run);
    slot.ended = 'schedule_retry';
    slot.run.error = { kind: error.kind, message: error.message };
    this.makeDue(slot, 'retry_wait', dueAt, now);
    this.log(slot, now, 'retry_scheduled', rules.retryScheduledDetail(error, dueAt), rules.keptExchange(http));
    return headOf(slot.run);
  }

  async release(id: string, token: number, reason: string, policy: InterruptPolicy, now: number): Promise<LapsedOutcome> {
    const outcomes: Partial<Record<RunStatus, LapsedOutcome['outcome']>> = { failed: 'failed', retry_wait: 'retry', pending: 'replay' };
    const slot = this.ending(id, token, 'released', (r) => !!outcomes[r.status] && !!r.error?.message.includes(`: ${reason}`));
    const run = slot.run;
    if (slot.ended) {
      const error = { kind: run.error!.kind, message: run.error!.message };
      return { id: run.id, hook: run.hook, outcome: outcomes[run.status]!, error, attempts: run.attempts };
    }
    return this.interrupt(slot, policy, now, 'released', rules.releaseReason(run.lease?.owner ?? '', run.attempts, reason));
  }

  async sweepDue(now: number, limit: number, graceMs: number): Promise<string[]> {
    const due = [...this.slots.values()]
      .filter((s) => s.dispatchAt !== null && s.dispatchAt <= now)
      .sort((a, b) => (a.dispatchAt ?? 0) - (b.dispatchAt ?? 0))
      .slice(0, limit);
    for (const s of due) s.dispatchAt = now + graceMs;
    return due.map((s) => s.run.id);
  }

  async sweepLapsed(now: number, limit: number, policy: InterruptPolicy): Promise<LapsedOutcome[]> {
    const lapsed = [...this.slots.values()]
      .filter((s) => s.run.status === 'running' && s.run.lease !== null && s.run.lease.until < now)
      .sort((a, b) => (a.run.lease?.until ?? 0) - (b.run.lease?.until ?? 0))
      .slice(0, limit);
    return lapsed.map((s) => this.interrupt(s, policy, now, 'lapsed', rules.lapseReason(s.run.lease?.owner ?? '', s.run.attempts)));
  }

  async sweepExpired(now: number, retentionMs: number, limit: number): Promise<number> {
    const old = [...this.slots.values()]
      .filter((s) => FINISHED_STATUSES.has(s.run.status) && s.finishedMs !== null && s.finishedMs < now - retentionMs)
      .slice(0, limit);
    for (const s of old) this.slots.delete(s.run.id);
    this.onExpired?.(old.map((s) => s.run.id));
    return old.length;
  }

  async list(filter: RunFilter, limit: number, cursor?: string | null): Promise<RunPage> {
    if (cursor !== undefined && cursor !== null && !/^[0-9a-z]{26}$/.test(cursor)) {
      throw badInput(`cursor ${JSON.stringify(cursor)} is not a run list cursor`);
    }
    const matches = [...this.slots.values()]
      .map((s) => s.run)
      .filter((r) => (!cursor || r.id < cursor) && (!filter.status || r.status === filter.status))
      .filter((r) => (!filter.hook || r.hook === filter.hook) && (!filter.topic || r.topic === filter.topic))
      .filter((r) => (filter.deliveryId === undefined || r.delivery_id === filter.deliveryId) && idInTimeRange(r.id, filter.since, filter.until))
      .filter((r) => errorMatches(r, filter))
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    const runs = matches.slice(0, Math.max(0, limit));
    const last = runs[runs.length - 1];
    return { runs: structuredClone(runs), nextCursor: matches.length > runs.length && last ? last.id : null };
  }

  async replay(id: string, hook: { name: string; topic: string }, now: number, dispatchGraceMs: number, edit?: ReplayEdit): Promise<Run> {
    const source = this.find(id).run;
    if (rules.REPLAY_REFUSED.has(source.status)) throw rules.replayRefusal(id, source.status);
    const newId = runIdAt(runIdBase(now, 0), 0);
    const slot = pendingSlot(
      // An operator's act through the API: never verified, whatever the source was.
      {
        id: newId,
        hook: hook.name,
        topic: hook.topic,
        payload: edit ? structuredClone(edit.payload) : source.payload,
        delivery_id: null,
        door: 'api',
        verified: false,
        replay_of: id,
        trigger_link: null,
        traceparent: null,
      },
      now,
      dispatchGraceMs,
    );
    this.slots.set(newId, slot);
    this.stats.add(now, hook.name, 'a');
    this.log(slot, now, 'kept', rules.replayDetail(id, edit !== undefined));
    return structuredClone(slot.run);
  }

  async retry(id: string, now: number, by = rules.OPERATOR): Promise<Run> {
    const slot = this.find(id);
    const run = slot.run;
    if (run.status !== 'failed') throw conflict(`run ${id} is ${run.status}; only a failed run can be retried`);
    if (run.acted === 'resume' || run.acted === 'take') throw rules.committedRefusal(id, run.acted, run.acted_ids);
    const lastError = run.error;
    slot.ended = '';
    run.attempts = 0;
    run.claim_intent = '';
    run.error = null;
    run.result = null;
    run.finished_at = null;
    slot.finishedMs = null;
    if (run.acted !== 'start') {
      run.acted = '';
      run.acted_ids = [];
    } else {
      // The start used up the interaction it parked on (an approval covers one acted call): the retried start asks again.
      run.interaction = null;
    }
    this.makeDue(slot, 'pending', now, now);
    this.log(slot, now, 'retried', rules.operatorRetryDetail(lastError, by));
    return structuredClone(run);
  }

  async discard(id: string, now: number): Promise<Run> {
    const slot = this.find(id);
    const status = slot.run.status;
    if (status === 'running' || status === 'discarded') {
      throw conflict(`run ${id} is ${status}; ${status === 'running' ? 'it cannot be discarded while it runs' : 'it is already discarded'}`);
    }
    slot.ended = '';
    slot.run.parked_on = [];
    this.finish(slot, 'discarded', now);
    // After the finish: the interaction's cancel then finds the run no longer parked and leaves it discarded.
    if (status === 'parked') this.onDiscardParked?.(slot.run, now);
    this.log(slot, now, 'discarded', `discarded by operator (was ${status})`);
    return structuredClone(slot.run);
  }

  async resolveUnknown(id: string, verdict: UnknownOutcomeVerdict, now: number): Promise<Run> {
    const slot = this.find(id);
    const run = slot.run;
    if (run.status !== 'failed' || run.error?.kind !== 'outcome_unknown') throw rules.unknownOutcomeRefusal(id, run.status, run.error?.kind ?? '');
    const v = rules.verdictFields(verdict);
    run.result = v.result;
    run.error = v.error;
    // Not counted again in the minute stats: the run was counted when it failed.
    this.finish(slot, v.status, now, false);
    // The verdict closes the call: an identical agent call is a new one (isJoinable).
    slot.ended = 'resolved';
    this.log(slot, now, 'resolved', v.detail);
    if (v.status === 'succeeded') this.keepOutcome?.(run, now);
    return structuredClone(run);
  }

  async minuteStats(fromMinute: number, toMinute: number): Promise<MinuteStats[]> {
    return this.stats.read(fromMinute, toMinute);
  }

  async hookTotals(fromMinute: number, toMinute: number, hookPrefix: string): Promise<Map<string, PlainCounts>> {
    return hookTotalsOf(this.stats.read(fromMinute, toMinute), hookPrefix);
  }

  async counts(): Promise<RunCounts> {
    const counts: RunCounts = { pending: 0, running: 0, retry_wait: 0, parked: 0, failed: 0 };
    for (const { run } of this.slots.values()) {
      if (run.status in counts) counts[run.status as keyof RunCounts] += 1;
    }
    return counts;
  }

  /**
   * The hooks_run_failed event of a run just held as failed, kept in the same
   * step (as failed_event.lua): one run per hook on the topic (at most
   * MAX_HOOKS_PER_EVENT), due at once; none for a failure on that topic.
   */
  private keepFailedEvent(run: Run, now: number): void {
    if (run.topic === HOOKS_RUN_FAILED_TOPIC) return;
    const payload = {
      run_id: run.id,
      hook: run.hook,
      topic: run.topic,
      attempts: run.attempts,
      error: run.error,
      acted: run.acted,
      failed_at: iso(now),
    };
    this.keep({ topic: HOOKS_RUN_FAILED_TOPIC, payload, now, dispatchGraceMs: 0, door: 'platform' }, null, MAX_HOOKS_PER_EVENT);
  }

  private find(id: string): Slot {
    const slot = this.slots.get(id);
    if (!slot) throw notFound(`run ${id} not found`);
    return slot;
  }

  /** The run of a live attempt: running, with this attempt's token. */
  private attempt(id: string, token: number): Slot {
    const slot = this.find(id);
    if (slot.run.status !== 'running' || slot.token !== token) {
      throw rules.staleTokenError(id, token, slot.run.status, slot.token) as HookyardError;
    }
    return slot;
  }

  /**
   * The run for a write that ends the attempt of `token` with `verb`. Running
   * with this token: `ended` is '' (go ahead). Already ended by `verb` with this
   * token and `same(run)` (the outcome this write would produce): `ended` is
   * set and the caller answers the run as stored (a repeated write). Else the
   * stale-token conflict.
   */
  private ending(id: string, token: number, verb: string, same: (run: Run) => boolean): Slot {
    const slot = this.find(id);
    if (slot.token === token && slot.run.status === 'running') return slot;
    if (slot.token === token && slot.ended === verb && same(slot.run)) return slot;
    throw rules.staleTokenError(id, token, slot.run.status, slot.token) as HookyardError;
  }

  /** The run's last history line is exactly this one (a repeated write of the attempt). */
  private lastLineIs(slot: Slot, now: number, event: string, detail: string): boolean {
    const last = slot.run.history.at(-1);
    return !!last && last.at === iso(now) && last.attempt === slot.run.attempts && last.event === event && (last.detail ?? '') === detail;
  }

  private interrupt(slot: Slot, policy: InterruptPolicy, now: number, event: string, reason: string): LapsedOutcome {
    const run = slot.run;
    slot.ended = event;
    this.log(slot, now, event, reason);
    const { outcome, error } = decideInterrupt({ acted: run.acted, actedIds: run.acted_ids, resumable: run.resumable, attempts: run.attempts }, policy, reason);
    run.error = error;
    if (outcome === 'failed') {
      this.finish(slot, 'failed', now);
      this.log(slot, now, 'failed', rules.errorDetail(error));
      this.keepFailedEvent(run, now);
    } else if (outcome === 'retry') {
      this.makeDue(slot, 'retry_wait', now + policy.retryDelayMs, now);
      this.log(slot, now, 'retry_scheduled', rules.interruptRetryDetail(error, policy.retryDelayMs));
    } else {
      this.makeDue(slot, 'pending', now, now);
      this.log(slot, now, 'replay', replayDetail(run.acted));
    }
    return { id: run.id, hook: run.hook, outcome, error, attempts: run.attempts };
  }

  private makeDue(slot: Slot, status: RunStatus, dueAt: number, now: number): void {
    slot.run.lease = null;
    slot.run.due_at = iso(dueAt);
    slot.dueMs = dueAt;
    slot.dispatchAt = dueAt;
    this.setStatus(slot, status, now);
  }

  private finish(slot: Slot, status: RunStatus, now: number, count = true): void {
    const counted = count ? outcomeField(status) : null;
    if (counted) {
      const metrics = slot.claimedMs === null ? [counted] : [counted, `t${statsBucket(now - slot.claimedMs)}`];
      this.stats.add(now, slot.run.hook, ...metrics);
    }
    slot.run.lease = null;
    slot.run.due_at = null;
    slot.run.finished_at = iso(now);
    slot.dueMs = null;
    slot.dispatchAt = null;
    slot.finishedMs = now;
    this.setStatus(slot, status, now);
  }

  private setStatus(slot: Slot, status: RunStatus, now: number): void {
    slot.run.status = status;
    slot.run.updated_at = iso(now);
  }

  private log(slot: Slot, now: number, event: string, detail: string, http: HttpExchange | null = null): void {
    const history = slot.run.history;
    history.push({ at: iso(now), attempt: slot.run.attempts, event, ...(detail ? { detail } : {}), ...(http ? { http } : {}) });
    if (history.length > rules.HISTORY_MAX) history.splice(0, history.length - rules.HISTORY_MAX);
  }
}

/** True when `text` is JSON of the kept payload (the memory store keeps values, not text). */
function samePayload(kept: unknown, text: string): boolean {
  try {
    // As JSON, not as objects: the kept value's prototypes are the store's own.
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(kept);
  } catch {
    return false;
  }
}

/** A new pending run (kept by the door or a replay), due and dispatchable from `now` plus the grace. */
function pendingSlot(
  f: Pick<Run, 'id' | 'hook' | 'topic' | 'payload' | 'delivery_id' | 'door' | 'verified' | 'replay_of' | 'trigger_link' | 'traceparent'> & {
    headers?: Run['headers'];
  },
  now: number,
  dispatchGraceMs: number,
): Slot {
  const at = iso(now);
  // The field order of a Run as the API answers it.
  const run: Run = {
    id: f.id,
    hook: f.hook,
    topic: f.topic,
    status: 'pending',
    payload: structuredClone(f.payload),
    headers: f.headers ? { ...f.headers } : null,
    attempts: 0,
    acted: '',
    acted_ids: [],
    claim_intent: '',
    error: null,
    result: null,
    input: null,
    lease: null,
    due_at: at,
    delivery_id: f.delivery_id,
    door: f.door,
    verified: f.verified,
    resumable: false,
    interaction: null,
    parked_on: [],
    replay_of: f.replay_of,
    trigger_link: f.trigger_link,
    traceparent: f.traceparent,
    created_at: at,
    updated_at: at,
    started_at: null,
    finished_at: null,
    history: [],
  };
  return { run, token: 0, ended: '', dispatchAt: now + dispatchGraceMs, dueMs: now, finishedMs: null, claimedMs: null };
}
