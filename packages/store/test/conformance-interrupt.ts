import type { Acted } from '@hookyard/core';
import type { Stores } from '../src';
import { T0, hook } from './fixtures';

interface Row {
  name: string;
  acted: Acted;
  resumable?: boolean;
  maxAttempts: number;
  outcome: 'retry' | 'replay' | 'failed';
  status: string;
  kind: string;
  message: string;
}

/** The interrupt policy, row by row (see DESIGN.md "A run's life"). One attempt is used in every row. */
const ROWS: Row[] = [
  { name: 'not acted, attempts left', acted: '', maxAttempts: 3, outcome: 'retry', status: 'retry_wait', kind: 'unavailable', message: 'w-1' },
  {
    name: 'not acted, no attempts left',
    acted: '',
    maxAttempts: 1,
    outcome: 'failed',
    status: 'failed',
    kind: 'unavailable',
    message: 'no attempts left (1 of 1)',
  },
  {
    name: 'resumable start, attempts left',
    acted: 'start',
    resumable: true,
    maxAttempts: 3,
    outcome: 'replay',
    status: 'pending',
    kind: 'unavailable',
    message: 'replaying its start',
  },
  {
    name: 'resumable start, no attempts left',
    acted: 'start',
    resumable: true,
    maxAttempts: 1,
    outcome: 'failed',
    status: 'failed',
    kind: 'unavailable',
    message: 'no attempts left to replay its start',
  },
  {
    name: 'start, not resumable',
    acted: 'start',
    resumable: false,
    maxAttempts: 3,
    outcome: 'failed',
    status: 'failed',
    kind: 'outcome_unknown',
    message: 'outcome unknown: interrupted after its tool started (',
  },
  {
    name: 'committed cancel',
    acted: 'cancel',
    maxAttempts: 3,
    outcome: 'replay',
    status: 'pending',
    kind: 'unavailable',
    message: 'committed a cancel on ["i-1"], which ends the run on the next attempt',
  },
  {
    name: 'committed resume',
    acted: 'resume',
    maxAttempts: 3,
    outcome: 'replay',
    status: 'pending',
    kind: 'unavailable',
    message: 'committed a resume on ["i-1"], which ends the run on the next attempt',
  },
  {
    name: 'committed take',
    acted: 'take',
    maxAttempts: 3,
    outcome: 'replay',
    status: 'pending',
    kind: 'unavailable',
    message: 'committed a take on ["i-1"], which ends the run on the next attempt',
  },
  {
    name: 'committed resume, no attempts left',
    acted: 'resume',
    maxAttempts: 1,
    outcome: 'replay',
    status: 'pending',
    kind: 'unavailable',
    message: 'committed a resume on ["i-1"], which ends the run on the next attempt',
  },
];

async function claimed(s: Stores, row: Row): Promise<{ id: string; token: number }> {
  await s.hooks.putHook(hook('h', 't'));
  const [kept] = await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 });
  const c = await s.runs.claim(kept!.id, 'w-1', 1_000, T0);
  if (row.acted !== '') {
    const actedIds = row.acted === 'start' ? [] : ['i-1'];
    await s.runs.act(kept!.id, c!.token, { acted: row.acted, actedIds, input: { a: 1 }, resumable: row.resumable ?? false }, T0);
  } else {
    await s.runs.setClaimIntent(kept!.id, c!.token, 'resume:i-7', T0);
  }
  return { id: kept!.id, token: c!.token };
}

export function describeInterruptConformance(stores: () => Stores): void {
  describe('interrupt policy', () => {
    const policy = (row: Row) => ({ maxAttempts: row.maxAttempts, retryDelayMs: 2_000 });

    it.each(ROWS)('lapsed lease: $name -> $outcome', async (row) => {
      const s = stores();
      const { id } = await claimed(s, row);
      const now = T0 + 1_001;
      const [out, ...rest] = await s.runs.sweepLapsed(now, 10, policy(row));
      expect(rest).toEqual([]);
      expect(out).toMatchObject({ id, hook: 'h', outcome: row.outcome, attempts: 1, error: { kind: row.kind } });
      expect(out?.error.message).toContain(row.message);
      expect(out?.error.message).toContain('lease of w-1 lapsed during attempt 1');
      const run = await s.runs.get(id);
      expect(run).toMatchObject({ status: row.status, lease: null, error: out?.error });
      expect(run?.history.map((h) => h.event)).toContain('lapsed');
      if (row.outcome === 'retry') {
        expect(run?.due_at).toBe(new Date(now + 2_000).toISOString());
        expect(run?.claim_intent).toBe('resume:i-7');
        expect(await s.runs.sweepDue(now + 1_999, 10, 100)).toEqual([]);
        expect(await s.runs.sweepDue(now + 2_000, 10, 100)).toEqual([id]);
      }
      if (row.outcome === 'replay') {
        expect(run).toMatchObject({ due_at: new Date(now).toISOString(), acted: row.acted, input: { a: 1 } });
        const replayLine = run?.history.find((h) => h.event === 'replay')?.detail;
        expect(replayLine).toBe(
          row.acted === 'start' ? 'its start replays on the next attempt' : `its committed ${row.acted} ends the run on the next attempt`,
        );
        expect(await s.runs.sweepDue(now, 10, 100)).toEqual([id]);
        expect((await s.runs.claim(id, 'w-2', 1_000, now))?.run.attempts).toBe(2);
      }
      if (row.outcome === 'failed') {
        expect(run?.finished_at).toBe(new Date(now).toISOString());
        expect((await s.runs.counts()).failed).toBe(1);
      }
      if (row.outcome !== 'replay') expect(await s.runs.sweepLapsed(now + 100_000, 10, policy(row))).toEqual([]);
    });

    it.each(ROWS.filter((r) => r.maxAttempts === 3))('release on shutdown: $name -> $outcome', async (row) => {
      const s = stores();
      const { id, token } = await claimed(s, row);
      const out = await s.runs.release(id, token, 'shutting down', policy(row), T0 + 10);
      expect(out).toMatchObject({ id, outcome: row.outcome, error: { kind: row.kind } });
      expect(out.error.message).toContain(row.message);
      expect(out.error.message).toContain('attempt 1 was interrupted on w-1: shutting down');
      const run = await s.runs.get(id);
      expect(run?.status).toBe(row.status);
      expect(run?.history.map((h) => h.event)).toContain('released');
      expect((await s.runs.counts()).running).toBe(0);
    });

    it('the lapse sweep takes only lapsed leases, oldest first, up to the limit', async () => {
      const s = stores();
      await s.hooks.putHook(hook('a', 't'));
      await s.hooks.putHook(hook('b', 't'));
      await s.hooks.putHook(hook('c', 't'));
      const kept = await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 });
      const [a, b, c] = kept.map((k) => k.id);
      await s.runs.claim(a!, 'w', 3_000, T0);
      await s.runs.claim(b!, 'w', 1_000, T0);
      await s.runs.claim(c!, 'w', 9_000, T0);
      const p = { maxAttempts: 3, retryDelayMs: 0 };
      expect((await s.runs.sweepLapsed(T0 + 5_000, 1, p)).map((o) => o.id)).toEqual([b]);
      expect((await s.runs.sweepLapsed(T0 + 5_000, 10, p)).map((o) => o.id)).toEqual([a]);
      expect((await s.runs.get(c!))?.status).toBe('running');
    });

    describe('resolveUnknown: an operator records what a held run with an unknown outcome did', () => {
      const unknownRow = ROWS.find((r) => r.name === 'start, not resumable')!;
      /** A run held failed with an unknown outcome: its non-resumable start's lease lapsed. */
      async function held(s: Stores): Promise<string> {
        const { id } = await claimed(s, unknownRow);
        await s.runs.sweepLapsed(T0 + 1_001, 10, policy(unknownRow));
        expect((await s.runs.get(id))?.error?.kind).toBe('outcome_unknown');
        return id;
      }

      it('succeeded: the run ends succeeded with the result, leaves the held count, names who and the note, and enters retention', async () => {
        const s = stores();
        const id = await held(s);
        expect((await s.runs.counts()).failed).toBe(1);
        const run = await s.runs.resolveUnknown(
          id,
          { outcome: 'succeeded', result: { deployed: 'v2' }, note: 'checked the deploy log', by: 'ops-ann' },
          T0 + 5_000,
        );
        expect(run).toMatchObject({ status: 'succeeded', result: { deployed: 'v2' }, error: null, finished_at: new Date(T0 + 5_000).toISOString() });
        expect(run.history.at(-1)).toMatchObject({
          event: 'resolved',
          detail: 'resolved by ops-ann as succeeded (the outcome was unknown); note: checked the deploy log',
        });
        expect(await s.runs.get(id)).toMatchObject({ status: 'succeeded', result: { deployed: 'v2' }, error: null });
        expect((await s.runs.counts()).failed).toBe(0);
        expect((await s.runs.list({ status: 'succeeded' }, 10)).runs.map((r) => r.id)).toEqual([id]);
        expect((await s.runs.list({ status: 'failed' }, 10)).runs).toEqual([]);
        // Retention counts from the verdict: kept at its retention's edge, deleted past it.
        expect(await s.runs.sweepExpired(T0 + 5_000 + 999, 1_000, 10)).toBe(0);
        expect(await s.runs.sweepExpired(T0 + 5_000 + 1_001, 1_000, 10)).toBe(1);
        expect(await s.runs.get(id)).toBeNull();
      });

      it('failed: the run stays failed with a non-retryable operator_failed error naming the reason; it cannot be resolved twice', async () => {
        const s = stores();
        const id = await held(s);
        const run = await s.runs.resolveUnknown(id, { outcome: 'failed', reason: 'the deploy never reached prod', note: null, by: 'operator' }, T0 + 5_000);
        expect(run).toMatchObject({
          status: 'failed',
          result: null,
          error: { kind: 'operator_failed', message: 'operator checked what the tool did and recorded that it failed: the deploy never reached prod' },
        });
        expect(run.history.at(-1)).toMatchObject({
          event: 'resolved',
          detail: 'resolved by operator as failed (the outcome was unknown): the deploy never reached prod',
        });
        expect((await s.runs.counts()).failed).toBe(1);
        await expect(s.runs.resolveUnknown(id, { outcome: 'succeeded', result: 1, note: null, by: 'x' }, T0 + 6_000)).rejects.toMatchObject({
          kind: 'conflict',
          message: expect.stringContaining('is failed with kind operator_failed; only a run held failed with an unknown outcome'),
        });
        expect((await s.runs.get(id))?.history.filter((h) => h.event === 'resolved')).toHaveLength(1);
      });

      it('refuses a run that is not held with an unknown outcome (conflict naming its status) and an unknown run (not_found)', async () => {
        const s = stores();
        const retried = ROWS.find((r) => r.name === 'not acted, no attempts left')!;
        const { id: spent } = await claimed(s, retried);
        await s.runs.sweepLapsed(T0 + 1_001, 10, policy(retried));
        await expect(s.runs.resolveUnknown(spent, { outcome: 'failed', reason: 'r', note: null, by: 'o' }, T0 + 2_000)).rejects.toMatchObject({
          kind: 'conflict',
          message: expect.stringContaining(`run ${spent} is failed with kind unavailable; only a run held failed with an unknown outcome`),
        });
        const [pending] = await s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 });
        await expect(s.runs.resolveUnknown(pending!.id, { outcome: 'succeeded', result: null, note: null, by: 'o' }, T0 + 2_000)).rejects.toMatchObject({
          kind: 'conflict',
          message: expect.stringContaining(`run ${pending!.id} is pending; only`),
        });
        expect((await s.runs.get(pending!.id))?.status).toBe('pending');
        expect((await s.runs.get(spent))?.error?.kind).toBe('unavailable');
        await expect(s.runs.resolveUnknown('0000000000000000000000', { outcome: 'failed', reason: 'r', note: null, by: 'o' }, T0)).rejects.toMatchObject({
          kind: 'not_found',
        });
      });
    });
  });
}
