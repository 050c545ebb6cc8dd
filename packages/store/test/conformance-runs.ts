import { RESULT_MAX_BYTES, RUN_ID_PATTERN } from '@hookyard/core';
import type { PlannedClaim, Stores } from '../src';
import { T0, hook, rejection, useStores } from './fixtures';
import type { StoresFactory } from './fixtures';
import { describeInterruptConformance } from './conformance-interrupt';
import { describeResendConformance } from './conformance-resend';
import { describeDeliveryConformance } from './conformance-delivery';
import { describeUnroutedConformance } from './conformance-unrouted';
import { describeAgentCallConformance } from './conformance-agents';
import { describeStatsConformance } from './conformance-stats';

/** Registers `hooks` on `topic` and keeps one event: returns the kept ids in hook-name order. */
export async function keep(s: Stores, topic: string, hooks: string[], now = T0, graceMs = 0): Promise<string[]> {
  for (const h of hooks) await s.hooks.putHook(hook(h, topic));
  return (await s.runs.keepEvent({ topic, payload: { n: 1 }, deliveryId: 'd-1', now, dispatchGraceMs: graceMs })).map((k) => k.id);
}

export function describeRunStoreConformance(name: string, factory: StoresFactory): void {
  describe(`${name}: run store`, () => {
    const stores = useStores(factory);

    describe('keepEvent', () => {
      it('keeps nothing for a topic without hooks', async () => {
        const s = stores();
        await s.hooks.putHook(hook('elsewhere', 'other'));
        expect(await s.runs.keepEvent({ topic: 'empty', payload: {}, now: T0, dispatchGraceMs: 0 })).toEqual([]);
        expect((await s.runs.list({}, 10)).runs).toEqual([]);
      });

      it('keeps one pending run per hook on the topic, none for hooks on other topics', async () => {
        const s = stores();
        await s.hooks.putHook(hook('b-other', 'other'));
        const ids = await keep(s, 'orders', ['h3', 'h1', 'h2']);
        const kept = await Promise.all(ids.map((id) => s.runs.get(id)));
        expect(kept.map((r) => r?.hook)).toEqual(['h1', 'h2', 'h3']);
        expect(new Set(ids).size).toBe(3);
        for (const id of ids) expect(id).toMatch(RUN_ID_PATTERN);
        const run = kept[0]!;
        expect(run).toMatchObject({
          topic: 'orders',
          status: 'pending',
          attempts: 0,
          acted: '',
          acted_ids: [],
          claim_intent: '',
          error: null,
          result: null,
          input: null,
          lease: null,
          resumable: false,
          delivery_id: 'd-1',
          payload: { n: 1 },
          due_at: new Date(T0).toISOString(),
          created_at: new Date(T0).toISOString(),
          started_at: null,
          finished_at: null,
        });
        expect(run.history.map((h) => h.event)).toEqual(['kept']);
        expect((await s.runs.list({ topic: 'other' }, 10)).runs).toEqual([]);
        expect((await s.runs.counts()).pending).toBe(3);
      });

      it('keeps the traceparent it is given on every run of the event (delivery claim or not); none is null', async () => {
        const s = stores();
        const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        for (const h of ['a', 'b']) await s.hooks.putHook(hook(h, 'traced'));
        const ids = (await s.runs.keepEvent({ topic: 'traced', payload: {}, now: T0, dispatchGraceMs: 0, traceparent: tp })).map((k) => k.id);
        const claimed = await s.runs.keepDelivery({ topic: 'traced', payload: {}, now: T0, dispatchGraceMs: 0, traceparent: tp }, { id: 'd-9', ttlMs: 1000 });
        expect(claimed.status).toBe('kept');
        if (claimed.status === 'kept') ids.push(...claimed.runs.map((k) => k.id));
        expect(ids).toHaveLength(4);
        for (const id of ids) expect((await s.runs.get(id))!.traceparent).toBe(tp);
        const [plain] = await keep(s, 'plain', ['c']);
        expect((await s.runs.get(plain!))!.traceparent).toBeNull();
      });

      it('keeps the request headers it is given on every run of the event (keepEvent, keepDelivery, keepHookRun), not in the head; none is null', async () => {
        const s = stores();
        const headers = { 'content-type': 'application/json', 'x-github-event': 'push' };
        for (const h of ['a', 'b']) await s.hooks.putHook(hook(h, 'headed'));
        const ids = (await s.runs.keepEvent({ topic: 'headed', payload: {}, now: T0, dispatchGraceMs: 0, door: 'http', headers })).map((k) => k.id);
        const claimed = await s.runs.keepDelivery(
          { topic: 'headed', payload: {}, now: T0, dispatchGraceMs: 0, door: 'nats', headers: {} },
          { id: 'm-h', ttlMs: 1000 },
        );
        if (claimed.status !== 'kept') throw new Error('expected kept');
        const [linked] = await s.runs.keepHookRun(
          { topic: 'headed', payload: {}, now: T0, dispatchGraceMs: 0, door: 'trigger', headers, triggerLink: 'l-1' },
          'b',
        );
        for (const id of [...ids, linked!.id]) expect((await s.runs.get(id))!.headers).toEqual(headers);
        for (const k of claimed.runs) expect((await s.runs.get(k.id))!.headers).toEqual({});
        const [plain] = await keep(s, 'plain', ['c']);
        expect((await s.runs.get(plain!))!.headers).toBeNull();
        // Bulky: an outcome write's head leaves them out, as it does the payload.
        const c = await s.runs.claim(ids[0]!, 'w', 1_000, T0);
        expect(Object.keys(await s.runs.complete(ids[0]!, c!.token, 'succeeded', null, T0 + 1))).not.toContain('headers');
        // A replay is door api: it keeps none of its source's.
        const replayed = await s.runs.replay(ids[0]!, { name: 'a', topic: 'headed' }, T0 + 2, 0);
        expect((await s.runs.get(replayed.id))!.headers).toBeNull();
      });

      it('keeps the door and verification it is given on every run of the event, in its first history line and its head; absent is door api, not verified', async () => {
        const s = stores();
        for (const h of ['a', 'b']) await s.hooks.putHook(hook(h, 'prov'));
        const http = await s.runs.keepEvent({ topic: 'prov', payload: {}, now: T0, dispatchGraceMs: 0, door: 'http', verified: true });
        const nats = await s.runs.keepDelivery({ topic: 'prov', payload: {}, now: T0, dispatchGraceMs: 0, door: 'nats' }, { id: 'm-1', ttlMs: 1000 });
        if (nats.status !== 'kept') throw new Error('expected kept');
        const plain = await s.runs.keepEvent({ topic: 'prov', payload: {}, now: T0, dispatchGraceMs: 0 });
        const seen = async (ids: { id: string }[]) => Promise.all(ids.map(async (k) => (await s.runs.get(k.id))!));
        for (const r of await seen(http)) {
          expect([r.door, r.verified]).toEqual(['http', true]);
          expect(r.history[0]!.detail).toBe('event on prov through the http door, verified');
        }
        for (const r of await seen(nats.runs)) {
          expect([r.door, r.verified]).toEqual(['nats', false]);
          expect(r.history[0]!.detail).toBe('event on prov through the nats door, not verified');
        }
        for (const r of await seen(plain)) expect([r.door, r.verified]).toEqual(['api', false]);
        // The head an outcome write answers carries them too.
        const c = await s.runs.claim(http[0]!.id, 'w', 1_000, T0);
        expect(await s.runs.complete(http[0]!.id, c!.token, 'succeeded', null, T0 + 1)).toMatchObject({ door: 'http', verified: true });
        // The binding's kind, when the door names it, is in the story.
        const [gh] = await s.runs.keepEvent({ topic: 'prov', payload: {}, now: T0, dispatchGraceMs: 0, door: 'http', verified: true, verifiedBy: 'github' });
        expect((await s.runs.get(gh!.id))!.history[0]!.detail).toBe('event on prov through the http door, verified by its github binding');
      });

      it("a run's fields come in the API's order", async () => {
        const s = stores();
        const [id] = await keep(s, 'order', ['a']);
        expect(Object.keys((await s.runs.get(id!))!)).toEqual([
          'id',
          'hook',
          'topic',
          'status',
          'payload',
          'headers',
          'attempts',
          'acted',
          'acted_ids',
          'claim_intent',
          'error',
          'result',
          'input',
          'lease',
          'due_at',
          'delivery_id',
          'door',
          'verified',
          'resumable',
          'interaction',
          'parked_on',
          'replay_of',
          'trigger_link',
          'traceparent',
          'created_at',
          'updated_at',
          'started_at',
          'finished_at',
          'history',
        ]);
      });

      it('dispatches again only after the grace, not before', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h'], T0, 5_000);
        expect(await s.runs.sweepDue(T0 + 4_999, 10, 1_000)).toEqual([]);
        expect(await s.runs.sweepDue(T0 + 5_000, 10, 1_000)).toEqual([id]);
      });
    });

    describe('claimPlanned (the plan made before the claim)', () => {
      const revisionOf = async (s: Stores, name: string) => (await s.hooks.getHookRevision(name))!.revision;
      // The payload `keep` keeps, as its dispatch hint carries it.
      const KEPT = '{"n":1}';
      let calls = 0;
      /** A plan for the run of hook `name` that `keep` kept, on its current revision; `over` is what a test changes. */
      const planFor = async (s: Stores, name: string, over: Partial<PlannedClaim> = {}): Promise<PlannedClaim> => ({
        revision: await revisionOf(s, name),
        payloadJson: KEPT,
        policyVersion: 0,
        topic: 't',
        nonce: `call-${(calls += 1)}`,
        plan: { skip: { result: {} } },
        ...over,
      });

      it('start: claims and records the start with its input in one step', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const planned = await planFor(s, 'h', { plan: { start: { input: { a: 1 }, resumable: true } } });
        const c = await s.runs.claimPlanned(id!, 'w1', 30_000, T0, planned);
        expect(c).toMatchObject({ applied: 'start', run: { status: 'running', attempts: 1, acted: 'start', resumable: true, lease: { owner: 'w1' } } });
        expect(c!.run).not.toHaveProperty('payload');
        const run = (await s.runs.get(id!))!;
        expect(run).toMatchObject({ status: 'running', acted: 'start', input: { a: 1 }, resumable: true, claim_intent: '', payload: { n: 1 } });
        expect(run.history.map((h) => [h.event, h.attempt])).toEqual([
          ['kept', 0],
          ['claimed', 1],
          ['acted', 1],
        ]);
        expect(run.history[2]!.detail).toBe('started its tool (crash-resumable)');
        // The token is the attempt's: its outcome write is accepted; another claim finds nothing.
        expect(await s.runs.claimPlanned(id!, 'w2', 30_000, T0, { ...planned, nonce: 'another call' })).toBeNull();
        expect((await s.runs.complete(id!, c!.token, 'succeeded', { ok: 1 }, T0 + 5)).status).toBe('succeeded');
      });

      it("start: a policy's note is recorded before the start", async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const note = { event: 'approval policy', detail: 'allowed by rule r1' };
        await s.runs.claimPlanned(id!, 'w', 1_000, T0, await planFor(s, 'h', { plan: { start: { input: {}, resumable: false, note } } }));
        const run = (await s.runs.get(id!))!;
        expect(run.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'approval policy', 'acted']);
        expect(run.history[2]!.detail).toBe('allowed by rule r1');
        expect(run.resumable).toBe(false);
      });

      it('skip: claims and ends the run skipped in one step, with no lease left', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claimPlanned(id!, 'w', 1_000, T0 + 3, await planFor(s, 'h', { plan: { skip: { result: { condition: false } } } }));
        expect(c).toMatchObject({ applied: 'skipped', run: { status: 'skipped', attempts: 1, lease: null } });
        const run = (await s.runs.get(id!))!;
        expect(run).toMatchObject({ status: 'skipped', result: { condition: false }, lease: null, finished_at: new Date(T0 + 3).toISOString() });
        expect(run.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'skipped']);
        expect(await s.runs.counts()).toMatchObject({ running: 0, pending: 0 });
        expect((await s.runs.list({ status: 'skipped' }, 10)).runs.map((r) => r.id)).toEqual([id]);
        expect(await s.runs.claim(id!, 'w', 1_000, T0 + 4)).toBeNull();
        expect(await s.runs.sweepLapsed(T0 + 10_000, 10, { maxAttempts: 3, retryDelayMs: 0 })).toEqual([]);
        // Ended by this token's complete: a re-sent complete of the same outcome is answered as stored.
        expect((await s.runs.complete(id!, c!.token, 'skipped', { condition: false }, T0 + 3)).status).toBe('skipped');
      });

      it('a hook changed since the plan: a plain claim (the whole run), nothing applied', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const old = await revisionOf(s, 'h');
        await s.hooks.putHook({ ...hook('h', 't'), tool_kwargs: { changed: true } });
        expect(await revisionOf(s, 'h')).not.toBe(old);
        const c = await s.runs.claimPlanned(
          id!,
          'w',
          1_000,
          T0,
          await planFor(s, 'h', { revision: old, plan: { start: { input: { a: 1 }, resumable: false } } }),
        );
        expect(c?.applied).toBe('claimed');
        if (c?.applied !== 'claimed') throw new Error('unreachable');
        expect(c.run).toMatchObject({ status: 'running', acted: '', input: null, payload: { n: 1 } });
        expect(c.run.history.map((h) => h.event)).toEqual(['kept', 'claimed']);
        expect(c.hookRevision).toBe(await revisionOf(s, 'h'));
      });

      it('a plan made from another payload than the kept one (a forged or stale hint) is not applied: a plain claim', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const planned = await planFor(s, 'h', { payloadJson: '{"n":2}', plan: { start: { input: { evil: true }, resumable: false } } });
        const c = await s.runs.claimPlanned(id!, 'w', 1_000, T0, planned);
        expect(c).toMatchObject({ applied: 'claimed', run: { acted: '', input: null, payload: { n: 1 } } });
        const [other] = await keep(s, 't2', ['h2']);
        const bad = await s.runs.claimPlanned(other!, 'w', 1_000, T0, { ...planned, revision: await revisionOf(s, 'h2'), payloadJson: 'not json' });
        expect(bad?.applied).toBe('claimed');
      });

      it('an approval policy changed since the decision: a plain claim; a plan on the new version applies', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['h', 'h2']);
        const policy = await s.hooks.putApprovalPolicy([{ tools: ['*'], action: 'allow' }], null, T0);
        expect(policy.version).toBe(1);
        const start = { start: { input: {}, resumable: false } };
        const stale = await s.runs.claimPlanned(a!, 'w', 1_000, T0, await planFor(s, 'h', { plan: start }));
        expect(stale?.applied).toBe('claimed');
        const fresh = await s.runs.claimPlanned(b!, 'w', 1_000, T0, await planFor(s, 'h2', { policyVersion: 1, plan: start }));
        expect(fresh?.applied).toBe('start');
      });

      it("a plan decided for another topic than the run's (a forged hint) is not applied", async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const planned = await planFor(s, 'h', { topic: 'elsewhere', plan: { start: { input: {}, resumable: false } } });
        expect((await s.runs.claimPlanned(id!, 'w', 1_000, T0, planned))?.applied).toBe('claimed');
      });

      it('a repeat of the same call (a re-send after a dropped connection) answers the claim it made', async () => {
        const s = stores();
        const [a, b, c] = await keep(s, 't', ['h', 'h2', 'h3']);
        const start = await planFor(s, 'h', { plan: { start: { input: { x: 1 }, resumable: false } } });
        const first = await s.runs.claimPlanned(a!, 'w', 1_000, T0, start);
        expect(await s.runs.claimPlanned(a!, 'w', 1_000, T0, start)).toEqual(first);
        expect(await s.runs.claimPlanned(a!, 'w', 1_000, T0, { ...start, nonce: 'another' })).toBeNull();
        const skip = await planFor(s, 'h2', { plan: { skip: { result: { condition: false } } } });
        const skipped = await s.runs.claimPlanned(b!, 'w', 1_000, T0, skip);
        expect(await s.runs.claimPlanned(b!, 'w', 1_000, T0, skip)).toEqual(skipped);
        const stale = await planFor(s, 'h3', { revision: 'not-this-one' });
        const plain = await s.runs.claimPlanned(c!, 'w', 1_000, T0, stale);
        expect(plain?.applied).toBe('claimed');
        expect((await s.runs.claimPlanned(c!, 'w', 1_000, T0, stale))?.token).toBe(plain!.token);
        expect((await s.runs.get(a!))!.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'acted']);
      });

      it('a run claimed before (a retry) is only claimed: its plan may not be what the first attempt saw', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c1 = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.scheduleRetry(id!, c1!.token, { kind: 'unavailable', message: 'down' }, T0 + 10, T0 + 1);
        expect(await s.runs.claimPlanned(id!, 'w', 1_000, T0 + 9, await planFor(s, 'h'))).toBeNull();
        const c2 = await s.runs.claimPlanned(id!, 'w', 1_000, T0 + 10, await planFor(s, 'h'));
        expect(c2).toMatchObject({ applied: 'claimed', run: { status: 'running', attempts: 2 } });
        expect((await s.runs.get(id!))!.status).toBe('running');
      });

      it('unknown ids are not_found', async () => {
        const s = stores();
        const planned = { revision: 'r', payloadJson: KEPT, policyVersion: 0, topic: 't', nonce: 'n10', plan: { skip: { result: {} } } };
        expect((await rejection(s.runs.claimPlanned('0'.repeat(26), 'w', 1, T0, planned))).kind).toBe('not_found');
      });
    });

    describe('claim', () => {
      it('is a compare-and-set: the second claim gets null', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const first = await s.runs.claim(id!, 'w1', 30_000, T0);
        expect(first?.run).toMatchObject({ status: 'running', attempts: 1, lease: { owner: 'w1', until: T0 + 30_000 } });
        expect(first?.run.lease?.token).toBe(first?.token);
        expect(first?.run.started_at).toBe(new Date(T0).toISOString());
        expect(first?.run.history.map((h) => h.event)).toEqual(['kept', 'claimed']);
        expect(await s.runs.claim(id!, 'w2', 30_000, T0)).toBeNull();
        expect((await s.runs.counts()).running).toBe(1);
      });

      it('refuses a run not yet due and a finished run; unknown ids are not_found', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        expect(await s.runs.claim(id!, 'w', 1_000, T0 - 1)).toBeNull();
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.complete(id!, c!.token, 'succeeded', { ok: true }, T0 + 1);
        expect(await s.runs.claim(id!, 'w', 1_000, T0 + 2)).toBeNull();
        expect((await rejection(s.runs.claim('0'.repeat(26), 'w', 1, T0))).kind).toBe('not_found');
        expect(await s.runs.get('0'.repeat(26))).toBeNull();
      });

      it('scheduleRetry waits until due, keeps the error, then the next claim bumps attempts and token', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c1 = await s.runs.claim(id!, 'w', 1_000, T0);
        const err = { kind: 'unavailable' as const, message: 'peer down' };
        const waiting = await s.runs.scheduleRetry(id!, c1!.token, err, T0 + 10_000, T0 + 5);
        expect(waiting).toMatchObject({ status: 'retry_wait', error: err, lease: null, due_at: new Date(T0 + 10_000).toISOString() });
        expect((await s.runs.counts()).retry_wait).toBe(1);
        expect(await s.runs.claim(id!, 'w', 1_000, T0 + 9_999)).toBeNull();
        expect(await s.runs.sweepDue(T0 + 9_999, 10, 100)).toEqual([]);
        expect(await s.runs.sweepDue(T0 + 10_000, 10, 100)).toEqual([id]);
        const c2 = await s.runs.claim(id!, 'w2', 1_000, T0 + 10_000);
        expect(c2?.run.attempts).toBe(2);
        expect(c2!.token).toBeGreaterThan(c1!.token);
        expect(c2?.run.error).toEqual(err);
        expect(c2?.run.started_at).toBe(new Date(T0).toISOString());
      });
    });

    describe('fencing', () => {
      it('refuses every write with a stale token and changes nothing', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        const bad = c!.token + 1;
        const before = await s.runs.get(id!);
        const err = { kind: 'internal' as const, message: 'x' };
        const policy = { maxAttempts: 3, retryDelayMs: 10 };
        const writes: Array<[string, () => Promise<unknown>]> = [
          ['renew', () => s.runs.renew(id!, bad, 5_000, T0 + 1)],
          ['setClaimIntent', () => s.runs.setClaimIntent(id!, bad, 'resume:i1', T0 + 1)],
          ['act', () => s.runs.act(id!, bad, { acted: 'start', input: { a: 1 }, resumable: true }, T0 + 1)],
          ['note', () => s.runs.note(id!, bad, 'condition', 'true', T0 + 1)],
          ['complete', () => s.runs.complete(id!, bad, 'succeeded', 1, T0 + 1)],
          ['fail', () => s.runs.fail(id!, bad, err, T0 + 1)],
          ['scheduleRetry', () => s.runs.scheduleRetry(id!, bad, err, T0 + 9, T0 + 1)],
          ['release', () => s.runs.release(id!, bad, 'shutdown', policy, T0 + 1)],
        ];
        for (const [what, write] of writes) {
          const e = await rejection(write());
          expect([what, e.kind]).toEqual([what, 'conflict']);
          expect(e.message).toContain(String(bad));
        }
        expect(await s.runs.get(id!)).toEqual(before);
      });

      it('after a lapse and a reclaim, the old attempt cannot complete', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const old = await s.runs.claim(id!, 'w-old', 1_000, T0);
        const lapsed = await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 3, retryDelayMs: 0 });
        expect(lapsed.map((o) => [o.id, o.outcome])).toEqual([[id, 'retry']]);
        const fresh = await s.runs.claim(id!, 'w-new', 1_000, T0 + 1_002);
        expect(fresh).not.toBeNull();
        const before = await s.runs.get(id!);
        expect((await rejection(s.runs.complete(id!, old!.token, 'succeeded', 'late', T0 + 1_003))).kind).toBe('conflict');
        expect(await s.runs.get(id!)).toEqual(before);
        const done = await s.runs.complete(id!, fresh!.token, 'succeeded', 'mine', T0 + 1_004);
        expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
        expect((await s.runs.get(id!))?.result).toBe('mine');
      });

      it('refuses writes once the attempt has ended, even with its own token', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.fail(id!, c!.token, { kind: 'bad_input', message: 'no' }, T0 + 1);
        const e = await rejection(s.runs.renew(id!, c!.token, 1_000, T0 + 2));
        expect(e.kind).toBe('conflict');
        expect(e.message).toContain('failed');
      });

      it('renew extends the lease so the sweep leaves it alone', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.renew(id!, c!.token, 5_000, T0 + 900);
        expect((await s.runs.get(id!))?.lease?.until).toBe(T0 + 5_900);
        expect(await s.runs.sweepLapsed(T0 + 2_000, 10, { maxAttempts: 3, retryDelayMs: 0 })).toEqual([]);
      });
    });

    describe('acting and finishing', () => {
      it('act records what the hook did and clears the claim intent; note adds history', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.note(id!, c!.token, 'condition', 'matched', T0 + 1);
        await s.runs.setClaimIntent(id!, c!.token, 'resume:i-9', T0 + 2);
        expect((await s.runs.get(id!))?.claim_intent).toBe('resume:i-9');
        await s.runs.act(id!, c!.token, { acted: 'resume', actedIds: ['i-9'] }, T0 + 3);
        const run = await s.runs.get(id!);
        expect(run).toMatchObject({ acted: 'resume', acted_ids: ['i-9'], claim_intent: '' });
        expect(run?.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'condition', 'claim_intent', 'acted']);
        expect(run?.history[2]).toEqual({ at: new Date(T0 + 1).toISOString(), attempt: 1, event: 'condition', detail: 'matched' });
      });

      it('complete keeps a small result as is and truncates a large one with a marker', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['a', 'b']);
        const ca = await s.runs.claim(a!, 'w', 1_000, T0);
        const small = { rows: [1, 2, { x: 'y' }], empty: {}, list: [] };
        const done = await s.runs.complete(a!, ca!.token, 'succeeded', small, T0 + 7);
        expect(done).toMatchObject({ status: 'succeeded', lease: null, finished_at: new Date(T0 + 7).toISOString() });
        expect(await s.runs.get(a!)).toMatchObject({ ...done, result: small });
        const cb = await s.runs.claim(b!, 'w', 1_000, T0);
        const big = { text: 'é'.repeat(RESULT_MAX_BYTES) };
        await s.runs.complete(b!, cb!.token, 'succeeded', big, T0 + 8);
        const result = (await s.runs.get(b!))!.result as { truncated: boolean; preview: string };
        expect(result.truncated).toBe(true);
        expect(result.preview.startsWith('{"text":"éé')).toBe(true);
        expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(RESULT_MAX_BYTES);
        expect((await s.runs.counts()).running).toBe(0);
      });

      it("complete, fail and scheduleRetry answer the run's head: the stored run but its payload, input, result and history", async () => {
        const s = stores();
        const [a, b, c] = await keep(s, 't', ['a', 'b', 'c']);
        const err = { kind: 'unavailable' as const, message: 'down' };
        const writes = [
          (id: string, token: number) => s.runs.complete(id, token, 'succeeded', { ok: true }, T0 + 5),
          (id: string, token: number) => s.runs.fail(id, token, err, T0 + 5),
          (id: string, token: number) => s.runs.scheduleRetry(id, token, err, T0 + 9_000, T0 + 5),
        ];
        for (const [i, id] of [a!, b!, c!].entries()) {
          const claimed = await s.runs.claim(id, 'w', 1_000, T0);
          await s.runs.act(id, claimed!.token, { acted: 'start', input: { x: i } }, T0 + 1);
          const head = await writes[i]!(id, claimed!.token);
          const { payload, headers: _headers, input, result, history, ...rest } = (await s.runs.get(id))!;
          expect([payload, input, history.length > 0]).toEqual([{ n: 1 }, { x: i }, true]);
          expect(i === 0 ? result : null).toEqual(i === 0 ? { ok: true } : null);
          expect(head).toEqual(rest);
          for (const bulky of ['payload', 'headers', 'input', 'result', 'history']) expect(Object.keys(head)).not.toContain(bulky);
        }
      });

      it("complete, fail and scheduleRetry keep an HTTP tool's reply on the line they add: bounded and redacted again, re-sent alike", async () => {
        const s = stores();
        const [a, b, c] = await keep(s, 't', ['a', 'b', 'c']);
        const err = { kind: 'unavailable' as const, message: 'answered HTTP 500' };
        const big = 'é'.repeat(3000); // 6000 bytes: more than the 2 KiB excerpt
        const http = {
          status: 500,
          headers: { 'content-type': 'text/plain', 'set-cookie': 'sid=s3cr3t', 'x-api-key': 'k-123' },
          body: big,
          body_bytes: 6000,
          body_truncated: false,
        };
        const writes = [
          (id: string, token: number) => s.runs.complete(id, token, 'succeeded', { ok: true }, T0 + 5, { ...http, status: 200 }),
          (id: string, token: number) => s.runs.fail(id, token, err, T0 + 5, http),
          (id: string, token: number) => s.runs.scheduleRetry(id, token, err, T0 + 9_000, T0 + 5, http),
        ];
        for (const [i, id] of [a!, b!, c!].entries()) {
          const claimed = await s.runs.claim(id, 'w', 1_000, T0);
          await writes[i]!(id, claimed!.token);
          // A re-send of the same write (a lost reply) is the same write: no second line.
          await writes[i]!(id, claimed!.token);
          const { history } = (await s.runs.get(id))!;
          const last = history.at(-1)!;
          expect(last.event).toBe(['succeeded', 'failed', 'retry_scheduled'][i]);
          expect(history.filter((h) => h.http)).toHaveLength(1);
          expect(last.detail).toEqual(
            i === 0 ? 'result kept' : i === 1 ? 'unavailable: answered HTTP 500' : expect.stringContaining('unavailable: answered HTTP 500; due at'),
          );
          expect(last.http).toEqual({
            status: i === 0 ? 200 : 500,
            headers: { 'content-type': 'text/plain', 'set-cookie': '[redacted]', 'x-api-key': '[redacted]' },
            body: 'é'.repeat(1024),
            body_bytes: 6000,
            body_truncated: true,
          });
          expect(JSON.stringify(history)).not.toMatch(/s3cr3t|k-123/);
        }
        // Without one, the line carries none.
        const [d] = await keep(s, 'u', ['d']);
        const cd = await s.runs.claim(d!, 'w', 1_000, T0);
        await s.runs.fail(d!, cd!.token, err, T0 + 5);
        expect((await s.runs.get(d!))!.history.at(-1)).not.toHaveProperty('http');
      });

      it('skipped ends the run; fail holds it as failed and counts it', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['a', 'b']);
        const ca = await s.runs.claim(a!, 'w', 1_000, T0);
        expect((await s.runs.complete(a!, ca!.token, 'skipped', null, T0 + 1)).status).toBe('skipped');
        const cb = await s.runs.claim(b!, 'w', 1_000, T0);
        const failed = await s.runs.fail(b!, cb!.token, { kind: 'bad_input', message: 'condition raised' }, T0 + 1);
        expect(failed).toMatchObject({ status: 'failed', error: { kind: 'bad_input', message: 'condition raised' } });
        expect(await s.runs.counts()).toEqual({ pending: 0, running: 0, retry_wait: 0, parked: 0, failed: 1 });
      });

      it("a run that succeeds after a takeover no longer carries the earlier attempt's error (its history does)", async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        await s.runs.claim(id!, 'w1', 1_000, T0);
        const [lapsed] = await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 3, retryDelayMs: 0 });
        expect(lapsed?.outcome).toBe('retry');
        expect((await s.runs.get(id!))?.error?.message).toContain('lapsed');
        const again = await s.runs.claim(id!, 'w2', 1_000, T0 + 1_002);
        const done = await s.runs.complete(id!, again!.token, 'succeeded', { ok: true }, T0 + 1_003);
        expect(done).toMatchObject({ status: 'succeeded', error: null, attempts: 2 });
        const stored = await s.runs.get(id!);
        expect(stored).toMatchObject(done);
        expect(stored!.history.map((h) => h.event)).toContain('lapsed');
      });

      it('withdrawStart: a start that never left is not acted (input and resumable cleared, once); a committed claim is refused', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['a', 'b']);
        const ca = await s.runs.claim(a!, 'w', 1_000, T0);
        await s.runs.act(a!, ca!.token, { acted: 'start', input: { x: 1 }, resumable: true }, T0 + 1);
        await s.runs.withdrawStart(a!, ca!.token, 'its tool call never left: unavailable: connect ECONNREFUSED', T0 + 2);
        await s.runs.withdrawStart(a!, ca!.token, 'its tool call never left: unavailable: connect ECONNREFUSED', T0 + 2);
        const run = await s.runs.get(a!);
        expect(run).toMatchObject({ status: 'running', acted: '', acted_ids: [], input: null, resumable: false });
        expect(run!.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'acted', 'not_sent']);
        // Interrupted now, it is an attempt that had not acted: due again.
        expect((await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 3, retryDelayMs: 0 }))[0]?.outcome).toBe('retry');
        const cb = await s.runs.claim(b!, 'w', 1_000, T0);
        await s.runs.act(b!, cb!.token, { acted: 'resume', actedIds: ['i-1'] }, T0 + 1);
        expect((await rejection(s.runs.withdrawStart(b!, cb!.token, 'x', T0 + 2))).kind).toBe('conflict');
        expect((await rejection(s.runs.withdrawStart(a!, ca!.token, 'x', T0 + 2))).kind).toBe('conflict');
      });

      it('every fail transition keeps the hooks_run_failed event in the same step (fail, release, lapse); a re-send or a failure on that topic keeps none', async () => {
        const s = stores();
        await s.hooks.putHook(hook('alert-a', 'hooks_run_failed'));
        await s.hooks.putHook(hook('alert-b', 'hooks_run_failed'));
        const [x, y, z] = await keep(s, 't', ['x', 'y', 'z']);
        const cx = await s.runs.claim(x!, 'w', 1_000, T0);
        const err = { kind: 'bad_input' as const, message: 'condition raised' };
        await s.runs.fail(x!, cx!.token, err, T0 + 1);
        await s.runs.fail(x!, cx!.token, err, T0 + 1);
        const cy = await s.runs.claim(y!, 'w', 1_000, T0);
        await s.runs.act(y!, cy!.token, { acted: 'start' }, T0 + 1);
        expect((await s.runs.release(y!, cy!.token, 'bye', { maxAttempts: 3, retryDelayMs: 0 }, T0 + 2)).outcome).toBe('failed');
        const cz = await s.runs.claim(z!, 'w', 1_000, T0);
        await s.runs.act(z!, cz!.token, { acted: 'start' }, T0 + 1);
        expect((await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 3, retryDelayMs: 0 }))[0]?.outcome).toBe('failed');
        const alerts = (await s.runs.list({ topic: 'hooks_run_failed' }, 20)).runs;
        const by = (r: { hook: string; payload: unknown }) => [r.hook, (r.payload as { run_id: string }).run_id];
        expect(alerts.map(by).sort()).toEqual(
          [
            ['alert-a', x],
            ['alert-b', x],
            ['alert-a', y],
            ['alert-b', y],
            ['alert-a', z],
            ['alert-b', z],
          ].sort(),
        );
        expect(new Set(alerts.map((r) => r.id)).size).toBe(6);
        const ofX = alerts.find((r) => (r.payload as { run_id: string }).run_id === x)!;
        expect(ofX.payload).toEqual({
          run_id: x,
          hook: 'x',
          topic: 't',
          attempts: 1,
          error: err,
          acted: '',
          failed_at: new Date(T0 + 1).toISOString(),
        });
        expect(ofX).toMatchObject({ status: 'pending', delivery_id: null, attempts: 0, door: 'platform', verified: false });
        expect(ofX.history[0]!.detail).toBe('event on hooks_run_failed through the platform door, not verified');
        expect((await s.runs.sweepDue(T0 + 1_001, 20, 1_000)).length).toBe(6);
        // An alert's own failure alerts nobody (no loops).
        const ca = await s.runs.claim(ofX.id, 'w', 1_000, T0 + 1_002);
        await s.runs.fail(ofX.id, ca!.token, err, T0 + 1_003);
        expect((await s.runs.list({ topic: 'hooks_run_failed' }, 20)).runs).toHaveLength(6);
      });

      it('history keeps only the last 50 lines', async () => {
        const s = stores();
        const [id] = await keep(s, 't', ['h']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        for (let i = 0; i < 60; i += 1) await s.runs.note(id!, c!.token, 'step', `n${i}`, T0 + i);
        const history = (await s.runs.get(id!))!.history;
        expect(history).toHaveLength(50);
        expect(history[49]?.detail).toBe('n59');
        expect(history[0]?.detail).toBe('n10');
      });
    });

    describe('sweeps', () => {
      it('two concurrent sweepDue calls never hand out the same run in one window', async () => {
        const s = stores();
        const ids = await keep(s, 't', ['a', 'b', 'c', 'd', 'e', 'f']);
        const [x, y] = await Promise.all([s.runs.sweepDue(T0, 4, 10_000), s.runs.sweepDue(T0, 4, 10_000)]);
        expect([...x, ...y].sort()).toEqual([...ids].sort());
        expect(await s.runs.sweepDue(T0 + 9_999, 10, 10_000)).toEqual([]);
        expect((await s.runs.sweepDue(T0 + 10_000, 10, 10_000)).sort()).toEqual([...ids].sort());
      });

      it('a claimed run is not due; sweepExpired removes finished runs past retention, never failed ones', async () => {
        const s = stores();
        const [ok, skip, bad, gone, live] = await keep(s, 't', ['a', 'b', 'c', 'd', 'e']);
        const claim = async (id: string) => (await s.runs.claim(id, 'w', 1_000, T0))!.token;
        await s.runs.complete(ok!, await claim(ok!), 'succeeded', 1, T0);
        await s.runs.complete(skip!, await claim(skip!), 'skipped', null, T0);
        await s.runs.fail(bad!, await claim(bad!), { kind: 'internal', message: 'boom' }, T0);
        await s.runs.discard(gone!, T0);
        expect(await s.runs.sweepDue(T0, 10, 1_000)).toEqual([live]);
        expect(await s.runs.sweepExpired(T0 + 1_000, 1_000, 100)).toBe(0);
        expect(await s.runs.sweepExpired(T0 + 1_001, 1_000, 100)).toBe(3);
        for (const id of [ok, skip, gone]) expect(await s.runs.get(id!)).toBeNull();
        expect((await s.runs.get(bad!))?.status).toBe('failed');
        expect((await s.runs.list({}, 10)).runs.map((r) => r.id).sort()).toEqual([bad, live].sort());
        expect(await s.runs.sweepExpired(T0 + 10_000_000, 1_000, 100)).toBe(0);
      });
    });

    describe('operator verbs', () => {
      it('retry: only a failed run; refuses a committed resume or take, saying why', async () => {
        const s = stores();
        const [p, r, t] = await keep(s, 't', ['p', 'r', 't']);
        const e = await rejection(s.runs.retry(p!, T0));
        expect(e.kind).toBe('conflict');
        expect(e.message).toContain('pending');
        for (const [id, acted] of [
          [r!, 'resume'],
          [t!, 'take'],
        ] as const) {
          const c = await s.runs.claim(id, 'w', 1_000, T0);
          await s.runs.act(id, c!.token, { acted, actedIds: ['i-1', 'i-2'] }, T0);
          await s.runs.fail(id, c!.token, { kind: 'internal', message: 'tool broke' }, T0);
          const refusal = await rejection(s.runs.retry(id, T0 + 1));
          expect(refusal.kind).toBe('conflict');
          expect(refusal.message).toBe(`run ${id} committed a ${acted} on i-1, i-2; it cannot be retried, only discarded`);
          expect((await s.runs.get(id))?.status).toBe('failed');
        }
        expect((await rejection(s.runs.retry('0'.repeat(26), T0))).kind).toBe('not_found');
      });

      it('retry: a failed run is pending again with attempts reset; a started run keeps its start', async () => {
        const s = stores();
        const [plain, started] = await keep(s, 't', ['a', 'b']);
        const c1 = await s.runs.claim(plain!, 'w', 1_000, T0);
        await s.runs.fail(plain!, c1!.token, { kind: 'bad_input', message: 'bad cond' }, T0);
        const c2 = await s.runs.claim(started!, 'w', 1_000, T0);
        await s.runs.act(started!, c2!.token, { acted: 'start', input: { q: 'x' }, resumable: false }, T0);
        await s.runs.fail(started!, c2!.token, { kind: 'internal', message: 'tool broke' }, T0);
        const again = await s.runs.retry(plain!, T0 + 50);
        expect(again).toMatchObject({ status: 'pending', attempts: 0, acted: '', error: null, finished_at: null, due_at: new Date(T0 + 50).toISOString() });
        expect(again.history.at(-1)).toMatchObject({ event: 'retried' });
        expect(again.history.at(-1)?.detail).toBe('retried by operator; last error bad_input: bad cond');
        const replay = await s.runs.retry(started!, T0 + 50, 'person:olivia (sub u-17)');
        expect(replay.history.at(-1)?.detail).toBe('retried by person:olivia (sub u-17); last error internal: tool broke');
        expect(replay).toMatchObject({ status: 'pending', attempts: 0, acted: 'start', input: { q: 'x' } });
        expect(await s.runs.counts()).toEqual({ pending: 2, running: 0, retry_wait: 0, parked: 0, failed: 0 });
        expect((await s.runs.sweepDue(T0 + 50, 10, 1_000)).sort()).toEqual([plain, started].sort());
        expect((await s.runs.claim(started!, 'w', 1_000, T0 + 50))?.run.attempts).toBe(1);
      });

      it('discard: any status but running; discarded twice is a conflict; unknown is not_found', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['a', 'b']);
        const d = await s.runs.discard(a!, T0 + 3);
        expect(d).toMatchObject({ status: 'discarded', finished_at: new Date(T0 + 3).toISOString(), due_at: null });
        expect(d.history.at(-1)?.event).toBe('discarded');
        expect(await s.runs.sweepDue(T0 + 10, 10, 0)).toEqual([b]);
        expect((await rejection(s.runs.discard(a!, T0))).kind).toBe('conflict');
        await s.runs.claim(b!, 'w', 1_000, T0);
        const e = await rejection(s.runs.discard(b!, T0));
        expect(e.kind).toBe('conflict');
        expect(e.message).toContain('running');
        expect((await rejection(s.runs.discard('0'.repeat(26), T0))).kind).toBe('not_found');
        expect(await s.runs.counts()).toEqual({ pending: 0, running: 1, retry_wait: 0, parked: 0, failed: 0 });
      });

      it("replay: an ended run's event runs again as a new run of the hook as registered now, recording replay_of", async () => {
        const s = stores();
        const [src] = await keep(s, 't', ['a']);
        const c = await s.runs.claim(src!, 'w', 1_000, T0);
        await s.runs.complete(src!, c!.token, 'succeeded', { ok: true }, T0 + 1);
        const before = await s.runs.get(src!);
        // The hook moved to another topic since: the replay runs under its topic now.
        const r = await s.runs.replay(src!, { name: 'a', topic: 'moved' }, T0 + 100, 1_000);
        expect(r.id).not.toBe(src);
        expect(r).toMatchObject({
          hook: 'a',
          topic: 'moved',
          status: 'pending',
          attempts: 0,
          acted: '',
          payload: before!.payload,
          replay_of: src,
          delivery_id: null,
          result: null,
          error: null,
          created_at: new Date(T0 + 100).toISOString(),
        });
        // An operator's act through the API: door api, not verified, whatever the source's door was.
        expect([r.door, r.verified]).toEqual(['api', false]);
        expect(r.history).toEqual([
          { at: new Date(T0 + 100).toISOString(), attempt: 0, event: 'kept', detail: `replay of run ${src} through the api door, not verified` },
        ]);
        expect(await s.runs.get(r.id)).toEqual(r);
        // The source is untouched; the replay is listed, due after the grace, claimable now.
        expect(await s.runs.get(src!)).toEqual(before);
        expect((await s.runs.list({ topic: 'moved', status: 'pending' }, 10)).runs.map((x) => x.id)).toEqual([r.id]);
        expect(await s.runs.sweepDue(T0 + 100, 10, 0)).toEqual([]);
        expect(await s.runs.sweepDue(T0 + 1_100, 10, 0)).toEqual([r.id]);
        expect((await s.runs.claim(r.id, 'w', 1_000, T0 + 1_100))?.run.attempts).toBe(1);
        expect((await s.runs.get(src!))?.replay_of).toBeNull();
      });

      it('replay with an edited payload: the new run carries it (own keys only), records replay_of and says the payload was edited', async () => {
        const s = stores();
        const [src] = await keep(s, 't', ['a']);
        const c = await s.runs.claim(src!, 'w', 1_000, T0);
        await s.runs.fail(src!, c!.token, { kind: 'bad_input', message: 'no' }, T0 + 1);
        const before = await s.runs.get(src!);
        const payload = JSON.parse('{"order":{"id":7},"__proto__":{"polluted":true},"list":[1,null,"x"]}');
        const r = await s.runs.replay(src!, { name: 'a', topic: 't' }, T0 + 100, 0, { payload });
        expect(r).toMatchObject({ status: 'pending', replay_of: src, door: 'api', verified: false });
        expect(r.payload).toEqual(payload);
        expect((r.payload as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype.hasOwnProperty.call(r.payload, '__proto__')).toBe(true);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(r.history).toEqual([
          {
            at: new Date(T0 + 100).toISOString(),
            attempt: 0,
            event: 'kept',
            detail: `replay of run ${src} with an edited payload through the api door, not verified`,
          },
        ]);
        expect(await s.runs.get(r.id)).toEqual(r);
        expect(await s.runs.get(src!)).toEqual(before);
      });

      it('replay: refused while the run still runs on its own (pending, running); unknown is not_found', async () => {
        const s = stores();
        const [a, b] = await keep(s, 't', ['a', 'b']);
        await s.runs.claim(b!, 'w', 1_000, T0);
        for (const [id, status] of [
          [a!, 'pending'],
          [b!, 'running'],
        ] as const) {
          const e = await rejection(s.runs.replay(id, { name: 'a', topic: 't' }, T0 + 1, 0));
          expect(e.kind).toBe('conflict');
          expect(e.message).toBe(
            `run ${id} is ${status}; only a run that has ended (succeeded, skipped, failed, denied, cancelled, discarded) can be replayed`,
          );
        }
        expect((await rejection(s.runs.replay('0'.repeat(26), { name: 'a', topic: 't' }, T0, 0))).kind).toBe('not_found');
        expect(await s.runs.counts()).toEqual({ pending: 1, running: 1, retry_wait: 0, parked: 0, failed: 0 });
      });
    });

    describeInterruptConformance(stores);
    describeResendConformance(stores);
    describeDeliveryConformance(stores);
    describeUnroutedConformance(stores);
    describeAgentCallConformance(stores);
    describeStatsConformance(stores);
  });
}
