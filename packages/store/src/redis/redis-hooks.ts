import type {
  ApprovalPolicy,
  ApprovalRule,
  DedupeBinding,
  DiscoveryOutcome,
  DiscoveryStatus,
  Hook,
  JqTemplate,
  RemoteToolRecord,
  ToolStore,
  TriggerLink,
  TriggerLinkUse,
  TriggerRefusal,
  VerifierBinding,
} from '@hookyard/core';
import { notFound } from '@hookyard/core';
import type { RedisClient } from './client';
import { hookRevision } from '../hook-revision';
import { bindingOf, decodeAttach, occupiedError, undeclaredError } from '../declaration-rules';
import { PENDING_TOOL_ID, pendingToolId } from '../pending-tool';
import type { HookStore } from '../types';
import type { KeyLayout } from './keys';
import { REPLY_CODES, checkReply, replyText, sendWrite, storeError } from './replies';
import { toFields, type RunFields } from './run-hash';
import { copyPolicyVersion } from './policy-copies';
import type { Scripts } from './scripts';
import type { StoreSetup } from './setup';

const parse = <T>(raw: string | null | undefined): T | null => (raw ? (JSON.parse(raw) as T) : null);
const byKey =
  <T>(key: (v: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** Runs one Redis call, turning whatever it throws into a HookyardError. */
async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(op, err);
  }
}

/**
 * Plain records in hashes; putHook/removeHook use a script (they move the topic
 * index) and keep each partition's copy of the topic index in step, since
 * keep_event reads the copy in its partition's Cluster slot. Each step is atomic
 * in its slot, and the order keeps every partition's view of a topic either the
 * old or the new set of hooks, never listing a hook whose record is not on that
 * topic:
 *
 * - put: (1) a moved hook leaves the old topic's copies; (2) the record and the
 *   {P} topic index (put_hook); (3) the hook joins the new topic's copies, and
 *   its new revision replaces the old in every partition.
 * - remove: (1) the hook leaves its topic's copies and its revision goes from
 *   every partition; (2) the record goes (remove_hook).
 *
 * So a claim's revision is the record's from the moment putHook returns; in
 * between, a claim answers the old revision (as if it had run just before the put).
 *
 * A call that fails part way leaves a state the same call, repeated, completes.
 */
export class RedisHookStore implements HookStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
    private readonly setup: StoreSetup,
    private readonly partitions: number,
  ) {}

  async putHook(hook: Hook): Promise<{ created: boolean; previous: Hook | null }> {
    await this.setup.ready('put_hook');
    const before = await this.getHook(hook.name);
    if (before && before.topic !== hook.topic) await this.leaveCopies('put_hook', before.topic, hook.name);
    const record = JSON.stringify(hook);
    const binding = bindingOf(hook);
    const reply = await call('put_hook', () =>
      this.scripts.run('put_hook', [this.keys.hooks, this.keys.stateDeclarations, this.keys.stateBindings], [this.keys.hookTag, hook.name, record, hook.topic]),
    );
    if (Number(reply[0]) === REPLY_CODES.undeclared_state || Number(reply[0]) === REPLY_CODES.attach_held) {
      // Refused: the kept record did not move, so a hook that left its topic's copies above joins them again.
      if (before && before.topic !== hook.topic) {
        await call('put_hook', () => Promise.all(this.eachPartition((p) => this.client.zadd(this.keys.topicHooks(p, before.topic), 0, hook.name))));
      }
      if (Number(reply[0]) === REPLY_CODES.attach_held) throw occupiedError(binding!, replyText(reply[1]), decodeAttach(replyText(reply[2])));
      const declared = await call('put_hook', () => this.client.hkeys(this.keys.stateDeclarations));
      throw undeclaredError(binding!, declared);
    }
    const previous = parse<Hook>(replyText(checkReply({ op: 'put_hook' }, reply)[1]));
    // Moved by a concurrent put between the read and the script: leave that topic too.
    if (previous && previous.topic !== hook.topic && previous.topic !== before?.topic) {
      await this.leaveCopies('put_hook', previous.topic, hook.name);
    }
    const revision = hookRevision(record);
    await sendWrite(this.client, 'put_hook', () =>
      Promise.all(
        this.eachPartition((p) =>
          Promise.all([this.client.zadd(this.keys.topicHooks(p, hook.topic), 0, hook.name), this.client.hset(this.keys.hookRevisions(p), hook.name, revision)]),
        ),
      ),
    );
    return { created: previous === null, previous };
  }
  async getHook(name: string): Promise<Hook | null> {
    return parse<Hook>(await call('getHook', () => this.client.hget(this.keys.hooks, name)));
  }
  async getHookRevision(name: string): Promise<{ hook: Hook; revision: string } | null> {
    const raw = await call('getHook', () => this.client.hget(this.keys.hooks, name));
    return raw ? { hook: JSON.parse(raw) as Hook, revision: hookRevision(raw) } : null;
  }
  async removeHook(name: string): Promise<boolean> {
    await this.setup.ready('remove_hook');
    const before = await this.getHook(name);
    if (before) await this.leaveCopies('remove_hook', before.topic, name);
    await sendWrite(this.client, 'remove_hook', () => Promise.all(this.eachPartition((p) => this.client.hdel(this.keys.hookRevisions(p), name))));
    const reply = checkReply(
      { op: 'remove_hook' },
      await call('remove_hook', () => this.scripts.run('remove_hook', [this.keys.hooks, this.keys.stateBindings], [this.keys.hookTag, name])),
    );
    const removed = parse<Hook>(replyText(reply[2]));
    // Moved by a concurrent put between the read and the script: leave that topic too.
    if (removed && removed.topic !== before?.topic) await this.leaveCopies('remove_hook', removed.topic, name);
    return Number(reply[1]) === 1;
  }
  async listHooks(): Promise<Hook[]> {
    return this.values<Hook>('listHooks', this.keys.hooks, (h) => h.name);
  }
  async hooksOnTopic(topic: string): Promise<Hook[]> {
    return call('hooksOnTopic', async () => {
      const names = await this.client.zrange(this.keys.topic(topic), 0, -1);
      if (names.length === 0) return [];
      const raws = await this.client.hmget(this.keys.hooks, ...names);
      return raws.map((raw) => parse<Hook>(raw)).filter((h): h is Hook => h !== null);
    });
  }

  async putVerifier(binding: VerifierBinding): Promise<{ created: boolean }> {
    const added = await sendWrite(this.client, 'putVerifier', () => this.client.hset(this.keys.verifiers, binding.topic, JSON.stringify(binding)));
    return { created: added === 1 };
  }
  async getVerifier(topic: string): Promise<VerifierBinding | null> {
    return parse<VerifierBinding>(await call('getVerifier', () => this.client.hget(this.keys.verifiers, topic)));
  }
  async removeVerifier(topic: string): Promise<boolean> {
    return (await sendWrite(this.client, 'removeVerifier', () => this.client.hdel(this.keys.verifiers, topic))) === 1;
  }
  async listVerifiers(): Promise<VerifierBinding[]> {
    return this.values<VerifierBinding>('listVerifiers', this.keys.verifiers, (v) => v.topic);
  }

  async putDedupe(binding: DedupeBinding): Promise<{ created: boolean }> {
    const added = await sendWrite(this.client, 'putDedupe', () => this.client.hset(this.keys.dedupes, binding.topic, JSON.stringify(binding)));
    return { created: added === 1 };
  }
  async getDedupe(topic: string): Promise<DedupeBinding | null> {
    return parse<DedupeBinding>(await call('getDedupe', () => this.client.hget(this.keys.dedupes, topic)));
  }
  async removeDedupe(topic: string): Promise<boolean> {
    return (await sendWrite(this.client, 'removeDedupe', () => this.client.hdel(this.keys.dedupes, topic))) === 1;
  }

  async putTemplate(template: JqTemplate): Promise<void> {
    await sendWrite(this.client, 'putTemplate', () => this.client.hset(this.keys.templates, template.id, JSON.stringify(template)));
  }
  async getTemplate(id: string): Promise<JqTemplate | null> {
    return parse<JqTemplate>(await call('getTemplate', () => this.client.hget(this.keys.templates, id)));
  }
  async removeTemplate(id: string): Promise<boolean> {
    return (await sendWrite(this.client, 'removeTemplate', () => this.client.hdel(this.keys.templates, id))) === 1;
  }
  async listTemplates(): Promise<JqTemplate[]> {
    return this.values<JqTemplate>('listTemplates', this.keys.templates, (t) => t.id);
  }

  async getApprovalPolicy(): Promise<ApprovalPolicy> {
    const h = await call('getApprovalPolicy', () => this.client.hgetall(this.keys.approvalPolicy));
    if (!h.version) return { version: 0, rules: [], updated_at: null };
    return { version: Number(h.version), rules: JSON.parse(h.rules ?? '[]') as ApprovalRule[], updated_at: h.updated_at ?? null };
  }
  async putApprovalPolicy(rules: ApprovalRule[], expectedVersion: number | null, now: number): Promise<ApprovalPolicy> {
    const updatedAt = new Date(now).toISOString();
    const args = [this.keys.hookTag, JSON.stringify(rules), updatedAt, expectedVersion === null ? '' : String(expectedVersion)];
    const reply = await call('put_approval_policy', () => this.scripts.run('put_approval_policy', [this.keys.approvalPolicy], args));
    const ok = checkReply({ op: 'put_approval_policy', ...(expectedVersion === null ? {} : { expected: expectedVersion }) }, reply);
    const version = Number(ok[1]);
    // Copied into every partition's slot before the answer, so a claim made after it refuses a plan decided on an older version.
    await call('put_approval_policy', () => Promise.all(this.eachPartition((p) => copyPolicyVersion(this.scripts, this.keys, p, version))));
    return { version, rules, updated_at: updatedAt };
  }

  async putTriggerLink(link: TriggerLink, tokenHash: string): Promise<void> {
    const args = [
      this.keys.hookTag,
      link.id,
      tokenHash,
      link.hook,
      link.label,
      Date.parse(link.created_at),
      link.created_by,
      link.expires_at === null ? '' : Date.parse(link.expires_at),
      link.max_uses ?? '',
    ];
    const reply = await call('put_trigger_link', () => this.scripts.run('put_trigger_link', [this.keys.hooks, this.keys.triggerTokens], args));
    if (Number(checkReply({ op: 'put_trigger_link' }, reply)[1]) !== 1) throw notFound(`no hook named ${JSON.stringify(link.hook)}`);
  }
  async listTriggerLinks(hook: string): Promise<TriggerLink[]> {
    return call('listTriggerLinks', async () => {
      const ids = await this.client.smembers(this.keys.hookTriggerLinks(hook));
      const links = await Promise.all(ids.map((id) => this.client.hgetall(this.keys.triggerLink(id))));
      return links
        .map((f) => linkOf(f))
        .filter((l): l is TriggerLink => l !== null && l.hook === hook)
        .sort(byKey((l) => `${l.created_at} ${l.id}`));
    });
  }
  async revokeTriggerLink(hook: string, id: string): Promise<TriggerLink | null> {
    const reply = await call('revoke_trigger_link', () => this.scripts.run('revoke_trigger_link', [this.keys.triggerLink(id)], [this.keys.hookTag, hook]));
    checkReply({ op: 'revoke_trigger_link' }, reply);
    return reply.length > 1 ? linkOf(toFields(reply[1])) : null;
  }
  async useTriggerLink(tokenHash: string, now: number): Promise<TriggerLinkUse> {
    const reply = await call('use_trigger_link', () => this.scripts.run('use_trigger_link', [this.keys.triggerTokens], [this.keys.hookTag, tokenHash, now]));
    if (Number(reply[0]) === 1) return { ok: false, reason: replyText(reply[1]) as TriggerRefusal };
    const link = linkOf(toFields(checkReply({ op: 'use_trigger_link' }, reply)[1]));
    return link ? { ok: true, link } : { ok: false, reason: 'unknown' };
  }
  async returnTriggerLinkUse(id: string): Promise<void> {
    await call('return_trigger_use', () => this.scripts.run('return_trigger_use', [this.keys.triggerLink(id)], [this.keys.hookTag]));
  }

  /** Takes hook `name` off every partition's copy of `topic` (one ZREM per partition slot). */
  private async leaveCopies(op: string, topic: string, name: string): Promise<void> {
    await sendWrite(this.client, op, () => Promise.all(this.eachPartition((p) => this.client.zrem(this.keys.topicHooks(p, topic), name))));
  }

  private eachPartition<T>(fn: (p: number) => T): T[] {
    return Array.from({ length: this.partitions }, (_, p) => fn(p));
  }

  private async values<T>(op: string, key: string, name: (v: T) => string): Promise<T[]> {
    const raws = await call(op, () => this.client.hvals(key));
    return raws.map((raw) => JSON.parse(raw) as T).sort(byKey(name));
  }
}

/** The link a trigger link hash holds (see keys.ts), without its token hash; null for an empty hash. */
function linkOf(f: RunFields): TriggerLink | null {
  if (!f.id || !f.hook) return null;
  return {
    id: f.id,
    hook: f.hook,
    label: f.label ?? '',
    created_at: new Date(Number(f.created)).toISOString(),
    created_by: f.created_by ?? '',
    expires_at: f.expires ? new Date(Number(f.expires)).toISOString() : null,
    uses: Number(f.uses ?? 0),
    // Absent on a link never used (and on links kept before the field was).
    last_used_at: f.last_used ? new Date(Number(f.last_used)).toISOString() : null,
    max_uses: f.max_uses ? Number(f.max_uses) : null,
    revoked: f.revoked === '1',
  };
}

export class RedisToolStore implements ToolStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: KeyLayout,
  ) {}

  async putPendingTool(record: RemoteToolRecord, ttlMs: number): Promise<string> {
    const id = pendingToolId();
    await sendWrite(this.client, 'putPendingTool', () =>
      this.client.set(this.keys.pendingTool(id), JSON.stringify(record), 'PX', Math.max(1, Math.ceil(ttlMs))),
    );
    return id;
  }
  async takePendingTool(id: string): Promise<RemoteToolRecord | null> {
    // An id that could not be ours names no key (and never another key of the layout).
    if (!PENDING_TOOL_ID.test(id)) return null;
    const key = this.keys.pendingTool(id);
    // GET and DEL in one MULTI (GETDEL needs Redis 6.2): one executor takes it, once.
    const replies = await sendWrite(this.client, 'takePendingTool', () => this.client.multi().get(key).del(key).exec());
    const [err, raw] = replies?.[0] ?? [null, null];
    if (err) throw storeError('takePendingTool', err);
    return parse<RemoteToolRecord>(raw as string | null);
  }
  async putTool(record: RemoteToolRecord): Promise<{ created: boolean }> {
    const added = await sendWrite(this.client, 'putTool', () => this.client.hset(this.keys.tools, record.name, JSON.stringify(record)));
    return { created: added === 1 };
  }
  async getTool(name: string): Promise<RemoteToolRecord | null> {
    return parse<RemoteToolRecord>(await call('getTool', () => this.client.hget(this.keys.tools, name)));
  }
  async removeTool(name: string): Promise<boolean> {
    const [removed] = await sendWrite(this.client, 'removeTool', () =>
      Promise.all([this.client.hdel(this.keys.tools, name), this.client.hdel(this.keys.discoveryOk, name), this.client.hdel(this.keys.discoveryErr, name)]),
    );
    return removed === 1;
  }
  async listTools(): Promise<RemoteToolRecord[]> {
    const raws = await call('listTools', () => this.client.hvals(this.keys.tools));
    return raws.map((raw) => JSON.parse(raw) as RemoteToolRecord).sort(byKey((t) => t.name));
  }
  async noteDiscovery(name: string, outcome: DiscoveryOutcome): Promise<void> {
    // One field of one hash: a success and a failure never overwrite each other.
    if ('error' in outcome) {
      const value = JSON.stringify({ at: outcome.at, kind: outcome.error.kind, message: outcome.error.message });
      await sendWrite(this.client, 'noteDiscovery', () => this.client.hset(this.keys.discoveryErr, name, value));
    } else {
      await sendWrite(this.client, 'noteDiscovery', () =>
        this.client.hset(this.keys.discoveryOk, name, JSON.stringify({ at: outcome.at, tools: outcome.tools })),
      );
    }
  }
  async discoveryStatuses(): Promise<DiscoveryStatus[]> {
    const [ok, err] = await call('discoveryStatuses', () =>
      Promise.all([this.client.hgetall(this.keys.discoveryOk), this.client.hgetall(this.keys.discoveryErr)]),
    );
    const names = [...new Set([...Object.keys(ok), ...Object.keys(err)])].sort();
    // Own fields only: a tool named `constructor` must not read Object.prototype's.
    const field = (h: Record<string, string>, name: string) => (Object.hasOwn(h, name) ? (JSON.parse(h[name]!) as unknown) : null);
    return names.map((name) => ({
      name,
      last_success: field(ok, name) as DiscoveryStatus['last_success'],
      last_error: field(err, name) as DiscoveryStatus['last_error'],
    }));
  }
}
