import { AGENT_CALL_TOPIC, agentTokenHash, agentTokenId, argsHash, legacyAgentId, type AgentCallPayload, type RunStatus } from '@hookyard/core';
import { JOINABLE_STATUSES, countsByHook, statsSeries, type KeepAgentCallInput, type Stores } from '../src';
import { T0, hook, rejection } from './fixtures';

const MINUTE = 60_000;
const HASH_A = agentTokenHash('hya_token-a');
const HASH_B = agentTokenHash('hya_token-b');
const HASH_C = agentTokenHash('hya_token-c');
const iso = (ms: number) => new Date(ms).toISOString();

const ciBot = { name: 'ci-bot', description: 'runs the checks', tools_allow: ['echo', 'github.*'], tokenHash: HASH_A };

/**
 * Agent principals (AgentStore): created once per name, listed by name, found
 * by their token's SHA-256 only while that token is theirs (rotate and remove
 * take effect at once); the hash never leaves the store.
 */
export function describeAgentStoreConformance(stores: () => Stores): void {
  describe('agents (AgentStore)', () => {
    it('creates an agent, gets it, lists every agent by name', async () => {
      const { agents } = stores();
      const created = await agents.create(ciBot, T0);
      const expected = {
        id: created.id,
        name: 'ci-bot',
        description: 'runs the checks',
        tools_allow: ['echo', 'github.*'],
        token_id: agentTokenId(HASH_A),
        created_at: iso(T0),
        updated_at: iso(T0),
      };
      expect(created).toEqual(expected);
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await agents.get('ci-bot')).toEqual(expected);
      await agents.create({ name: 'a-bot', description: null, tools_allow: ['*'], tokenHash: HASH_B }, T0 + 1);
      expect((await agents.list()).map((a) => a.name)).toEqual(['a-bot', 'ci-bot']);
      expect((await agents.list())[0]).toMatchObject({ description: null, tools_allow: ['*'], token_id: agentTokenId(HASH_B) });
      expect(await agents.get('nobody')).toBeNull();
    });

    it('refuses a taken name with conflict and keeps the first agent and its token', async () => {
      const { agents } = stores();
      await agents.create(ciBot, T0);
      const e = await rejection(agents.create({ ...ciBot, description: 'another', tokenHash: HASH_B }, T0 + 1));
      expect(e.kind).toBe('conflict');
      expect(e.message).toContain("'ci-bot'");
      expect(await agents.get('ci-bot')).toMatchObject({ description: 'runs the checks', token_id: agentTokenId(HASH_A) });
      expect(await agents.byTokenHash(HASH_B)).toBeNull();
      expect((await agents.byTokenHash(HASH_A))?.name).toBe('ci-bot');
    });

    it('rotate: the old hash is unknown at once, the new one names the agent, updated_at moves', async () => {
      const { agents } = stores();
      await agents.create(ciBot, T0);
      const rotated = await agents.rotate('ci-bot', HASH_B, T0 + MINUTE);
      expect(rotated).toMatchObject({ name: 'ci-bot', token_id: agentTokenId(HASH_B), created_at: iso(T0), updated_at: iso(T0 + MINUTE) });
      expect(await agents.byTokenHash(HASH_A)).toBeNull();
      expect(await agents.byTokenHash(HASH_B)).toEqual(rotated);
      expect(await agents.get('ci-bot')).toEqual(rotated);
      // Rotating again retires the second token too.
      await agents.rotate('ci-bot', HASH_C, T0 + 2 * MINUTE);
      expect(await agents.byTokenHash(HASH_B)).toBeNull();
      expect((await agents.byTokenHash(HASH_C))?.name).toBe('ci-bot');
    });

    it('remove: the token is unknown at once; the name is free again', async () => {
      const { agents } = stores();
      await agents.create(ciBot, T0);
      const made = await agents.get('ci-bot');
      expect(await agents.remove('ci-bot')).toEqual(made);
      expect(await agents.byTokenHash(HASH_A)).toBeNull();
      expect(await agents.get('ci-bot')).toBeNull();
      expect(await agents.list()).toEqual([]);
      // Created again under a new token: the old token still names nobody.
      await agents.create({ ...ciBot, tokenHash: HASH_B }, T0 + 1);
      expect(await agents.byTokenHash(HASH_A)).toBeNull();
      expect((await agents.byTokenHash(HASH_B))?.name).toBe('ci-bot');
    });

    it('update: replaces the fields given, keeps the rest, the id and the token; updated_at moves; null for nobody', async () => {
      const { agents } = stores();
      const made = await agents.create(ciBot, T0);
      const changed = await agents.update('ci-bot', { tools_allow: ['echo', '!github.delete'] }, T0 + MINUTE);
      const expected = { ...made, tools_allow: ['echo', '!github.delete'], updated_at: iso(T0 + MINUTE) };
      expect(changed).toEqual(expected);
      expect(await agents.get('ci-bot')).toEqual(expected);
      expect(await agents.byTokenHash(HASH_A)).toEqual(expected);
      expect(await agents.update('ci-bot', { description: null }, T0 + 2 * MINUTE)).toEqual({
        ...expected,
        description: null,
        updated_at: iso(T0 + 2 * MINUTE),
      });
      // A rotate after an update keeps the update; an update after a rotate keeps the new token.
      await agents.rotate('ci-bot', HASH_B, T0 + 3 * MINUTE);
      const last = await agents.update('ci-bot', { description: 'back', tools_allow: ['*'] }, T0 + 4 * MINUTE);
      expect(last).toMatchObject({ id: made.id, description: 'back', tools_allow: ['*'], token_id: agentTokenId(HASH_B), created_at: iso(T0) });
      expect(await agents.byTokenHash(HASH_A)).toBeNull();
      expect((await agents.byTokenHash(HASH_B))?.tools_allow).toEqual(['*']);
      expect(await agents.update('nobody', { description: 'x' }, T0)).toBeNull();
    });

    it('the id is made at creation and never changes: rotate keeps it, the same name made again after remove gets a new one', async () => {
      const { agents } = stores();
      const first = await agents.create(ciBot, T0);
      expect((await agents.rotate('ci-bot', HASH_B, T0 + 1))?.id).toBe(first.id);
      expect((await agents.byTokenHash(HASH_B))?.id).toBe(first.id);
      expect((await agents.remove('ci-bot'))?.id).toBe(first.id);
      const again = await agents.create({ ...ciBot, tokenHash: HASH_C }, T0 + 2);
      expect(again.id).not.toBe(first.id);
      expect((await agents.list()).map((a) => a.id)).toEqual([again.id]);
    });

    it('rotate and remove of a missing agent answer null and false, and create nothing', async () => {
      const { agents } = stores();
      expect(await agents.rotate('ghost', HASH_A, T0)).toBeNull();
      expect(await agents.remove('ghost')).toBeNull();
      expect(await agents.byTokenHash(HASH_A)).toBeNull();
      expect(await agents.list()).toEqual([]);
    });

    it('never shows the token hash in an answer', async () => {
      const { agents } = stores();
      const answers: unknown[] = [await agents.create(ciBot, T0)];
      answers.push(await agents.get('ci-bot'), await agents.list(), await agents.byTokenHash(HASH_A));
      answers.push(await agents.rotate('ci-bot', HASH_B, T0 + 1), await agents.get('ci-bot'), await agents.list(), await agents.byTokenHash(HASH_B));
      for (const answer of answers) {
        const text = JSON.stringify(answer);
        expect(text).not.toContain(HASH_A);
        expect(text).not.toContain(HASH_B);
        expect(text).not.toMatch(/token_hash|tokenHash/);
      }
    });

    it('keeps the IdP identities an agent is made with, through a rotate; an agent made without any shows none', async () => {
      const { agents } = stores();
      const identities = [
        { issuer: 'https://idp.example.com', subject: 'alice' },
        { issuer: 'https://idp.example.com', client_id: 'ci-runner' },
      ];
      const created = await agents.create({ ...ciBot, identities }, T0);
      expect(created.identities).toEqual(identities);
      expect((await agents.get('ci-bot'))?.identities).toEqual(identities);
      expect((await agents.rotate('ci-bot', HASH_B, T0 + 1))?.identities).toEqual(identities);
      expect((await agents.list())[0]?.identities).toEqual(identities);
      await agents.create({ name: 'plain-bot', description: null, tools_allow: ['*'], tokenHash: HASH_C }, T0);
      expect(await agents.get('plain-bot')).not.toHaveProperty('identities');
    });

    it('an answer is a copy: changing it changes nothing kept', async () => {
      const { agents } = stores();
      const created = await agents.create(ciBot, T0);
      created.tools_allow.push('rm');
      const got = await agents.get('ci-bot');
      got!.tools_allow.push('rm');
      expect((await agents.get('ci-bot'))?.tools_allow).toEqual(['echo', 'github.*']);
    });
  });
}

const call = (key: string, extra: Partial<AgentCallPayload> = {}): AgentCallPayload => ({
  tool: 'echo',
  arguments: { say: 'hi', n: 1 },
  args_sha256: argsHash({ say: 'hi', n: 1 }),
  tools_allow: null,
  idempotency_key: key,
  via: 'mcp',
  ...extra,
});
/** The same call but for its arguments. */
const other2 = (key: string): AgentCallPayload => call(key, { arguments: { say: 'bye' }, args_sha256: argsHash({ say: 'bye' }) });

/** Runs the call to its end (succeeded). */
async function finish(s: Stores, id: string, now: number): Promise<void> {
  const c = await s.runs.claim(id, 'w-1', 60_000, now);
  await s.runs.complete(id, c!.token, 'succeeded', { ok: true }, now);
}

/** Brings a fresh pending run to `status` through the store's own transitions. */
async function bringTo(s: Stores, id: string, status: RunStatus): Promise<void> {
  if (status === 'pending') return;
  const c = await s.runs.claim(id, 'w-1', 60_000, T0);
  if (status === 'running') return;
  if (status === 'retry_wait') {
    await s.runs.scheduleRetry(id, c!.token, { kind: 'unavailable', message: 'try later' }, T0 + 60_000, T0);
    return;
  }
  if (status === 'parked') {
    await s.interactions.park({
      run: id,
      token: c!.token,
      kind: 'approval',
      tool: 'echo',
      argsHash: argsHash({ say: 'hi', n: 1 }),
      rule: 'needs a person',
      expiresAt: T0 + 3_600_000,
      now: T0 + 1,
    });
    return;
  }
  throw new Error(`bringTo: ${status} is not a joinable status this suite knows how to reach`);
}

const input = (agent: string, key: string, now = T0, extra: Partial<KeepAgentCallInput> = {}): KeepAgentCallInput => ({
  agent,
  call: call(key),
  now,
  dispatchGraceMs: 0,
  keyTtlMs: 10 * MINUTE,
  ...extra,
});

/**
 * RunStore.keepAgentCall: an agent's call kept as one pending run (door
 * `agent`), one run per agent and idempotency key within the key's time.
 */
export function describeAgentCallConformance(stores: () => Stores): void {
  describe('keepAgentCall', () => {
    it('keeps a pending run: door agent, hook agent:<name>, topic tools/call, the call as payload, a history line naming tool, agent and key', async () => {
      const s = stores();
      const c = call('k-1', { tools_allow: ['echo'], via: 'http' });
      const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const kept = await s.runs.keepAgentCall({ agent: 'ci-bot', call: c, now: T0, dispatchGraceMs: 5_000, keyTtlMs: MINUTE, traceparent: tp });
      expect(kept.created).toBe(true);
      const run = await s.runs.get(kept.id);
      expect(run).toMatchObject({
        id: kept.id,
        hook: 'agent:ci-bot',
        topic: AGENT_CALL_TOPIC,
        door: 'agent',
        status: 'pending',
        payload: c,
        attempts: 0,
        delivery_id: null,
        traceparent: tp,
        created_at: iso(T0),
      });
      expect(run!.history).toHaveLength(1);
      const [line] = run!.history;
      expect(line!.event).toBe('kept');
      expect(line!.detail).toContain('tool echo');
      expect(line!.detail).toContain('agent ci-bot');
      expect(line!.detail).toContain('idempotency key k-1');
      expect(line!.detail).toContain('(http)');
      expect((await s.runs.list({ hook: 'agent:ci-bot' }, 10)).runs.map((r) => r.id)).toEqual([kept.id]);
      expect((await s.runs.counts()).pending).toBe(1);
    });

    it('the same agent and key answer the same run, created=false, and keep nothing more', async () => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      const again = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-1', T0 + MINUTE), call: call('k-1', { arguments: { other: true } }) });
      expect(again).toEqual({ id: first.id, created: false, joined: false });
      expect((await s.runs.get(first.id))?.payload).toEqual(call('k-1'));
      expect((await s.runs.list({}, 10)).runs).toHaveLength(1);
    });

    it("counts each agent's calls, denials and failures per minute under its hook (usage and denied_by_agent read them)", async () => {
      const s = stores();
      const M = Math.floor(T0 / MINUTE);
      const end = async (agent: string, key: string, how: 'denied' | 'failed' | 'succeeded') => {
        const kept = await s.runs.keepAgentCall(input(agent, key, T0 + 10));
        const c = await s.runs.claim(kept.id, 'w', MINUTE, T0 + 20);
        if (how === 'failed') await s.runs.fail(kept.id, c!.token, { kind: 'unavailable', message: 'down' }, T0 + 30);
        else await s.runs.complete(kept.id, c!.token, how, null, T0 + 30);
      };
      await end('ci-bot', 'k-1', 'denied');
      await end('ci-bot', 'k-2', 'denied');
      await end('ci-bot', 'k-3', 'failed');
      await end('ops-bot', 'k-1', 'succeeded');
      await end('ops-bot', 'k-2', 'denied');
      // A repeat answered from its key is no new call.
      await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0 + 40));
      const minutes = await s.runs.minuteStats(M - 1, M + 1);
      const byHook = countsByHook(minutes);
      expect(byHook.get('agent:ci-bot')).toMatchObject({ accepted: 3, denied: 2, failed: 1, succeeded: 0, approvals: 0 });
      expect(byHook.get('agent:ops-bot')).toMatchObject({ accepted: 2, denied: 1, failed: 0, succeeded: 1 });
      // The store's own sum (what an agent's usage reads) agrees, for the hooks of the prefix only.
      await s.hooks.putHook(hook('plain', 'orders'));
      const [other] = await s.runs.keepEvent({ topic: 'orders', payload: {}, now: T0 + 50, dispatchGraceMs: 0 });
      expect(other).toBeDefined();
      const totals = await s.runs.hookTotals(M - 1, M + 1, 'agent:');
      expect([...totals.keys()].sort()).toEqual(['agent:ci-bot', 'agent:ops-bot']);
      expect(totals.get('agent:ci-bot')).toEqual({ accepted: 3, succeeded: 0, failed: 1, skipped: 0, denied: 2, approvals: 0 });
      expect(totals.get('agent:ops-bot')).toEqual({ accepted: 2, succeeded: 1, failed: 0, skipped: 0, denied: 1, approvals: 0 });
      expect((await s.runs.hookTotals(M - 1, M + 1, '')).get('plain')).toMatchObject({ accepted: 1 });
      expect((await s.runs.hookTotals(M + 1, M + 2, 'agent:')).size).toBe(0);
      expect(statsSeries(minutes, '1h', null, T0 + MINUTE).denied_by_agent).toEqual([
        { agent: 'ci-bot', denied: 2, accepted: 3 },
        { agent: 'ops-bot', denied: 1, accepted: 2 },
      ]);
    });

    it('another agent with the same key, or the same agent with another key and other arguments, keeps a new run', async () => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      const other = await s.runs.keepAgentCall({ ...input('ops-bot', 'k-1'), call: call('k-1', { agent_id: 'ops-bot-id' }) });
      const otherKey = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-2'), call: other2('k-2') });
      expect(other.created).toBe(true);
      expect(otherKey.created).toBe(true);
      expect(new Set([first.id, other.id, otherKey.id]).size).toBe(3);
      expect((await s.runs.get(other.id))?.hook).toBe('agent:ops-bot');
    });

    it("keys belong to the agent id: a same-named agent with another id does not find the first one's key and keeps a new run", async () => {
      const s = stores();
      const withId = (id: string, now = T0) => ({ ...input('ci-bot', 'k-1', now), call: call('k-1', { agent_id: id }) });
      const first = await s.runs.keepAgentCall(withId('id-first'));
      expect(await s.runs.keepAgentCall(withId('id-first', T0 + 1))).toEqual({ id: first.id, created: false, joined: false });
      const successor = await s.runs.keepAgentCall(withId('id-second', T0 + 2));
      expect(successor.created).toBe(true);
      expect(successor.id).not.toBe(first.id);
      expect((await s.runs.get(successor.id))?.payload).toMatchObject({ agent_id: 'id-second' });
      expect((await s.runs.get(successor.id))?.history[0]?.detail).toContain('agent ci-bot (id id-second)');
    });

    it("a call kept the old way (no agent_id) is scoped by the name, which is its agent's legacy id", async () => {
      const s = stores();
      const old = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      const legacy = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-1', T0 + 1), call: call('k-1', { agent_id: legacyAgentId('ci-bot') }) });
      expect(legacy).toEqual({ id: old.id, created: false, joined: false });
      expect((await s.runs.keepAgentCall({ ...input('ci-bot', 'k-1', T0 + 2), call: call('k-1', { agent_id: 'a-new-id' }) })).created).toBe(true);
    });

    it('a key past keyTtlMs (on the callers clock) keeps a new run', async () => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0, { keyTtlMs: MINUTE }));
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0 + MINUTE - 1, { keyTtlMs: MINUTE }))).toEqual({
        id: first.id,
        created: false,
        joined: false,
      });
      // The first call has ended, so the same call later is a new one.
      await finish(s, first.id, T0 + 2);
      const later = await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0 + MINUTE, { keyTtlMs: MINUTE }));
      expect(later.created).toBe(true);
      expect(later.id).not.toBe(first.id);
      // The key now answers the new run.
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0 + MINUTE + 1, { keyTtlMs: MINUTE }))).toEqual({
        id: later.id,
        created: false,
        joined: false,
      });
    });

    it('an identical call (same agent, tool and arguments) with another key joins the open one: joined, one run, its key now names it', async () => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      const joined = await s.runs.keepAgentCall(input('ci-bot', 'k-2', T0 + 1));
      expect(joined).toEqual({ id: first.id, created: false, joined: true });
      // The joining key answers that run from now on, as a key of its own (not a join).
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-2', T0 + 2))).toEqual({ id: first.id, created: false, joined: false });
      expect((await s.runs.list({}, 10)).runs).toHaveLength(1);
      expect((await s.runs.get(first.id))?.payload).toEqual(call('k-1'));
      // Other arguments, another tool, another agent: not the same call.
      const otherArgs = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-3', T0 + 3), call: other2('k-3') });
      const otherTool = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-4', T0 + 4), call: call('k-4', { tool: 'echo2' }) });
      const otherAgent = await s.runs.keepAgentCall({ ...input('ops-bot', 'k-5', T0 + 5), call: call('k-5', { agent_id: 'ops-bot-id' }) });
      for (const k of [otherArgs, otherTool, otherAgent]) expect(k).toMatchObject({ created: true, joined: false });
      expect((await s.runs.list({}, 10)).runs).toHaveLength(4);
    });

    it.each(JOINABLE_STATUSES.map((status) => [status]))('a call %s is joined', async (status) => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      await bringTo(s, first.id, status);
      expect((await s.runs.get(first.id))?.status).toBe(status);
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-2', T0 + 10))).toEqual({ id: first.id, created: false, joined: true });
    });

    it('a call that failed after its tool started and was interrupted (outcome unknown, held for an operator) is joined; one that failed with an answer is not', async () => {
      const s = stores();
      const lost = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      const c = await s.runs.claim(lost.id, 'w-1', 1_000, T0);
      await s.runs.act(lost.id, c!.token, { acted: 'start', actedIds: [], input: {}, resumable: false }, T0);
      await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 3, retryDelayMs: 1_000 });
      expect((await s.runs.get(lost.id))?.status).toBe('failed');
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-2', T0 + 2_000))).toEqual({ id: lost.id, created: false, joined: true });
      // An operator's verdict closes it: failed (operator_failed) is an outcome, so an identical call is a new one.
      await s.runs.resolveUnknown(lost.id, { outcome: 'failed', reason: 'the deploy did not happen', note: null, by: 'person:ana' }, T0 + 2_500);
      const after = await s.runs.keepAgentCall(input('ci-bot', 'k-2b', T0 + 2_600));
      expect(after).toMatchObject({ created: true, joined: false });
      expect(after.id).not.toBe(lost.id);

      const failed = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-3', T0 + 3_000), call: other2('k-3') });
      const c2 = await s.runs.claim(failed.id, 'w-1', 1_000, T0 + 3_000);
      await s.runs.act(failed.id, c2!.token, { acted: 'start', actedIds: [], input: {}, resumable: false }, T0 + 3_000);
      await s.runs.fail(failed.id, c2!.token, { kind: 'bad_input', message: 'the tool said no' }, T0 + 3_001);
      const again = await s.runs.keepAgentCall({ ...input('ci-bot', 'k-4', T0 + 4_000), call: other2('k-4') });
      expect(again).toMatchObject({ created: true, joined: false });
      expect(again.id).not.toBe(failed.id);
    });

    it('after the call finished, an identical call with a new key is a new call; the old key still answers the old run', async () => {
      const s = stores();
      const first = await s.runs.keepAgentCall(input('ci-bot', 'k-1'));
      await finish(s, first.id, T0 + 1);
      const next = await s.runs.keepAgentCall(input('ci-bot', 'k-2', T0 + 2));
      expect(next).toMatchObject({ created: true, joined: false });
      expect(next.id).not.toBe(first.id);
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-1', T0 + 3))).toEqual({ id: first.id, created: false, joined: false });
      // The newest such call is the one joined.
      expect(await s.runs.keepAgentCall(input('ci-bot', 'k-3', T0 + 4))).toEqual({ id: next.id, created: false, joined: true });
    });

    it('two concurrent identical calls with different keys keep one run', async () => {
      const s = stores();
      const both = await Promise.all([s.runs.keepAgentCall(input('ci-bot', 'k-a')), s.runs.keepAgentCall(input('ci-bot', 'k-b'))]);
      expect(both[0].id).toBe(both[1].id);
      expect(both.map((k) => k.joined).sort()).toEqual([false, true]);
      expect((await s.runs.list({}, 10)).runs).toHaveLength(1);
    });

    it('two concurrent keeps with one key keep one run', async () => {
      const s = stores();
      const both = await Promise.all([s.runs.keepAgentCall(input('ci-bot', 'k-race')), s.runs.keepAgentCall(input('ci-bot', 'k-race'))]);
      expect(both[0].id).toBe(both[1].id);
      expect(both.map((k) => k.created).sort()).toEqual([false, true]);
      expect((await s.runs.list({}, 10)).runs).toHaveLength(1);
    });
  });
}
