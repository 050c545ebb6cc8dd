import { createHash } from 'node:crypto';
import { AGENT_CALL_TOPIC, agentHookName, badInput, internal, notFound } from '@hookyard/core';
import type { ErrorInfo, HttpExchange, Run, RunHead } from '@hookyard/core';
import { JOINABLE_STATUSES, UNKNOWN_OUTCOME_ENDS, agentKeyScope, callIdentity } from '../agent-rules';
import type { RedisClient } from './client';
import { MAX_HOOKS_PER_EVENT, deliveryPartition, partitionOf, runIdAt, runIdBase } from '../run-ids';
import { DISCARD_REASON } from '../interaction-rules';
import * as rules from '../run-rules';
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
import { RedisUnrouted } from './redis-unrouted';
import { addStatsFields, emptyMinute, plainCounts } from '../stats-rules';
import type { MinuteStats, PlainCounts } from '../stats-rules';
import type { KeyLayout } from './keys';
import { listRuns } from './list';
import { checkReply, readyToWrite, replyText, storeError } from './replies';
import { plannedClaimArgv, type PlannedClaimArgs } from './planned-claim-args';
import type { ReplyContext } from './replies';
import { fieldsToRun, fieldsToRunHead, headFields, toFields } from './run-hash';
import type { StoreSetup } from './setup';
import type { Scripts, ScriptName } from './scripts';

const keptRuns = (reply: unknown[]): KeptRun[] => {
  const kept: KeptRun[] = [];
  for (let i = 1; i + 1 < reply.length; i += 2) kept.push({ id: String(reply[i]), hook: String(reply[i + 1]) });
  return kept;
};

const lapsedOutcome = (row: unknown): LapsedOutcome => {
  const [id, hook, outcome, kind, message, attempts] = row as string[];
  return {
    id: String(id),
    hook: String(hook),
    outcome: outcome as LapsedOutcome['outcome'],
    error: { kind: kind as ErrorInfo['kind'], message: String(message) },
    attempts: Number(attempts),
  };
};

/** The run store on Redis: every state change is one Lua script (see lua/). */
export class RedisRunStore implements RunStore {
  /** Where the next sweep starts, so no partition waits behind a busy one. */
  private sweepStart = 0;
  private readonly unrouted: RedisUnrouted;

  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
    private readonly setup: StoreSetup,
    /** The configured count; every call first checks it equals the count recorded in Redis (setup.ts). */
    private readonly partitions: number,
  ) {
    this.unrouted = new RedisUnrouted(client, scripts, keys);
  }

  async keepEvent(input: KeepEventInput): Promise<KeptRun[]> {
    const reply = await this.keep(input, Math.floor(Math.random() * this.partitions), input.deliveryId ?? '', null);
    const kept = keptRuns(reply);
    if (kept.length === 0 && input.unrouted) await this.unrouted.keep(input, input.deliveryId ?? null);
    return kept;
  }

  async keepDelivery(input: KeepEventInput, claim: DeliveryClaim): Promise<KeepDeliveryResult> {
    if (!Number.isInteger(claim.ttlMs) || claim.ttlMs < 1) throw badInput(`delivery claim ttl must be a positive integer of ms, got ${claim.ttlMs}`);
    const reply = await this.keep(input, deliveryPartition(input.topic, claim.id, this.partitions), claim.id, claim.ttlMs);
    if (Number(reply[0]) === 1) return { status: 'duplicate' };
    const kept = keptRuns(reply);
    if (kept.length === 0 && input.unrouted) await this.unrouted.keep(input, claim.id);
    return { status: 'kept', runs: kept };
  }

  listUnroutedTopics(notBefore: number): Promise<UnroutedTopic[]> {
    return this.unrouted.listTopics(notBefore);
  }

  listUnrouted(topic: string, notBefore: number, limit: number, cursor?: string | null): Promise<UnroutedPage> {
    return this.unrouted.list(topic, notBefore, limit, cursor);
  }

  removeUnrouted(topic: string, ids?: readonly string[]): Promise<number> {
    return this.unrouted.remove(topic, ids);
  }

  unroutedUsage(): Promise<UnroutedUsage> {
    return this.unrouted.usage();
  }

  async keepHookRun(input: KeepEventInput, hook: string): Promise<KeptRun[]> {
    const p = Math.floor(Math.random() * this.partitions);
    const args: Array<string | number> = [
      this.keys.tag(p),
      runIdBase(input.now, p),
      input.topic,
      input.payloadJson ?? JSON.stringify(input.payload ?? null) ?? 'null',
      input.now,
      input.now + input.dispatchGraceMs,
      rules.keptDetail(input),
      input.traceparent ?? '',
      input.door ?? rules.DEFAULT_DOOR,
      input.verified === true ? 1 : 0,
      hook,
      input.triggerLink ?? '',
      input.headers ? JSON.stringify(input.headers) : '',
    ];
    await readyToWrite(this.setup, 'keep_hook_run');
    // Classified by Scripts.run: "not sent" only when it was never issued.
    const reply = await this.scripts.run('keep_hook_run', [this.keys.topicHooks(p, input.topic), this.keys.due(p)], args);
    return keptRuns(checkReply({ op: 'keep_hook_run', topic: input.topic }, reply));
  }

  async keepAgentCall(input: KeepAgentCallInput): Promise<KeptAgentCall> {
    const hook = agentHookName(input.agent);
    const scope = agentKeyScope(input);
    const keyHash = createHash('sha256').update(input.call.idempotency_key, 'utf8').digest('hex');
    // The agent picks the partition, so its keys' records, its open calls' pointers and the runs they name share
    // one slot: one atomic script checks the key, joins an identical open call or keeps a new one.
    const p = deliveryPartition(hook, scope, this.partitions);
    const legacy = await this.legacyAgentKey(input, hook, scope, keyHash, p);
    if (legacy) return legacy;
    const args: Array<string | number> = [
      this.keys.tag(p),
      runIdAt(runIdBase(input.now, p), 0),
      JSON.stringify(input.call),
      input.now,
      input.now + input.dispatchGraceMs,
      rules.agentKeptDetail(input.agent, input.call),
      input.traceparent ?? '',
      hook,
      AGENT_CALL_TOPIC,
      Math.max(1, Math.ceil(input.keyTtlMs)),
      JOINABLE_STATUSES.join(' '),
      UNKNOWN_OUTCOME_ENDS.join(' '),
    ];
    await readyToWrite(this.setup, 'keep_agent_call');
    const keys = [this.keys.agentCall(p, scope, keyHash), this.keys.due(p), this.keys.agentOpenCall(p, scope, callIdentity(input.call))];
    const reply = await this.scripts.run('keep_agent_call', keys, args);
    const r = checkReply({ op: 'keep_agent_call' }, reply);
    return { id: replyText(r[1]), created: Number(r[2]) === 1, joined: Number(r[3]) === 1 };
  }

  /**
   * A key kept before the agent chose the partition (it was the key's, then):
   * read once, never written again, so a read outside the keep's step is
   * enough. The run it names, while the record answers and the run is kept.
   */
  private async legacyAgentKey(input: KeepAgentCallInput, hook: string, scope: string, keyHash: string, p: number): Promise<KeptAgentCall | null> {
    const old = deliveryPartition(hook, keyHash, this.partitions);
    if (old === p) return null;
    await this.setup.ready('keep_agent_call');
    let held: string | null;
    try {
      held = await this.client.get(this.keys.agentCall(old, scope, keyHash));
    } catch (err) {
      throw storeError('keep_agent_call', err);
    }
    const m = held ? /^(\d+) (.+)$/.exec(held) : null;
    if (!m || Number(m[1]) <= input.now) return null;
    const id = m[2]!;
    const runPartition = partitionOf(id, this.partitions);
    if (runPartition === null) return null;
    try {
      if ((await this.client.exists(this.keys.run(runPartition, id))) !== 1) return null;
    } catch (err) {
      throw storeError('keep_agent_call', err);
    }
    return { id, created: false, joined: false };
  }

  /** keep_event in partition `p`, with the delivery claim when `ttlMs` is given. */
  private async keep(input: KeepEventInput, p: number, deliveryId: string, ttlMs: number | null): Promise<unknown[]> {
    const base = runIdBase(input.now, p);
    const args: Array<string | number> = [
      this.keys.tag(p),
      base,
      input.topic,
      input.payloadJson ?? JSON.stringify(input.payload ?? null) ?? 'null',
      deliveryId,
      input.now,
      input.now + input.dispatchGraceMs,
      MAX_HOOKS_PER_EVENT,
      rules.keptDetail(input),
      input.traceparent ?? '',
      ttlMs ?? '',
      input.door ?? rules.DEFAULT_DOOR,
      input.verified === true ? 1 : 0,
      input.headers ? JSON.stringify(input.headers) : '',
    ];
    const keys = [this.keys.topicHooks(p, input.topic), this.keys.due(p)];
    if (ttlMs !== null) keys.push(this.keys.delivery(p, input.topic, deliveryId, input.door ?? rules.DEFAULT_DOOR));
    await readyToWrite(this.setup, 'keep_event');
    const reply = await this.scripts.run('keep_event', keys, args);
    return checkReply({ op: 'keep_event', topic: input.topic }, reply);
  }

  async get(id: string): Promise<Run | null> {
    await this.setup.ready('get');
    const p = partitionOf(id, this.partitions);
    if (p === null) return null;
    try {
      return fieldsToRun(toFields(await this.client.hgetall(this.keys.run(p, id))));
    } catch (err) {
      throw storeError('get', err);
    }
  }

  async claim(id: string, owner: string, leaseMs: number, now: number): Promise<Claimed | null> {
    const reply = await this.onRun('claim', id, undefined, [owner, leaseMs, now, rules.claimDetail(owner, leaseMs)]);
    if (Number(reply[0]) === 1) return null;
    const revision = replyText(reply[3]);
    return { token: Number(reply[1]), run: this.runOf(reply[2]), hookRevision: revision === '' ? null : revision };
  }

  async claimPlanned(id: string, owner: string, leaseMs: number, now: number, planned: PlannedClaim): Promise<ClaimedPlanned | null> {
    const { plan } = planned;
    let step: Pick<PlannedClaimArgs, 'plan' | 'value' | 'resumable' | 'plan_detail' | 'note_event' | 'note_detail'>;
    if ('start' in plan) {
      const { input, resumable, note } = plan.start;
      const plan_detail = rules.actDetail({ acted: 'start', resumable });
      step = {
        plan: 'start',
        value: JSON.stringify(input),
        resumable: resumable ? 1 : 0,
        plan_detail,
        note_event: note?.event ?? '',
        note_detail: note?.detail ?? '',
      };
    } else {
      const bounded = rules.boundResult(plan.skip.result);
      const plan_detail = rules.historyDetail(rules.completeDetail('skipped', bounded), null);
      step = { plan: 'skip', value: JSON.stringify(bounded), resumable: 0, plan_detail, note_event: '', note_detail: '' };
    }
    const args = plannedClaimArgv({
      owner,
      lease_ms: leaseMs,
      now,
      claim_detail: rules.claimDetail(owner, leaseMs),
      planned_revision: planned.revision,
      ...step,
      // The text itself, not a digest of it: the kept payload must be this very text.
      payload: planned.payloadJson,
      policy_version: planned.policyVersion,
      topic: planned.topic,
      nonce: planned.nonce,
    });
    const reply = await this.onRun('claim_planned', id, undefined, args);
    if (Number(reply[0]) === 1) return null;
    const revision = replyText(reply[3]);
    const hookRevision = revision === '' ? null : revision;
    const token = Number(reply[1]);
    const applied = replyText(reply[4]);
    if (applied === 'claimed') return { applied, token, run: this.runOf(reply[2]), hookRevision };
    if (applied !== 'start' && applied !== 'skipped')
      throw internal(`redis claim_planned answered an unknown outcome ${JSON.stringify(applied)} for run ${id}`);
    return { applied, token, run: this.headOf(reply[2]), hookRevision };
  }

  async renew(id: string, token: number, leaseMs: number, now: number): Promise<void> {
    await this.onRun('renew', id, token, [token, leaseMs, now]);
  }

  async setClaimIntent(id: string, token: number, intent: string, now: number): Promise<void> {
    await this.onRun('set_claim_intent', id, token, [token, intent, now]);
  }

  async act(id: string, token: number, act: ActInput, now: number): Promise<void> {
    const input = act.input === undefined ? '' : JSON.stringify(act.input);
    const args = [token, act.acted, JSON.stringify(act.actedIds ?? []), input, act.resumable ? 1 : 0, now, rules.actDetail(act)];
    await this.onRun('act', id, token, args);
  }

  async note(id: string, token: number, event: string, detail: string, now: number): Promise<void> {
    await this.onRun('note', id, token, [token, event, detail, now]);
  }

  async withdrawStart(id: string, token: number, detail: string, now: number): Promise<void> {
    await this.onRun('withdraw_start', id, token, [token, detail, now]);
  }

  async noteLostOutcome(id: string, token: number, detail: string, now: number): Promise<Run> {
    return this.runOf((await this.onRun('outcome_lost', id, token, [token, detail, now]))[1]);
  }

  async complete(id: string, token: number, status: CompletedStatus, result: unknown, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const bounded = rules.boundResult(result);
    const args = [token, status, JSON.stringify(bounded), now, rules.historyDetail(rules.completeDetail(status, bounded), rules.keptExchange(http))];
    return this.headOf((await this.onRun('complete', id, token, args))[1]);
  }

  async fail(id: string, token: number, error: ErrorInfo, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const info = JSON.stringify({ kind: error.kind, message: error.message });
    const detail = rules.historyDetail(rules.errorDetail(error), rules.keptExchange(http));
    return this.headOf((await this.onRun('fail', id, token, [token, info, now, detail, ...this.alertArgs(id, now)]))[1]);
  }

  async scheduleRetry(id: string, token: number, error: ErrorInfo, dueAt: number, now: number, http?: HttpExchange | null): Promise<RunHead> {
    const info = JSON.stringify({ kind: error.kind, message: error.message });
    const args = [token, info, dueAt, now, rules.historyDetail(rules.retryScheduledDetail(error, dueAt), rules.keptExchange(http))];
    return this.headOf((await this.onRun('schedule_retry', id, token, args))[1]);
  }

  async release(id: string, token: number, reason: string, policy: InterruptPolicy, now: number): Promise<LapsedOutcome> {
    const reply = await this.onRun('release', id, token, [token, reason, now, policy.maxAttempts, policy.retryDelayMs, ...this.alertArgs(id, now)]);
    return lapsedOutcome(reply[1]);
  }

  async sweepDue(now: number, limit: number, graceMs: number): Promise<string[]> {
    const ids: string[] = [];
    for (const p of this.sweepOrder()) {
      if (ids.length >= limit) break;
      const reply = await this.exec({ op: 'sweep_due' }, 'sweep_due', [this.keys.due(p)], [now, limit - ids.length, graceMs]);
      ids.push(...reply.slice(1).map(String));
    }
    return ids;
  }

  async sweepLapsed(now: number, limit: number, policy: InterruptPolicy): Promise<LapsedOutcome[]> {
    const out: LapsedOutcome[] = [];
    for (const p of this.sweepOrder()) {
      if (out.length >= limit) break;
      const keys = [this.keys.due(p), this.keys.lease(p), this.keys.done(p)];
      const args = [this.keys.tag(p), now, limit - out.length, policy.maxAttempts, policy.retryDelayMs, runIdBase(now, p), new Date(now).toISOString()];
      const reply = await this.exec({ op: 'sweep_lapsed' }, 'sweep_lapsed', keys, args);
      out.push(...reply.slice(1).map(lapsedOutcome));
    }
    return out;
  }

  async sweepExpired(now: number, retentionMs: number, limit: number): Promise<number> {
    let deleted = 0;
    for (const p of this.sweepOrder()) {
      if (deleted >= limit) break;
      const keys = [this.keys.done(p), this.keys.due(p), this.keys.lease(p)];
      const reply = await this.exec({ op: 'sweep_expired' }, 'sweep_expired', keys, [this.keys.tag(p), now - retentionMs, limit - deleted]);
      deleted += Number(reply[1]);
    }
    return deleted;
  }

  async list(filter: RunFilter, limit: number, cursor?: string | null): Promise<RunPage> {
    if (cursor !== undefined && cursor !== null && !/^[0-9a-z]{26}$/.test(cursor)) {
      throw badInput(`cursor ${JSON.stringify(cursor)} is not a run list cursor`);
    }
    await this.setup.ready('list');
    try {
      return await listRuns(this.client, this.keys, this.partitions, filter, limit, cursor ?? null);
    } catch (err) {
      throw storeError('list', err);
    }
  }

  async retry(id: string, now: number, by = rules.OPERATOR): Promise<Run> {
    return this.runOf((await this.onRun('retry', id, undefined, [now, by]))[1]);
  }

  async replay(id: string, hook: { name: string; topic: string }, now: number, dispatchGraceMs: number, edit?: ReplayEdit): Promise<Run> {
    const p = partitionOf(id, this.partitions);
    if (p === null) throw notFound(`run ${id} not found`);
    const newId = runIdAt(runIdBase(now, p), 0);
    // '' copies the source's payload; an edit is its JSON text.
    const payload = edit ? (JSON.stringify(edit.payload) ?? 'null') : '';
    const args = [newId, hook.name, hook.topic, now, now + dispatchGraceMs, rules.replayDetail(id, edit !== undefined), payload];
    return this.runOf((await this.onRun('replay', id, undefined, args))[1]);
  }

  async discard(id: string, now: number): Promise<Run> {
    return this.runOf((await this.onRun('discard', id, undefined, [now, DISCARD_REASON]))[1]);
  }

  async resolveUnknown(id: string, verdict: UnknownOutcomeVerdict, now: number): Promise<Run> {
    const v = rules.verdictFields(verdict);
    const result = v.status === 'succeeded' ? JSON.stringify(v.result) : '';
    const error = v.error ? JSON.stringify({ kind: v.error.kind, message: v.error.message }) : '';
    return this.runOf((await this.onRun('resolve_unknown', id, undefined, [now, v.status, result, error, v.detail]))[1]);
  }

  async minuteStats(fromMinute: number, toMinute: number): Promise<MinuteStats[]> {
    await this.setup.ready('minuteStats');
    const minutes = new Map<number, MinuteStats>();
    try {
      // One script per partition reads its minutes (read_stats.lua), so a day is one call per partition, not 1,440.
      const replies = await Promise.all(
        Array.from({ length: this.partitions }, (_, p) =>
          this.scripts.run('read_stats', [this.keys.stats(p, fromMinute)], [this.keys.tag(p), fromMinute, toMinute]),
        ),
      );
      for (const reply of replies) {
        for (let i = 0; i + 1 < reply.length; i += 2) {
          const m = Number(reply[i]);
          addStatsFields(minutes.get(m) ?? minutes.set(m, emptyMinute(m)).get(m)!, toFields(reply[i + 1]));
        }
      }
    } catch (err) {
      throw storeError('minuteStats', err);
    }
    return [...minutes.values()].sort((a, b) => a.minute - b.minute);
  }

  async hookTotals(fromMinute: number, toMinute: number, hookPrefix: string): Promise<Map<string, PlainCounts>> {
    await this.setup.ready('hookTotals');
    const total = emptyMinute(0);
    try {
      // read_hook_totals.lua sums in the partition: its answer is a few fields per hook, whatever the span.
      const replies = await Promise.all(
        Array.from({ length: this.partitions }, (_, p) =>
          this.scripts.run('read_hook_totals', [this.keys.stats(p, fromMinute)], [this.keys.tag(p), fromMinute, toMinute, hookPrefix]),
        ),
      );
      for (const reply of replies) addStatsFields(total, toFields(reply));
    } catch (err) {
      throw storeError('hookTotals', err);
    }
    return new Map(
      Object.entries(total.hooks)
        .filter(([hook]) => hook.startsWith(hookPrefix))
        .map(([hook, c]) => [hook, plainCounts(c)]),
    );
  }

  async counts(): Promise<RunCounts> {
    await this.setup.ready('counts');
    const statuses = ['pending', 'running', 'retry_wait', 'parked', 'failed'] as const;
    const all = Array.from({ length: this.partitions }, (_, p) => statuses.map((s) => this.client.zcard(this.keys.index(p, `s:${s}`))));
    try {
      const cards = await Promise.all(all.flat());
      const counts: RunCounts = { pending: 0, running: 0, retry_wait: 0, parked: 0, failed: 0 };
      cards.forEach((n, i) => (counts[statuses[i % statuses.length]!] += n));
      return counts;
    } catch (err) {
      throw storeError('counts', err);
    }
  }

  /** ARGV of a hooks_run_failed event kept by a fail transition of run `id`: a fresh id base in its partition, `now` as ISO. */
  private alertArgs(id: string, now: number): string[] {
    return [runIdBase(now, partitionOf(id, this.partitions) ?? 0), new Date(now).toISOString()];
  }

  /** Partitions in sweep order, starting one further on each call. */
  private sweepOrder(): number[] {
    const start = this.sweepStart++ % this.partitions;
    return Array.from({ length: this.partitions }, (_, i) => (start + i) % this.partitions);
  }

  private runOf(reply: unknown): Run {
    const run = fieldsToRun(toFields(reply));
    if (!run) throw notFound('run vanished during the write');
    return run;
  }

  private headOf(reply: unknown): RunHead {
    const head = fieldsToRunHead(headFields(reply));
    if (!head) throw notFound('run vanished during the write');
    return head;
  }

  /** A per-run script: KEYS run, due, lease, done; ARGV tag, id, ...args. */
  private async onRun(name: ScriptName, id: string, token: number | undefined, args: Array<string | number>): Promise<unknown[]> {
    // After the setup check the configured count is the stored one: any id of a stored partition is found.
    await this.setup.ready(name);
    const p = partitionOf(id, this.partitions);
    if (p === null) throw notFound(`run ${id} not found`);
    return this.exec({ op: name, id, token }, name, this.keys.runScriptKeys(p, id), [this.keys.tag(p), id, ...args]);
  }

  private async exec(ctx: ReplyContext, name: ScriptName, keys: string[], args: Array<string | number>): Promise<unknown[]> {
    await readyToWrite(this.setup, name);
    let reply: unknown[];
    try {
      reply = await this.scripts.run(name, keys, args);
    } catch (err) {
      throw storeError(name, err);
    }
    return checkReply(ctx, reply);
  }
}
