import Redis from 'ioredis';
import { STATS_MAX_HOOKS, STATS_TTL_MS, createRedisStores } from '../src';
import type { Stores } from '../src';
import { requireRedis, uniquePrefix } from '../../../test/support/services';
import {
  describeAuditConformance,
  describeBucketConformance,
  describeDeclarationConformance,
  describeHookStoreConformance,
  describeInteractionConformance,
  describeRunListConformance,
  describeRunStoreConformance,
  describeStateConformance,
} from './conformance';
import { T0, hook, rejection } from './fixtures';
import { argsHash, legacyAgentId } from '@hookyard/core';
import { SCRIPT_NAMES, Scripts } from '../src/redis/scripts';
import { keySlot } from './slots';
import { createHash } from 'node:crypto';
import { KeyLayout } from '../src/redis/keys';
import { deliveryPartition } from '../src/run-ids';

const suitePrefix = uniquePrefix('store');
let url = '';
let n = 0;
/** Three partitions, so paging and sweeps cross partitions. */
const factory = async (): Promise<Stores> => createRedisStores({ url, prefix: `${suitePrefix}x${(n += 1)}`, partitions: 3 });

beforeAll(async () => {
  url = await requireRedis();
});

afterAll(async () => {
  const admin = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `{${suitePrefix}*`, 'COUNT', 1000);
      cursor = next;
      // One key per DEL, so the cleanup also runs against a Redis Cluster node (REDIS_URL).
      await Promise.all(keys.map((key) => admin.del(key)));
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
});

describeRunStoreConformance('redis', factory);
describeBucketConformance('redis', factory);
describeAuditConformance('redis', factory);
describeRunListConformance('redis', factory);
describeHookStoreConformance('redis', factory);
describeDeclarationConformance('redis', factory);
describeInteractionConformance('redis', factory);
describeStateConformance('redis', async (options) => createRedisStores({ url, prefix: `${suitePrefix}x${(n += 1)}`, partitions: 3, ...options }));

describe('redis specifics', () => {
  it('spreads events over partitions; a run id names its partition', async () => {
    const s = await factory();
    try {
      await s.hooks.putHook(hook('h', 't'));
      const ids: string[] = [];
      for (let i = 0; i < 30; i += 1) ids.push(...(await s.runs.keepEvent({ topic: 't', payload: { i }, now: T0 + i, dispatchGraceMs: 0 })).map((k) => k.id));
      expect(new Set(ids.map((id) => id.slice(22, 24))).size).toBeGreaterThan(1);
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await s.runs.list({ topic: 't' }, 7, cursor);
        listed.push(...page.runs.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toEqual([...ids].sort().reverse());
    } finally {
      await s.close();
    }
  });

  it('an agent kept before agents had ids is read with its name as id, keeps it through a rotate, and its old keys still answer its calls', async () => {
    const prefix = `${suitePrefix}legacyagent`;
    const s = await createRedisStores({ url, prefix, partitions: 2 });
    const admin = new Redis(url);
    try {
      // The record and token index exactly as the code before ids wrote them.
      const at = new Date(T0).toISOString();
      const old = { name: 'old-bot', description: null, tools_allow: ['*'], token_id: 'aaaaaaaa', created_at: at, updated_at: at, token_hash: 'a'.repeat(64) };
      await admin.hset(`{${prefix}}:agents`, 'old-bot', JSON.stringify(old));
      await admin.hset(`{${prefix}}:agent-tokens`, 'a'.repeat(64), 'old-bot');
      const shown = {
        id: legacyAgentId('old-bot'),
        name: 'old-bot',
        description: null,
        tools_allow: ['*'],
        token_id: 'aaaaaaaa',
        created_at: at,
        updated_at: at,
      };
      expect(await s.agents.get('old-bot')).toEqual(shown);
      expect(await s.agents.byTokenHash('a'.repeat(64))).toEqual(shown);
      expect(await s.agents.list()).toEqual([shown]);
      // A call kept the old way (no agent_id) is found by the same key under the legacy id.
      const call = { tool: 'echo', arguments: {}, args_sha256: argsHash({}), tools_allow: null, idempotency_key: 'k-old', via: 'mcp' as const };
      const kept = await s.runs.keepAgentCall({ agent: 'old-bot', call, now: T0, dispatchGraceMs: 0, keyTtlMs: 60_000 });
      const again = { agent: 'old-bot', call: { ...call, agent_id: shown.id }, now: T0 + 1, dispatchGraceMs: 0, keyTtlMs: 60_000 };
      expect(await s.runs.keepAgentCall(again)).toEqual({ id: kept.id, created: false, joined: false });
      expect((await s.agents.rotate('old-bot', 'b'.repeat(64), T0 + 2))?.id).toBe(shown.id);
      expect(JSON.parse((await admin.hget(`{${prefix}}:agents`, 'old-bot'))!)).toMatchObject({ id: shown.id, token_hash: 'b'.repeat(64) });
      expect(await s.agents.remove('old-bot')).toMatchObject({ id: shown.id });
    } finally {
      admin.disconnect();
      await s.close();
    }
  });

  it("a key kept before the agent chose the partition (in the key's own) still answers its run, and an identical call joins in the agent's partition", async () => {
    const prefix = `${suitePrefix}agentkeys`;
    const partitions = 16;
    const s = await createRedisStores({ url, prefix, partitions });
    const admin = new Redis(url);
    try {
      const keys = new KeyLayout(prefix);
      const call = (key: string, args: Record<string, unknown>) => ({
        agent_id: 'bot-id',
        tool: 'echo',
        arguments: args,
        args_sha256: argsHash(args),
        tools_allow: null,
        idempotency_key: key,
        via: 'mcp' as const,
      });
      const keep = (key: string, args: Record<string, unknown>, now: number) =>
        s.runs.keepAgentCall({ agent: 'bot', call: call(key, args), now, dispatchGraceMs: 0, keyTtlMs: 60_000 });
      const kept = await keep('k-new', { n: 1 }, T0);
      // Where the code before issue 34 kept a key: the partition of the key's hash.
      const sha = createHash('sha256').update('k-legacy', 'utf8').digest('hex');
      const old = deliveryPartition('agent:bot', sha, partitions);
      expect(old).not.toBe(deliveryPartition('agent:bot', 'bot-id', partitions));
      await admin.set(keys.agentCall(old, 'bot-id', sha), `${T0 + 60_000} ${kept.id}`, 'PX', 60_000);
      expect(await keep('k-legacy', { n: 2 }, T0 + 1)).toEqual({ id: kept.id, created: false, joined: false });
      // Past its time it answers no more; an identical call joins the open one in the agent's partition.
      expect(await keep('k-legacy', { n: 2 }, T0 + 60_000)).toMatchObject({ created: true, joined: false });
      expect(await keep('k-other', { n: 1 }, T0 + 2)).toEqual({ id: kept.id, created: false, joined: true });
    } finally {
      admin.disconnect();
      await s.close();
    }
  });

  it('keeps the per-minute counters in the partition of the run, a hash with a 25 h TTL and at most 100 hooks counted one by one', async () => {
    const prefix = `${suitePrefix}ctr`;
    const s = await createRedisStores({ url, prefix, partitions: 1 });
    const admin = new Redis(url);
    try {
      const names = Array.from({ length: STATS_MAX_HOOKS + 1 }, (_, i) => `h${String(i).padStart(3, '0')}`);
      for (const name of names) await s.hooks.putHook(hook(name, `t-${name}`));
      for (const name of names) await s.runs.keepEvent({ topic: `t-${name}`, payload: {}, now: T0 + 1, dispatchGraceMs: 0 });
      const key = `{${prefix}:p0}:stats:${Math.floor(T0 / 60_000)}`;
      const ttl = await admin.ttl(key);
      expect(ttl).toBeGreaterThan(STATS_TTL_MS / 1000 - 60);
      expect(ttl).toBeLessThanOrEqual(STATS_TTL_MS / 1000);
      const [m] = await s.runs.minuteStats(Math.floor(T0 / 60_000), Math.floor(T0 / 60_000));
      expect(m!.total.accepted).toBe(STATS_MAX_HOOKS + 1);
      expect(Object.keys(m!.hooks)).toHaveLength(STATS_MAX_HOOKS);
    } finally {
      admin.disconnect();
      await s.close();
    }
  });

  it('a store whose Redis is unreachable refuses keepEvent with unavailable, and fast', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused.
    const s = await createRedisStores({ url: 'redis://127.0.0.1:1', prefix: suitePrefix, partitions: 2 });
    try {
      const e = await rejection(s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 }));
      expect(e.kind).toBe('unavailable');
      expect(e.message).toContain('keep_event');
      expect((await rejection(s.ping())).kind).toBe('unavailable');
      const d = await rejection(s.runs.keepDelivery({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 }, { id: 'd', ttlMs: 1000 }));
      // Never sent: nothing can have been kept (the door answers "accept failed", not "outcome unknown").
      expect([d.kind, d.notSent, d.outcomeUnknown]).toEqual(['unavailable', true, false]);
      // A bucket take does not wait for a reconnect either: the limiter falls back at once.
      const b = await rejection(s.buckets.take('door-client', '10.0.0.1', { rate: 1, burst: 1 }, T0));
      expect(b.kind).toBe('unavailable');
      expect(b.message).toMatch(/^redis take_token not sent: connection is [a-z]+$/);
    } finally {
      await s.close();
    }
  }, 4_000);

  /** Scripts that touch only the KEYS they declare: sweep_due, and the agent principals' (ARGV[1] is the agent's name). */
  const ONLY_DECLARED_KEYS = new Set(['sweep_due', 'create_agent', 'rotate_agent', 'update_agent', 'remove_agent']);

  it('every script call of a workload declares keys of one slot, which is also the slot of the tag it names keys from', async () => {
    const calls: Array<{ name: string; keys: string[]; args: Array<string | number> }> = [];
    const run = Scripts.prototype.run;
    const spy = jest.spyOn(Scripts.prototype, 'run').mockImplementation(function (this: Scripts, name, keys, args) {
      calls.push({ name, keys, args });
      return run.call(this, name, keys, args);
    });
    const s = await factory();
    try {
      const policy = { maxAttempts: 3, retryDelayMs: 0 };
      await s.hooks.putHook(hook('a', 't'));
      await s.hooks.putHook(hook('b', 't'));
      const [a, b] = (await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).map((k) => k.id);
      await s.runs.keepDelivery({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 }, { id: 'gh-{1}', ttlMs: 1_000 });
      const ca = (await s.runs.claim(a!, 'w', 1_000, T0))!.token;
      await s.runs.renew(a!, ca, 1_000, T0);
      await s.runs.setClaimIntent(a!, ca, 'resume:i', T0);
      await s.runs.act(a!, ca, { acted: 'start' }, T0);
      await s.runs.withdrawStart(a!, ca, 'never left', T0);
      await s.runs.note(a!, ca, 'n', 'd', T0);
      await s.runs.complete(a!, ca, 'succeeded', null, T0);
      const cb = (await s.runs.claim(b!, 'w', 1_000, T0))!.token;
      await s.runs.scheduleRetry(b!, cb, { kind: 'internal', message: 'x' }, T0, T0);
      const cb2 = (await s.runs.claim(b!, 'w', 1_000, T0))!.token;
      await s.runs.release(b!, cb2, 'bye', policy, T0);
      const cb3 = (await s.runs.claim(b!, 'w', 1_000, T0))!.token;
      await s.runs.fail(b!, cb3, { kind: 'internal', message: 'x' }, T0);
      await s.runs.retry(b!, T0);
      await s.runs.discard(b!, T0);
      // Refused (b is discarded, not held with an unknown outcome), but the script ran.
      await s.runs.resolveUnknown(b!, { outcome: 'failed', reason: 'r', note: null, by: 'o' }, T0).catch(() => undefined);
      await s.runs.replay(b!, { name: 'b', topic: 't' }, T0, 0);
      await s.runs.sweepDue(T0, 10, 0);
      await s.runs.sweepLapsed(T0, 10, policy);
      // Refused (a was completed, not lapsed), but the script ran.
      await s.runs.noteLostOutcome(a!, ca, 'lost', T0).catch(() => undefined);
      await s.runs.sweepExpired(T0 + 10, 1, 10);
      const [c, d] = (await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).map((k) => k.id);
      const [planned] = (await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).map((k) => k.id);
      const revision = (await s.hooks.getHookRevision('a'))!.revision;
      await s.runs.claimPlanned(planned!, 'w', 1_000, T0, {
        revision,
        payloadJson: '{}',
        policyVersion: 0,
        topic: 't',
        nonce: 'n',
        plan: { skip: { result: null } },
      });
      const cc = (await s.runs.claim(c!, 'w', 1_000, T0))!.token;
      const park = { token: cc, kind: 'wait' as const, tool: 'wait', argsHash: 'x', expiresAt: T0 + 5, now: T0 };
      const ic = (await s.interactions.park({ ...park, run: c! })).interaction.id;
      await s.interactions.resolve(ic, { status: 'resumed', by: 'x', via: 'api' }, T0);
      const cc2 = (await s.runs.claim(c!, 'w', 1_000, T0))!.token;
      await s.runs.complete(c!, cc2, 'succeeded', 1, T0);
      await s.interactions.take(ic, 'y', T0);
      const cd = (await s.runs.claim(d!, 'w', 1_000, T0))!.token;
      await s.interactions.park({ ...park, run: d!, token: cd });
      await s.interactions.expireDue(T0 + 10, 10);
      const link = {
        id: 'tl_w',
        hook: 'a',
        label: '',
        created_at: new Date(T0).toISOString(),
        created_by: 'x',
        expires_at: null,
        uses: 0,
        last_used_at: null,
        max_uses: 2,
        revoked: false,
      };
      await s.hooks.putTriggerLink(link, 'f'.repeat(64));
      await s.hooks.useTriggerLink('f'.repeat(64), T0);
      await s.hooks.returnTriggerLinkUse('tl_w');
      await s.hooks.revokeTriggerLink('a', 'tl_w');
      await s.runs.keepHookRun({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0, door: 'trigger', triggerLink: 'tl_w' }, 'a');
      await s.hooks.removeHook('a');
      await s.hooks.putApprovalPolicy([], null, T0);
      await s.declarations.putDeclaration({ scope: 'gh', kind: 'pr', schema: {}, description: '', templates: {} }, T0);
      const subject = { scope: 'gh', kind: 'pr', key: 'a{1}' };
      await s.states.set(subject, { a: 1 }, { door: 'api', actor: 'x', hook: null, now: T0 });
      await s.states.remove(subject, { door: 'api', actor: 'x', hook: null, now: T0 });
      await s.declarations.removeDeclaration('gh', 'pr');
      await s.buckets.take('door-client', '10.0.0.1', { rate: 1, burst: 2 }, T0);
      const unrouted = { keep: 2, topics: 2, retentionMs: 60_000, maxBytes: 65_536, eventMaxBytes: 4096 };
      await s.runs.keepEvent({ topic: 'no-hook', payload: {}, now: T0, dispatchGraceMs: 0, unrouted });
      await s.runs.removeUnrouted('no-hook');
      await s.agents.create({ name: 'bot{1}', description: null, tools_allow: ['*'], tokenHash: 'a'.repeat(64) }, T0);
      await s.agents.rotate('bot{1}', 'b'.repeat(64), T0);
      await s.agents.update('bot{1}', { tools_allow: ['echo'] }, T0);
      await s.agents.remove('bot{1}');
      const call = { tool: 'echo', arguments: {}, args_sha256: argsHash({}), tools_allow: null, idempotency_key: 'k{1}', via: 'mcp' as const };
      await s.runs.keepAgentCall({ agent: 'bot{1}', call, now: T0, dispatchGraceMs: 0, keyTtlMs: 60_000 });
      const actor = { kind: 'token' as const, role: 'admin' as const, label: 'admin:0000{1}0' };
      const audited = { id: '0000000000000000000001', at: new Date(T0).toISOString(), actor, action: 'hook.remove', target: 'a', client: '', status: 200 };
      await s.audit.record({ ...audited, request: { method: 'DELETE', path: '/api/hooks/a' } }, { retentionMs: 60_000, maxEntries: 10, maxRefused: 10 });
      await s.runs.minuteStats(Math.floor(T0 / 60_000), Math.floor(T0 / 60_000) + 1);
      await s.runs.hookTotals(Math.floor(T0 / 60_000), Math.floor(T0 / 60_000) + 1, 'agent:');
    } finally {
      spy.mockRestore();
      await s.close();
    }
    expect(new Set(calls.map((c) => c.name))).toEqual(new Set(SCRIPT_NAMES));
    for (const c of calls) {
      const slots = new Set(c.keys.map(keySlot));
      // Every script that names keys beyond KEYS gets their hash tag as ARGV[1]; these name none (ARGV[1] is no tag).
      if (!ONLY_DECLARED_KEYS.has(c.name)) slots.add(keySlot(`${String(c.args[0])}:x`));
      expect([c.name, slots.size]).toEqual([c.name, 1]);
    }
  });

  it('a put_state re-sent by the client (the connection dropped before the answer) writes once and answers as stored', async () => {
    const run = Scripts.prototype.run;
    // Every put_state is sent twice with the same arguments, as ioredis re-sends a command cut off.
    const spy = jest.spyOn(Scripts.prototype, 'run').mockImplementation(async function (this: Scripts, name, keys, args) {
      if (name === 'put_state') await run.call(this, name, keys, args);
      return run.call(this, name, keys, args);
    });
    const s = await factory();
    try {
      await s.declarations.putDeclaration({ scope: 'gh', kind: 'pr', schema: {}, description: '', templates: {} }, T0);
      const subject = { scope: 'gh', kind: 'pr', key: 'resent' };
      const by = { door: 'hook' as const, actor: 'run-1', hook: 'h' };
      expect((await s.states.set(subject, { a: 1 }, { ...by, ifVersion: 0, now: T0 })).version).toBe(1);
      const merged = await s.states.merge(subject, { b: 2 }, { ...by, now: T0 + 1 });
      expect([merged.version, merged.document, merged.history.length]).toEqual([2, { a: 1, b: 2 }, 2]);
      spy.mockRestore();
      const kept = await s.states.get(subject);
      expect(kept?.history.map((w) => w.version)).toEqual([1, 2]);
    } finally {
      spy.mockRestore();
      await s.close();
    }
  });

  it('builds the per-partition hook copies once at start for hooks kept before they existed', async () => {
    const prefix = `${suitePrefix}copies`;
    const first = await createRedisStores({ url, prefix, partitions: 3 });
    const admin = new Redis(url);
    try {
      await first.hooks.putHook(hook('a', 't'));
      await first.hooks.putHook(hook('b', 'u'));
      // The layout before the copies: no copies, no marker.
      const copies = await admin.keys(`{${prefix}:p*}:topic-hooks:*`);
      expect(copies).toHaveLength(6);
      for (const key of copies) await admin.del(key);
      await admin.hdel(`{${prefix}}:meta`, 'hook_copies');
      expect(await first.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).toEqual([]);
      const second = await createRedisStores({ url, prefix, partitions: 3 });
      try {
        for (let i = 0; i < 12; i += 1) {
          expect((await second.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).map((k) => k.hook)).toEqual(['a']);
        }
        expect(await admin.hget(`{${prefix}}:meta`, 'hook_copies')).toBe('1');
      } finally {
        await second.close();
      }
    } finally {
      admin.disconnect();
      await first.close();
    }
  });

  it('records the per-partition hook revisions once at start for hooks kept before they existed', async () => {
    const prefix = `${suitePrefix}revs`;
    const first = await createRedisStores({ url, prefix, partitions: 3 });
    const admin = new Redis(url);
    const claimed = async (s: typeof first) => {
      const [kept] = await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 });
      return (await s.runs.claim(kept!.id, 'w', 1_000, T0))?.hookRevision;
    };
    try {
      await first.hooks.putHook(hook('a', 't'));
      const revision = (await first.hooks.getHookRevision('a'))!.revision;
      // The layout before the revisions: none in the partitions, no marker.
      const revs = await admin.keys(`{${prefix}:p*}:hook-revs`);
      expect(revs).toHaveLength(3);
      for (const key of revs) await admin.del(key);
      await admin.hdel(`{${prefix}}:meta`, 'hook_revisions');
      expect(await claimed(first)).toBeNull();
      const second = await createRedisStores({ url, prefix, partitions: 3 });
      try {
        for (let i = 0; i < 12; i += 1) expect(await claimed(second)).toBe(revision);
        expect(await admin.hget(`{${prefix}}:meta`, 'hook_revisions')).toBe('1');
      } finally {
        await second.close();
      }
    } finally {
      admin.disconnect();
      await first.close();
    }
  });

  it('records the partition count on first start and refuses another count, naming the setting and both values', async () => {
    const prefix = `${suitePrefix}parts`;
    const first = await createRedisStores({ url, prefix, partitions: 3 });
    try {
      await first.hooks.putHook(hook('h', 't'));
      const ids: string[] = [];
      for (let i = 0; ids.every((id) => id.slice(22, 24) !== '02') && i < 200; i += 1) {
        ids.push(...(await first.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 })).map((k) => k.id));
      }
      const last = ids.find((id) => id.slice(22, 24) === '02')!;
      expect(last).toBeDefined();
      for (const partitions of [2, 4]) {
        const e = await rejection(createRedisStores({ url, prefix, partitions }));
        expect(e.kind).toBe('bad_input');
        expect(e.message).toContain('HOOKS_RUN_PARTITIONS');
        expect(e.message).toContain(`HOOKS_RUN_PARTITIONS is ${partitions} `);
        expect(e.message).toContain('kept with 3 partitions');
      }
      // Another process with the stored count finds and claims a run of the highest stored partition.
      const other = await createRedisStores({ url, prefix, partitions: 3 });
      try {
        expect((await other.runs.get(last))?.id).toBe(last);
        expect((await other.runs.claim(last, 'w', 1_000, T0))?.run.status).toBe('running');
        expect(await other.runs.get(`${last.slice(0, 22)}03${last.slice(24)}`)).toBeNull();
      } finally {
        await other.close();
      }
    } finally {
      await first.close();
    }
  });

  it('refuses a smaller count over runs kept before the count was recorded', async () => {
    const prefix = `${suitePrefix}legacy`;
    const old = await createRedisStores({ url, prefix, partitions: 1 });
    const admin = new Redis(url);
    try {
      // Runs of an older deployment in partitions 0..2, and no recorded count.
      await admin.zadd(`{${prefix}:p2}:ix:all`, 0, 'x');
      await admin.zadd(`{${prefix}:p1}:ix:all`, 0, 'x');
      await admin.del(`{${prefix}}:meta`);
      const e = await rejection(createRedisStores({ url, prefix, partitions: 2 }));
      expect(e.kind).toBe('bad_input');
      expect(e.message).toContain('HOOKS_RUN_PARTITIONS is 2 ');
      expect(e.message).toContain('at least 3');
      expect(await admin.hget(`{${prefix}}:meta`, 'partitions')).toBeNull();
      const ok = await createRedisStores({ url, prefix, partitions: 3 });
      await ok.close();
      expect(await admin.hget(`{${prefix}}:meta`, 'partitions')).toBe('3');
    } finally {
      admin.disconnect();
      await old.close();
    }
  });

  it('rejects a prefix with braces and a partition count out of range', async () => {
    expect((await rejection(createRedisStores({ url, prefix: 'a{b', partitions: 1 }))).kind).toBe('bad_input');
    expect((await rejection(createRedisStores({ url, prefix: 'ok', partitions: 0 }))).kind).toBe('bad_input');
  });

  it('keeps a bucket as one key in its own hash tag, expiring when the bucket has refilled', async () => {
    const prefix = `${suitePrefix}x${(n += 1)}`;
    const s = await createRedisStores({ url, prefix, partitions: 1 });
    const admin = new Redis(url);
    try {
      const now = Date.now();
      await s.buckets.take('door-client', '10.0.0.1', { rate: 0.01, burst: 5 }, now);
      await s.buckets.take('door-client', '10.0.0.1', { rate: 0.01, burst: 5 }, now);
      const key = `{${prefix}:lim:door-client:10.0.0.1}:tat`;
      expect(Number(await admin.get(key))).toBe(now + 200_000);
      // Expiry on Redis's clock: about two intervals (200 s), never more.
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(100_000);
      expect(ttl).toBeLessThanOrEqual(200_000);
    } finally {
      admin.disconnect();
      await s.close();
    }
  });
});
