import type { Stores } from '../src';
import { T0, rejection } from './fixtures';
import { keep } from './conformance-runs';

/**
 * A write repeated with the same arguments, as the Redis client re-sends a
 * command cut off by a dropped connection: the end-of-attempt writes answer the
 * outcome already stored for the same token; an older token is still refused.
 */
export function describeResendConformance(stores: () => Stores): void {
  describe('repeated writes of one attempt (re-sent after a dropped connection)', () => {
    const err = { kind: 'internal' as const, message: 'tool broke' };
    const policy = { maxAttempts: 3, retryDelayMs: 2_000 };

    async function running(s: Stores): Promise<{ id: string; token: number }> {
      const [id] = await keep(s, 't', ['h']);
      const c = await s.runs.claim(id!, 'w', 1_000, T0);
      return { id: id!, token: c!.token };
    }

    it('fail, complete and scheduleRetry answer the stored run for the same token and write nothing', async () => {
      const s = stores();
      const [a, b, c] = await keep(s, 't', ['a', 'b', 'c']);
      const writes: Array<[string, (id: string, token: number) => Promise<unknown>]> = [
        ['fail', (id, token) => s.runs.fail(id, token, err, T0 + 5)],
        ['complete', (id, token) => s.runs.complete(id, token, 'succeeded', { rows: [1, { x: 'y' }] }, T0 + 5)],
        ['scheduleRetry', (id, token) => s.runs.scheduleRetry(id, token, err, T0 + 9_000, T0 + 5)],
      ];
      for (const [i, id] of [a!, b!, c!].entries()) {
        const [what, write] = writes[i]!;
        const claimed = await s.runs.claim(id, 'w', 1_000, T0);
        const first = await write(id, claimed!.token);
        const stored = await s.runs.get(id);
        const again = await write(id, claimed!.token);
        expect([what, again]).toEqual([what, first]);
        expect([what, await s.runs.get(id)]).toEqual([what, stored]);
      }
      expect(await s.runs.counts()).toEqual({ pending: 0, running: 0, retry_wait: 1, parked: 0, failed: 1 });
    });

    it('a repeat that would write another outcome is refused (different error, status or verb)', async () => {
      const s = stores();
      const { id, token } = await running(s);
      await s.runs.fail(id, token, err, T0 + 5);
      const before = await s.runs.get(id);
      const other = [
        s.runs.fail(id, token, { kind: 'internal', message: 'another' }, T0 + 5),
        s.runs.complete(id, token, 'succeeded', null, T0 + 5),
        s.runs.scheduleRetry(id, token, err, T0 + 9_000, T0 + 5),
        s.runs.release(id, token, 'shutting down', policy, T0 + 5),
      ];
      for (const write of other) expect((await rejection(write)).kind).toBe('conflict');
      expect(await s.runs.get(id)).toEqual(before);
    });

    it('an older token is refused even when the run holds the outcome it asks for', async () => {
      const s = stores();
      const { id, token: old } = await running(s);
      await s.runs.scheduleRetry(id, old, err, T0 + 10, T0 + 5);
      const fresh = await s.runs.claim(id, 'w2', 1_000, T0 + 10);
      await s.runs.fail(id, fresh!.token, err, T0 + 11);
      const before = await s.runs.get(id);
      const e = await rejection(s.runs.fail(id, old, err, T0 + 11));
      expect(e.kind).toBe('conflict');
      expect(e.message).toContain(`token ${old}`);
      expect((await rejection(s.runs.scheduleRetry(id, old, err, T0 + 10, T0 + 5))).kind).toBe('conflict');
      expect(await s.runs.get(id)).toEqual(before);
      expect((await s.runs.fail(id, fresh!.token, err, T0 + 11)).status).toBe('failed');
    });

    it('an attempt ended by a lapsed lease or an operator is not mistaken for the repeat', async () => {
      const s = stores();
      const { id, token } = await running(s);
      await s.runs.sweepLapsed(T0 + 1_001, 10, { maxAttempts: 1, retryDelayMs: 0 });
      expect((await s.runs.get(id))?.status).toBe('failed');
      expect((await rejection(s.runs.release(id, token, 'shutting down', policy, T0 + 1_002))).kind).toBe('conflict');
      const lapseError = (await s.runs.get(id))!.error!;
      expect((await rejection(s.runs.fail(id, token, lapseError, T0 + 1_001))).kind).toBe('conflict');
      const two = await running(s);
      await s.runs.fail(two.id, two.token, err, T0 + 5);
      await s.runs.retry(two.id, T0 + 6);
      expect((await rejection(s.runs.fail(two.id, two.token, err, T0 + 5))).kind).toBe('conflict');
    });

    it('release answers the outcome it recorded for the same token and reason', async () => {
      const s = stores();
      const { id, token } = await running(s);
      const first = await s.runs.release(id, token, 'shutting down', policy, T0 + 10);
      expect(first.outcome).toBe('retry');
      const stored = await s.runs.get(id);
      expect(await s.runs.release(id, token, 'shutting down', policy, T0 + 10)).toEqual(first);
      expect(await s.runs.get(id)).toEqual(stored);
      expect((await rejection(s.runs.release(id, token, 'another reason', policy, T0 + 10))).kind).toBe('conflict');
    });

    it('act, note and setClaimIntent repeated during the attempt add no second line', async () => {
      const s = stores();
      const { id, token } = await running(s);
      const twice = async (write: () => Promise<void>) => {
        await write();
        await write();
      };
      await twice(() => s.runs.note(id, token, 'condition', 'true', T0 + 1));
      await twice(() => s.runs.setClaimIntent(id, token, 'resume:i-1', T0 + 2));
      await twice(() => s.runs.act(id, token, { acted: 'resume', actedIds: ['i-1'] }, T0 + 3));
      const run = await s.runs.get(id);
      expect(run?.history.map((h) => h.event)).toEqual(['kept', 'claimed', 'condition', 'claim_intent', 'acted']);
      expect(run).toMatchObject({ acted: 'resume', acted_ids: ['i-1'], claim_intent: '' });
      await s.runs.note(id, token, 'condition', 'true', T0 + 4);
      expect((await s.runs.get(id))?.history).toHaveLength(6);
      await s.runs.complete(id, token, 'succeeded', null, T0 + 5);
      expect((await rejection(s.runs.note(id, token, 'late', 'x', T0 + 6))).kind).toBe('conflict');
      expect((await rejection(s.runs.act(id, token, { acted: 'start' }, T0 + 6))).kind).toBe('conflict');
    });

    it('a repeated note is recognised when the history is at its 50-line cap', async () => {
      const s = stores();
      const { id, token } = await running(s);
      for (let i = 0; i < 60; i += 1) await s.runs.note(id, token, 'step', `n${i}`, T0 + i);
      await s.runs.note(id, token, 'step', 'n59', T0 + 59);
      const history = (await s.runs.get(id))!.history;
      expect(history).toHaveLength(50);
      expect(history.slice(-2).map((h) => h.detail)).toEqual(['n58', 'n59']);
    });

    it('noteLostOutcome: only on the lapse of this very attempt, the error says what was lost; once; refused otherwise', async () => {
      const s = stores();
      const { id, token } = await running(s);
      const lost = 'attempt 1 ended succeeded but could not write it before its lease was taken over (redis complete failed)';
      // Still running: the outcome write itself is what to retry.
      expect((await rejection(s.runs.noteLostOutcome(id, token, lost, T0 + 10))).kind).toBe('conflict');
      await s.runs.sweepLapsed(T0 + 1_001, 10, policy);
      const noted = await s.runs.noteLostOutcome(id, token, lost, T0 + 1_002);
      expect(noted.status).toBe('retry_wait');
      expect(noted.error?.kind).toBe('unavailable');
      expect(noted.error?.message).toMatch(/^attempt 1 ended succeeded but could not write it .*; lease of w lapsed during attempt 1$/);
      expect(noted.history.at(-1)).toMatchObject({ event: 'outcome_lost', attempt: 1, detail: lost });
      // A re-send writes nothing more.
      expect(await s.runs.noteLostOutcome(id, token, lost, T0 + 1_002)).toEqual(noted);
      // Claimed again: the run belongs to the next attempt.
      const next = await s.runs.claim(id, 'w2', 1_000, T0 + 3_001);
      expect((await rejection(s.runs.noteLostOutcome(id, token, lost, T0 + 3_002))).kind).toBe('conflict');
      // An attempt ended by its own write (not a lapse) is refused too.
      await s.runs.fail(id, next!.token, err, T0 + 3_003);
      expect((await rejection(s.runs.noteLostOutcome(id, next!.token, lost, T0 + 3_004))).kind).toBe('conflict');
    });
  });
}
