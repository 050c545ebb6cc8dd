import { INTERACTION_ID_PATTERN } from '@hookyard/core';
import type { SubjectKey } from '@hookyard/core';
import type { ParkInput, Stores } from '../src';
import { keep } from './conformance-runs';
import { T0, rejection, useStores } from './fixtures';
import type { StoresFactory } from './fixtures';

const SUBJECT: SubjectKey = { scope: 'conversation', kind: 'pr', key: 'acme/app#7' };
const HOUR = 3_600_000;

/** Keeps a run of hook `hook` on its own topic `t-<hook>`, claims it and parks it: answers the interaction and the run. */
async function parked(s: Stores, hook = 'h', extra: Partial<ParkInput> = {}, now = T0) {
  const [id] = await keep(s, `t-${hook}`, [hook], now);
  const c = await s.runs.claim(id!, 'w1', 30_000, now);
  const input: ParkInput = {
    run: id!,
    token: c!.token,
    kind: 'wait',
    tool: 'wait',
    argsHash: 'a'.repeat(64),
    subject: SUBJECT,
    onTimeout: 'fail',
    expiresAt: now + HOUR,
    now: now + 1,
    ...extra,
  };
  const out = await s.interactions.park(input);
  return { ...out, token: c!.token, input };
}

export function describeInteractionConformance(name: string, factory: StoresFactory): void {
  describe(`${name}: interaction store`, () => {
    const stores = useStores(factory);

    describe('park', () => {
      it('creates an open interaction bound to the run and parks the run: no lease, not due, counted', async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s);
        expect(i.id).toMatch(INTERACTION_ID_PATTERN);
        expect(i).toMatchObject({
          kind: 'wait',
          run: run.id,
          hook: 'h',
          topic: 't-h',
          tool: 'wait',
          args_hash: 'a'.repeat(64),
          rule: null,
          message: null,
          policy_version: null,
          answer_hooks: [],
          approver: null,
          subject: SUBJECT,
          on_timeout: 'fail',
          status: 'open',
          resolution: null,
          outcome: null,
          taken: null,
          created_at: new Date(T0 + 1).toISOString(),
          expires_at: new Date(T0 + HOUR).toISOString(),
        });
        expect(run).toMatchObject({ status: 'parked', lease: null, due_at: null, interaction: i.id, parked_on: [i.id] });
        expect(run.history.at(-1)).toMatchObject({ event: 'parked', detail: `parked on wait ${i.id} (expires ${new Date(T0 + HOUR).toISOString()})` });
        expect(await s.interactions.get(i.id)).toEqual(i);
        expect(await s.runs.get(run.id)).toEqual(run);
        expect(await s.runs.sweepDue(T0 + 10 * HOUR, 10, 1_000)).toEqual([]);
        expect(await s.runs.sweepLapsed(T0 + 10 * HOUR, 10, { maxAttempts: 5, retryDelayMs: 0 })).toEqual([]);
        expect(await s.runs.claim(run.id, 'w2', 1_000, T0 + 2)).toBeNull();
        expect(await s.runs.counts()).toMatchObject({ parked: 1, running: 0, pending: 0 });
        expect((await s.runs.list({ status: 'parked' }, 10)).runs.map((r) => r.id)).toEqual([run.id]);
      });

      it('keeps the approval fields; ids of two interactions differ; an elicitation answer is kept as such', async () => {
        const s = stores();
        const a = await parked(s, 'h1', {
          kind: 'approval',
          tool: 'deploy',
          rule: 'prod-deploys',
          message: 'prod deploys need a second pair of eyes',
          policyVersion: 3,
          answerHooks: ['slack-answer'],
          approver: 'caller',
          subject: null,
          onTimeout: 'deny',
        });
        const b = await parked(s, 'h2');
        expect(a.interaction).toMatchObject({
          kind: 'approval',
          tool: 'deploy',
          rule: 'prod-deploys',
          message: 'prod deploys need a second pair of eyes',
          policy_version: 3,
          answer_hooks: ['slack-answer'],
          approver: 'caller',
          subject: null,
          on_timeout: 'deny',
        });
        expect(await s.interactions.get(a.interaction.id)).toMatchObject({ approver: 'caller', message: 'prod deploys need a second pair of eyes' });
        expect(b.interaction.approver).toBeNull();
        expect(b.interaction.message).toBeNull();
        // The approval is counted in its minute (p), under its run's hook; a wait is not.
        const minute = Math.floor((T0 + 1) / 60_000);
        const counted = await s.runs.minuteStats(minute, minute);
        expect(counted.reduce((n, m) => n + m.total.approvals, 0)).toBe(1);
        expect(counted.reduce((n, m) => n + (m.hooks.h1?.approvals ?? 0) + (m.hooks.h2?.approvals ?? 0), 0)).toBe(1);
        expect(counted.some((m) => (m.hooks.h1?.approvals ?? 0) === 1)).toBe(true);
        expect(a.interaction.id).not.toBe(b.interaction.id);
        const answered = await s.interactions.resolve(
          a.interaction.id,
          { status: 'approved', by: 'agent:ci-bot:user', via: 'elicitation', reason: 'ok' },
          T0 + 5,
        );
        expect(answered.interaction.resolution).toMatchObject({ by: 'agent:ci-bot:user', via: 'elicitation', reason: 'ok' });
        expect((await s.interactions.get(a.interaction.id))!.resolution).toMatchObject({ via: 'elicitation' });
      });

      it('is a write of the live attempt: a re-send answers the same interaction, a stale token is refused', async () => {
        const s = stores();
        const p = await parked(s);
        const again = await s.interactions.park(p.input);
        expect(again.interaction.id).toBe(p.interaction.id);
        expect((await s.interactions.list({}, 10)).interactions).toHaveLength(1);
        const err = await rejection(s.interactions.park({ ...p.input, token: p.token + 7 }));
        expect(err.kind).toBe('conflict');
        expect(err.message).toContain(p.run.id);
        expect((await rejection(s.interactions.park({ ...p.input, run: '0'.repeat(26) }))).kind).toBe('not_found');
      });

      it('an operator retry of a run held mid-claim drops its claim intent: its door contract decides again', async () => {
        const s = stores();
        const [id] = await keep(s, 't-mid', ['mid']);
        const c = await s.runs.claim(id!, 'w', 1_000, T0);
        await s.runs.setClaimIntent(id!, c!.token, 'resume:x', T0);
        await s.runs.fail(id!, c!.token, { kind: 'conflict', message: 'mid-claim' }, T0 + 1);
        expect((await s.runs.retry(id!, T0 + 2)).claim_intent).toBe('');
      });

      it('an operator retry of a run whose approved call started drops its approval: the retried start asks again', async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s, 'gated', { kind: 'approval', tool: 'deploy', onTimeout: 'deny' });
        const woken = await s.interactions.resolve(i.id, { status: 'approved', by: 'operator:ada', via: 'api' }, T0 + 2);
        expect(woken.run?.interaction).toBe(i.id);
        const c = await s.runs.claim(run.id, 'w', 1_000, T0 + 3);
        expect(c!.run.interaction).toBe(i.id);
        await s.runs.act(run.id, c!.token, { acted: 'start', input: { env: 'prod' }, resumable: true }, T0 + 4);
        await s.runs.fail(run.id, c!.token, { kind: 'unavailable', message: 'deploy broke' }, T0 + 5);
        // Failed after the approved call started: still linked to its approval until an operator retries.
        expect((await s.runs.get(run.id))?.interaction).toBe(i.id);
        const again = await s.runs.retry(run.id, T0 + 6);
        expect(again).toMatchObject({ status: 'pending', acted: 'start', input: { env: 'prod' }, interaction: null });
        expect((await s.runs.get(run.id))?.interaction).toBeNull();
        // The approval itself stays as answered (its record of who approved what is kept).
        expect((await s.interactions.get(i.id))?.status).toBe('approved');
      });

      it("retention deletes a finished run's interactions with it (a kept outcome lives as long as its run)", async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s);
        await s.interactions.resolve(i.id, { status: 'resumed', by: 'x', via: 'hook' }, T0 + 10);
        const c = await s.runs.claim(run.id, 'w', 1_000, T0 + 11);
        await s.runs.complete(run.id, c!.token, 'succeeded', 1, T0 + 12);
        const other = await parked(s, 'other');
        expect(await s.runs.sweepExpired(T0 + 12 + 1_001, 1_000, 10)).toBe(1);
        expect(await s.interactions.get(i.id)).toBeNull();
        expect((await s.interactions.list({}, 10)).interactions.map((x) => x.id)).toEqual([other.interaction.id]);
        expect((await s.interactions.list({ run: run.id }, 10)).interactions).toEqual([]);
        expect((await s.interactions.list({ status: 'resumed' }, 10)).interactions).toEqual([]);
        expect((await rejection(s.interactions.take(i.id, 'y', T0 + 2_000))).kind).toBe('not_found');
      });

      it('a parked run never expires by retention', async () => {
        const s = stores();
        const { run } = await parked(s);
        await s.runs.sweepExpired(T0 + 1000 * HOUR, 0, 100);
        expect((await s.runs.get(run.id))?.status).toBe('parked');
      });
    });

    describe('resolve', () => {
      it('resumes once: the run is due now (and dispatched), a second answer is a conflict naming the first', async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s);
        const out = await s.interactions.resolve(
          i.id,
          { status: 'resumed', by: 'run:r2', via: 'hook', reason: 'shipped', payload: { ok: 1 }, extras: { note: 'x' } },
          T0 + 10,
        );
        expect(out.interaction).toMatchObject({
          status: 'resumed',
          resolution: { by: 'run:r2', via: 'hook', at: new Date(T0 + 10).toISOString(), reason: 'shipped', payload: { ok: 1 }, extras: { note: 'x' } },
        });
        expect(out.run).toMatchObject({ id: run.id, status: 'pending', interaction: i.id, parked_on: [], due_at: new Date(T0 + 10).toISOString() });
        expect(out.run?.history.at(-1)).toMatchObject({ event: 'woken', detail: `interaction ${i.id} resumed by run:r2 via hook` });
        expect(await s.runs.sweepDue(T0 + 10, 10, 1_000)).toEqual([run.id]);
        expect((await s.runs.claim(run.id, 'w2', 1_000, T0 + 11))?.run.attempts).toBe(2);
        const second = await rejection(s.interactions.resolve(i.id, { status: 'approved', by: 'operator:ops', via: 'api' }, T0 + 12));
        expect(second.kind).toBe('conflict');
        expect(second.message).toBe(`interaction ${i.id} is already resumed (by run:r2 via hook at ${new Date(T0 + 10).toISOString()})`);
        expect(await s.interactions.openOnSubject(SUBJECT, 10)).toEqual([]);
      });

      it('cancel ends the parked run cancelled (a result, kept for retention)', async () => {
        const s = stores();
        const { interaction: i } = await parked(s);
        const out = await s.interactions.resolve(i.id, { status: 'cancelled', by: 'operator:ops', via: 'api', reason: 'not needed' }, T0 + 5);
        expect(out.interaction.status).toBe('cancelled');
        expect(out.run).toMatchObject({ status: 'cancelled', result: { cancelled: i.id }, finished_at: new Date(T0 + 5).toISOString(), parked_on: [] });
        expect(await s.runs.counts()).toMatchObject({ parked: 0 });
        expect(await s.runs.sweepDue(T0 + HOUR, 10, 0)).toEqual([]);
        expect(await s.runs.sweepExpired(T0 + 5 + 1_000, 500, 10)).toBe(1);
      });

      it('unknown and malformed ids are not_found', async () => {
        const s = stores();
        for (const id of ['0'.repeat(10) + 'f'.repeat(32) + '00', 'nope']) {
          expect(await s.interactions.get(id)).toBeNull();
          const err = await rejection(s.interactions.resolve(id, { status: 'resumed', by: 'x', via: 'api' }, T0));
          expect(err.kind).toBe('not_found');
          expect(err.message).toContain(id);
          expect((await rejection(s.interactions.take(id, 'x', T0))).kind).toBe('not_found');
        }
      });

      it('discarding a parked run cancels its open interaction', async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s);
        expect((await s.runs.discard(run.id, T0 + 3)).status).toBe('discarded');
        expect(await s.interactions.get(i.id)).toMatchObject({
          status: 'cancelled',
          resolution: { by: 'operator', via: 'api', reason: 'its parked run was discarded by an operator' },
        });
        expect((await s.runs.get(run.id))?.status).toBe('discarded');
      });
    });

    describe('take', () => {
      it('a resumed run keeps its outcome on the interaction; it is taken once', async () => {
        const s = stores();
        const { interaction: i, run } = await parked(s);
        expect((await rejection(s.interactions.take(i.id, 'run:x', T0 + 2))).message).toContain('is open');
        await s.interactions.resolve(i.id, { status: 'resumed', by: 'run:r2', via: 'hook', payload: { v: 2 } }, T0 + 10);
        const early = await rejection(s.interactions.take(i.id, 'run:r3', T0 + 11));
        expect(early.kind).toBe('unavailable');
        expect(early.message).toContain(run.id);
        const c = await s.runs.claim(run.id, 'w2', 1_000, T0 + 12);
        await s.runs.complete(run.id, c!.token, 'succeeded', { v: 2 }, T0 + 13);
        expect((await s.interactions.get(i.id))?.outcome).toEqual({ run: run.id, status: 'succeeded', result: { v: 2 }, at: new Date(T0 + 13).toISOString() });
        const taken = await s.interactions.take(i.id, 'run:r3', T0 + 14);
        expect(taken.outcome).toMatchObject({ run: run.id, status: 'succeeded', result: { v: 2 } });
        expect(taken.interaction).toMatchObject({ status: 'taken', taken: { by: 'run:r3', at: new Date(T0 + 14).toISOString() } });
        const again = await rejection(s.interactions.take(i.id, 'run:r4', T0 + 15));
        expect(again.kind).toBe('conflict');
        expect(again.message).toContain(`already taken (by run:r3 at ${new Date(T0 + 14).toISOString()})`);
      });

      it('a cancelled interaction or a run that failed keeps nothing to take', async () => {
        const s = stores();
        const a = await parked(s, 'h1');
        await s.interactions.resolve(a.interaction.id, { status: 'cancelled', by: 'x', via: 'api' }, T0 + 2);
        expect((await rejection(s.interactions.take(a.interaction.id, 'r', T0 + 3))).message).toContain('is cancelled');
        const b = await parked(s, 'h2');
        await s.interactions.resolve(b.interaction.id, { status: 'resumed', by: 'x', via: 'hook' }, T0 + 2);
        const c = await s.runs.claim(b.run.id, 'w', 1_000, T0 + 3);
        await s.runs.fail(b.run.id, c!.token, { kind: 'internal', message: 'boom' }, T0 + 4);
        const err = await rejection(s.interactions.take(b.interaction.id, 'r', T0 + 5));
        expect(err.kind).toBe('conflict');
        expect(err.message).toContain('ended failed without an outcome');
      });
    });

    describe('list, subject, expiry', () => {
      it('lists newest first with filters and cursor paging', async () => {
        const s = stores();
        const made = [];
        for (let n = 0; n < 5; n += 1) made.push(await parked(s, n % 2 ? 'odd' : 'even', { kind: n === 4 ? 'approval' : 'wait' }, T0 + n * 1_000));
        const ids = made.map((m) => m.interaction.id);
        await s.interactions.resolve(ids[0]!, { status: 'resumed', by: 'x', via: 'api' }, T0 + 10_000);
        const all: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await s.interactions.list({}, 2, cursor);
          all.push(...page.interactions.map((i) => i.id));
          cursor = page.nextCursor;
        } while (cursor);
        expect(all).toEqual([...ids].reverse());
        const idsOf = async (f: object) => (await s.interactions.list(f, 10)).interactions.map((i) => i.id);
        expect(await idsOf({ status: 'open' })).toEqual([ids[4], ids[3], ids[2], ids[1]]);
        expect(await idsOf({ status: 'resumed' })).toEqual([ids[0]]);
        expect(await idsOf({ kind: 'approval' })).toEqual([ids[4]]);
        expect(await idsOf({ hook: 'odd' })).toEqual([ids[3], ids[1]]);
        expect(await idsOf({ hook: 'even', status: 'open' })).toEqual([ids[4], ids[2]]);
        expect(await idsOf({ run: made[2]!.run.id })).toEqual([ids[2]]);
        expect((await rejection(s.interactions.list({}, 2, 'bad cursor'))).kind).toBe('bad_input');
      });

      it('openOnSubject answers the open interactions of exactly that subject, oldest first', async () => {
        const s = stores();
        const a = await parked(s, 'h1', {}, T0);
        const b = await parked(s, 'h2', {}, T0 + 1_000);
        await parked(s, 'h3', { subject: { ...SUBJECT, key: 'acme/app#8' } }, T0 + 2_000);
        await parked(s, 'h4', { subject: null }, T0 + 3_000);
        expect((await s.interactions.openOnSubject(SUBJECT, 10)).map((i) => i.id)).toEqual([a.interaction.id, b.interaction.id]);
        await s.interactions.resolve(a.interaction.id, { status: 'cancelled', by: 'x', via: 'api' }, T0 + 5_000);
        expect((await s.interactions.openOnSubject(SUBJECT, 10)).map((i) => i.id)).toEqual([b.interaction.id]);
        expect(await s.interactions.openOnSubject({ ...SUBJECT, scope: 'other' }, 10)).toEqual([]);
      });

      it('expireDue resolves what passed its expiry (via expiry) and wakes the run; nothing earlier', async () => {
        const s = stores();
        const a = await parked(s, 'h1', { expiresAt: T0 + 1_000 });
        const b = await parked(s, 'h2', { expiresAt: T0 + 5_000 });
        expect(await s.interactions.expireDue(T0 + 999, 10)).toEqual([]);
        const expired = await s.interactions.expireDue(T0 + 1_000, 10);
        expect(expired.map((i) => i.id)).toEqual([a.interaction.id]);
        expect(expired[0]).toMatchObject({ status: 'expired', resolution: { by: 'expiry', via: 'expiry', reason: 'not answered before it expired' } });
        expect((await s.runs.get(a.run.id))?.status).toBe('pending');
        expect((await s.runs.get(b.run.id))?.status).toBe('parked');
        expect(await s.interactions.expireDue(T0 + 1_000, 10)).toEqual([]);
      });
    });
  });
}
