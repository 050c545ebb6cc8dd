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
    kind: 'internal',
    message: 'interrupted after its tool started; the tool does not declare crash-resume',
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
  });
}
