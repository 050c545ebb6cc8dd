import { newInteractionId } from '@hookyard/core';
import type { Interaction, KeptOutcome, Run, SubjectKey } from '@hookyard/core';
import * as rules from '../interaction-rules';
import type { InteractionFilter, InteractionPage, InteractionStore, ParkInput, ResolveInput } from '../types';
import type { MemoryRunStore } from './memory-runs';

const iso = (ms: number) => new Date(ms).toISOString();
const sameSubject = (a: SubjectKey | null, b: SubjectKey) => !!a && a.scope === b.scope && a.kind === b.kind && a.key === b.key;

/**
 * Interactions in one process, beside the memory run store. Every method does
 * its whole change synchronously (no await inside), so each is atomic like
 * its Lua twin, the parked run's move included.
 */
export class MemoryInteractionStore implements InteractionStore {
  private readonly items = new Map<string, { i: Interaction; expiresMs: number }>();

  constructor(private readonly runs: MemoryRunStore) {
    runs.keepOutcome = (run, now) => this.keep(run, now);
    runs.onExpired = (ids) => {
      const gone = new Set(ids);
      for (const [id, item] of this.items) if (gone.has(item.i.run)) this.items.delete(id);
    };
    runs.onDiscardParked = (run, now) => {
      if (run.interaction) this.resolveNow(run.interaction, { status: 'cancelled', by: 'operator', via: 'api', reason: rules.DISCARD_REASON }, now, false);
    };
  }

  async park(input: ParkInput): Promise<{ interaction: Interaction; run: Run }> {
    const current = this.runs.checkAttempt(input.run, input.token);
    // A re-send of the same park: the run is parked on an interaction this step already made.
    const id = current.status === 'parked' && current.interaction ? current.interaction : newInteractionId(input.now, 0);
    const run = this.runs.parkRun(input.run, input.token, id, rules.parkDetail(input.kind, id, input.expiresAt), input.now, input.kind === 'approval');
    if (!this.items.has(id)) {
      const i: Interaction = {
        id,
        kind: input.kind,
        run: run.id,
        hook: run.hook,
        topic: run.topic,
        tool: input.tool,
        args_hash: input.argsHash,
        rule: input.rule ?? null,
        message: input.message ?? null,
        policy_version: input.policyVersion ?? null,
        answer_hooks: [...(input.answerHooks ?? [])],
        approver: input.approver ?? null,
        subject: input.subject ?? null,
        on_timeout: input.onTimeout ?? null,
        created_at: iso(input.now),
        expires_at: iso(input.expiresAt),
        status: 'open',
        resolution: null,
        outcome: null,
        taken: null,
      };
      this.items.set(id, { i, expiresMs: input.expiresAt });
    }
    return { interaction: structuredClone(this.items.get(id)!.i), run: structuredClone(run) };
  }

  async get(id: string): Promise<Interaction | null> {
    const item = this.items.get(id);
    return item ? structuredClone(item.i) : null;
  }

  async resolve(id: string, input: ResolveInput, now: number): Promise<{ interaction: Interaction; run: Run | null }> {
    return this.resolveNow(id, input, now, true);
  }

  async take(id: string, by: string, now: number): Promise<{ interaction: Interaction; outcome: KeptOutcome }> {
    const item = this.items.get(id);
    if (!item) throw rules.missing(id);
    const i = item.i;
    if (i.status === 'taken') throw rules.alreadyTaken(id, i.taken?.by ?? '', i.taken?.at ?? '');
    if (i.status === 'open') throw rules.takeOpen(id);
    if (i.status !== 'resumed' && i.status !== 'approved') throw rules.takeWrongStatus(id, i.status);
    if (!i.outcome) {
      const run = this.runs.peek(i.run);
      const status = run?.status ?? 'expired by retention';
      if (run && (run.status === 'pending' || run.status === 'running' || run.status === 'retry_wait')) throw rules.takeNotReady(id, i.run, status);
      throw rules.takeNothingKept(id, i.run, status);
    }
    i.status = 'taken';
    i.taken = { by, at: iso(now) };
    return { interaction: structuredClone(i), outcome: structuredClone(i.outcome) };
  }

  async list(filter: InteractionFilter, limit: number, cursor?: string | null): Promise<InteractionPage> {
    rules.checkCursor(cursor);
    const matches = [...this.items.values()]
      .map((x) => x.i)
      .filter((i) => (!cursor || i.id < cursor) && rules.matchesFilter(i, filter))
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    const page = matches.slice(0, Math.max(0, Math.min(limit, rules.INTERACTION_LIST_MAX)));
    const last = page[page.length - 1];
    return { interactions: structuredClone(page), nextCursor: matches.length > page.length && last ? last.id : null };
  }

  async openOnSubject(subject: SubjectKey, limit: number): Promise<Interaction[]> {
    const open = [...this.items.values()]
      .map((x) => x.i)
      .filter((i) => i.status === 'open' && sameSubject(i.subject, subject))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return structuredClone(open.slice(0, Math.max(0, Math.min(limit, rules.INTERACTION_LIST_MAX))));
  }

  async expireDue(now: number, limit: number): Promise<Interaction[]> {
    const due = [...this.items.values()]
      .filter((x) => x.i.status === 'open' && x.expiresMs <= now)
      .sort((a, b) => a.expiresMs - b.expiresMs || (a.i.id < b.i.id ? -1 : 1))
      .slice(0, limit);
    return due.map((x) => this.resolveNow(x.i.id, { status: 'expired', by: 'expiry', via: 'expiry', reason: rules.EXPIRE_REASON }, now, true).interaction);
  }

  private resolveNow(id: string, input: ResolveInput, now: number, copy: boolean): { interaction: Interaction; run: Run | null } {
    const item = this.items.get(id);
    if (!item) throw rules.missing(id);
    const i = item.i;
    if (i.status !== 'open') {
      const r = i.resolution;
      throw rules.alreadyResolved(id, i.status, r?.by ?? '', r?.via ?? '', r?.at ?? '');
    }
    i.status = input.status;
    i.resolution = {
      by: input.by,
      via: input.via,
      at: iso(now),
      reason: input.reason ?? '',
      payload: structuredClone(input.payload ?? null),
      extras: input.extras ? structuredClone(input.extras) : null,
    };
    const to = input.status === 'cancelled' ? 'cancelled' : 'pending';
    const run = this.runs.wakeRun(i.run, id, to, rules.wakeDetail(id, input.status, input.by, input.via), now);
    return copy ? { interaction: structuredClone(i), run: run ? structuredClone(run) : null } : { interaction: i, run };
  }

  /** complete's hook: a run re-dispatched by a resume or an approval keeps its outcome on that interaction. */
  private keep(run: Run, now: number): void {
    const item = run.interaction ? this.items.get(run.interaction) : undefined;
    if (!item || item.i.outcome || (item.i.status !== 'resumed' && item.i.status !== 'approved')) return;
    item.i.outcome = rules.keptOutcome(run.id, run.status, structuredClone(run.result), now);
  }
}
