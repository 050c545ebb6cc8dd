import { newInteractionId, notFound } from '@hookyard/core';
import type { Interaction, KeptOutcome, Run, SubjectKey } from '@hookyard/core';
import type { RedisClient } from './client';
import * as rules from '../interaction-rules';
import { partitionOf } from '../run-ids';
import type { InteractionFilter, InteractionPage, InteractionStore, ParkInput, ResolveInput } from '../types';
import { fieldsToInteraction } from './interaction-hash';
import type { KeyLayout } from './keys';
import { checkReply, readyToWrite, storeError } from './replies';
import { fieldsToRun, toFields } from './run-hash';
import type { ScriptName, Scripts } from './scripts';
import type { StoreSetup } from './setup';

/** Rounds of index reads one page may take when interactions fall out of the filter between index and read. */
const MAX_ROUNDS = 10;
/** Interactions on Redis, in their runs' partitions: every transition is one Lua script (lua/interaction.lua). */
export class RedisInteractionStore implements InteractionStore {
  private sweepStart = 0;

  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
    private readonly setup: StoreSetup,
    private readonly partitions: number,
  ) {}

  async park(input: ParkInput): Promise<{ interaction: Interaction; run: Run }> {
    const p = partitionOf(input.run, this.partitions);
    if (p === null) throw notFound(`run ${input.run} not found`);
    const id = newInteractionId(input.now, p);
    const subject = input.subject ?? null;
    const args = [
      this.keys.tag(p),
      input.run,
      input.token,
      id,
      input.kind,
      input.tool,
      input.argsHash,
      input.rule ?? '',
      input.policyVersion ?? '',
      subject ? JSON.stringify(subject) : '',
      subject ? rules.subjectText(subject) : '',
      input.onTimeout ?? '',
      input.expiresAt,
      input.now,
      rules.parkDetail(input.kind, id, input.expiresAt),
      input.answerHooks?.length ? JSON.stringify(input.answerHooks) : '',
      input.approver ?? '',
      input.message ?? '',
    ];
    const reply = checkReply({ op: 'park', id: input.run, token: input.token }, await this.exec('park', this.keys.runScriptKeys(p, input.run), args));
    return { interaction: this.interactionOf(reply[1]), run: this.runOf(reply[2])! };
  }

  async get(id: string): Promise<Interaction | null> {
    await this.setup.ready('get interaction');
    const p = rules.interactionPartition(id, this.partitions);
    if (p === null) return null;
    try {
      return fieldsToInteraction(toFields(await this.client.hgetall(this.keys.interaction(p, id))));
    } catch (err) {
      throw storeError('get interaction', err);
    }
  }

  async resolve(id: string, input: ResolveInput, now: number): Promise<{ interaction: Interaction; run: Run | null }> {
    const p = rules.interactionPartition(id, this.partitions);
    if (p === null) throw rules.missing(id);
    const keys = [this.keys.interaction(p, id), this.keys.due(p), this.keys.lease(p), this.keys.done(p)];
    const args = [
      this.keys.tag(p),
      id,
      input.status,
      input.by,
      input.via,
      input.reason ?? '',
      JSON.stringify(input.payload ?? null) ?? 'null',
      now,
      rules.wakeDetail(id, input.status, input.by, input.via),
      input.extras ? JSON.stringify(input.extras) : '',
    ];
    const reply = checkReply({ op: 'resolve_interaction', id }, await this.exec('resolve_interaction', keys, args));
    return { interaction: this.interactionOf(reply[1]), run: this.runOf(reply[2]) };
  }

  async take(id: string, by: string, now: number): Promise<{ interaction: Interaction; outcome: KeptOutcome }> {
    const p = rules.interactionPartition(id, this.partitions);
    if (p === null) throw rules.missing(id);
    const reply = checkReply(
      { op: 'take_interaction', id },
      await this.exec('take_interaction', [this.keys.interaction(p, id)], [this.keys.tag(p), id, by, now]),
    );
    const interaction = this.interactionOf(reply[1]);
    return { interaction, outcome: interaction.outcome! };
  }

  async list(filter: InteractionFilter, limit: number, cursor?: string | null): Promise<InteractionPage> {
    rules.checkCursor(cursor);
    await this.setup.ready('list interactions');
    try {
      return await this.listPages(filter, Math.min(limit, rules.INTERACTION_LIST_MAX), cursor ?? null);
    } catch (err) {
      throw storeError('list interactions', err);
    }
  }

  async openOnSubject(subject: SubjectKey, limit: number): Promise<Interaction[]> {
    await this.setup.ready('open interactions');
    const text = rules.subjectText(subject);
    const want = Math.max(0, Math.min(limit, rules.INTERACTION_LIST_MAX));
    if (want === 0) return [];
    try {
      const perPartition = await Promise.all(
        Array.from({ length: this.partitions }, (_, p) => this.client.zrangebylex(this.keys.interactionsOpenOn(p, text), '-', '+', 'LIMIT', 0, want)),
      );
      const ids = perPartition.flat().sort().slice(0, want);
      const read = await Promise.all(ids.map((id) => this.get(id)));
      return read.filter((i): i is Interaction => !!i && i.status === 'open');
    } catch (err) {
      throw storeError('open interactions', err);
    }
  }

  async expireDue(now: number, limit: number): Promise<Interaction[]> {
    const out: Interaction[] = [];
    const start = this.sweepStart++ % this.partitions;
    for (let i = 0; i < this.partitions && out.length < limit; i += 1) {
      const p = (start + i) % this.partitions;
      const keys = [this.keys.interactionExpiry(p), this.keys.due(p), this.keys.lease(p), this.keys.done(p)];
      const reply = checkReply(
        { op: 'expire_interactions' },
        await this.exec('expire_interactions', keys, [this.keys.tag(p), now, limit - out.length, rules.EXPIRE_REASON]),
      );
      out.push(...reply.slice(1).map((r) => this.interactionOf(r)));
    }
    return out;
  }

  /** Newest first across partitions, as runs are listed (redis/list.ts): ids sort by creation time. */
  private async listPages(filter: InteractionFilter, limit: number, cursor: string | null): Promise<InteractionPage> {
    const interactions: Interaction[] = [];
    if (limit <= 0) return { interactions, nextCursor: cursor };
    const suffix = filter.run
      ? `r:${filter.run}`
      : filter.hook
        ? `h:${filter.hook}`
        : filter.status
          ? `s:${filter.status}`
          : filter.kind
            ? `k:${filter.kind}`
            : 'all';
    let after = cursor;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const want = limit - interactions.length;
      const start = after ? `(${after}` : '+';
      const perPartition = await Promise.all(
        Array.from({ length: this.partitions }, (_, p) => this.client.zrevrangebylex(this.keys.interactionIndex(p, suffix), start, '-', 'LIMIT', 0, want + 1)),
      );
      const merged = perPartition.flat().sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
      const page = merged.slice(0, want);
      const read = await Promise.all(page.map((id) => this.client.hgetall(this.keys.interaction(Number.parseInt(id.slice(42, 44), 36), id))));
      for (const fields of read) {
        const i = fieldsToInteraction(toFields(fields));
        if (i && rules.matchesFilter(i, filter)) interactions.push(i);
      }
      const more = merged.length > want;
      after = page[page.length - 1] ?? after;
      if (!more) return { interactions, nextCursor: null };
      if (interactions.length >= limit) return { interactions, nextCursor: after };
    }
    return { interactions, nextCursor: after };
  }

  private interactionOf(reply: unknown): Interaction {
    const i = fieldsToInteraction(toFields(reply));
    if (!i) throw notFound('interaction vanished during the write');
    return i;
  }

  private runOf(reply: unknown): Run | null {
    return fieldsToRun(toFields(reply));
  }

  private async exec(name: ScriptName, keys: string[], args: Array<string | number>): Promise<unknown[]> {
    await readyToWrite(this.setup, name);
    try {
      return await this.scripts.run(name, keys, args);
    } catch (err) {
      throw storeError(name, err);
    }
  }
}
