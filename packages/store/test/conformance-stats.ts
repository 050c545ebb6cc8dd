import type { Stores } from '../src';
import { STATS_BUCKETS, statsBucket, statsSeries } from '../src';
import { T0, hook } from './fixtures';

const MINUTE = 60_000;
/** A minute of T0's day: minute M starts at M * 60000 (the callers' clock). */
const M = Math.floor(T0 / MINUTE) + 7;
const at = (minute: number, ms: number) => minute * MINUTE + ms;

/** A histogram with `n` in each bucket given. */
function histogram(buckets: Record<number, number>): number[] {
  const h = new Array<number>(STATS_BUCKETS).fill(0);
  for (const [i, n] of Object.entries(buckets)) h[Number(i)] = n;
  return h;
}

async function keepOne(s: Stores, topic: string, now: number): Promise<string> {
  const [kept] = await s.runs.keepEvent({ topic, payload: {}, now, dispatchGraceMs: 0 });
  return kept!.id;
}

/** Per-minute counters, kept by the transitions in their own step (stats-rules.ts, stats.lua). */
export function describeStatsConformance(stores: () => Stores): void {
  describe('per-minute counters', () => {
    it('counts a run in the minute of each transition, with its accept-to-start and tool duration', async () => {
      const s = stores();
      await s.hooks.putHook(hook('h1', 'orders'));
      await s.hooks.putHook(hook('h2', 'orders'));
      const kept = await s.runs.keepEvent({ topic: 'orders', payload: {}, now: at(M, 1_000), dispatchGraceMs: 0 });
      const [r1, r2] = kept.map((k) => k.id) as [string, string];
      // h1: claimed 3 s after it was accepted, finished in the next minute 61 s after its claim.
      const c1 = await s.runs.claim(r1, 'w', 600_000, at(M, 4_000));
      // h2: claimed after 100 ms, failed after 500 ms, all in minute M.
      const c2 = await s.runs.claim(r2, 'w', 600_000, at(M, 1_100));
      await s.runs.fail(r2, c2!.token, { kind: 'unavailable', message: 'down' }, at(M, 1_600));
      await s.runs.complete(r1, c1!.token, 'succeeded', { ok: true }, at(M + 1, 5_000));

      const minutes = await s.runs.minuteStats(M - 1, M + 2);
      expect(minutes.map((m) => m.minute)).toEqual([M, M + 1]);
      const [m0, m1] = minutes as [(typeof minutes)[0], (typeof minutes)[0]];
      expect(m0.total).toEqual({
        accepted: 2,
        succeeded: 0,
        failed: 1,
        skipped: 0,
        denied: 0,
        approvals: 0,
        accept_to_start: histogram({ [statsBucket(3_000)]: 1, [statsBucket(100)]: 1 }),
        tool_duration: histogram({ [statsBucket(500)]: 1 }),
      });
      expect(statsBucket(3_000)).toBe(12); // at most 4096 ms
      expect(statsBucket(100)).toBe(7); // at most 128 ms
      expect(Object.keys(m0.hooks).sort()).toEqual(['h1', 'h2']);
      expect(m0.hooks.h1).toMatchObject({ accepted: 1, succeeded: 0, accept_to_start: histogram({ 12: 1 }) });
      expect(m0.hooks.h2).toMatchObject({ accepted: 1, failed: 1, tool_duration: histogram({ 9: 1 }) });
      expect(m1.total).toMatchObject({ accepted: 0, succeeded: 1, failed: 0, tool_duration: histogram({ [statsBucket(61_000)]: 1 }) });
      expect(Object.keys(m1.hooks)).toEqual(['h1']);
    });

    it('counts skipped and denied outcomes, and a replay as accepted; not cancelled or discarded', async () => {
      const s = stores();
      await s.hooks.putHook(hook('h', 't'));
      const a = await keepOne(s, 't', at(M, 0));
      const b = await keepOne(s, 't', at(M, 10));
      const c = await keepOne(s, 't', at(M, 20));
      const ca = await s.runs.claim(a, 'w', 60_000, at(M, 30));
      const cb = await s.runs.claim(b, 'w', 60_000, at(M, 30));
      const cc = await s.runs.claim(c, 'w', 60_000, at(M, 30));
      await s.runs.complete(a, ca!.token, 'skipped', null, at(M, 40));
      await s.runs.complete(b, cb!.token, 'denied', null, at(M, 40));
      await s.runs.complete(c, cc!.token, 'cancelled', null, at(M, 40));
      await s.runs.replay(a, { name: 'h', topic: 't' }, at(M, 50), 0);
      await s.runs.discard(a, at(M, 60));
      const [m] = await s.runs.minuteStats(M, M);
      expect(m!.total).toMatchObject({ accepted: 4, succeeded: 0, failed: 0, skipped: 1, denied: 1 });
      expect(m!.total.tool_duration.reduce((x, y) => x + y, 0)).toBe(2);
      expect(m!.hooks.h).toMatchObject({ accepted: 4, skipped: 1, denied: 1 });
    });

    it('gives p50/p95/p99 of known tool durations, per hook and in total, and the top failing hooks', async () => {
      const s = stores();
      await s.hooks.putHook(hook('p', 'tp'));
      await s.hooks.putHook(hook('q', 'tq'));
      // 18 runs of 10 ms, one of 1 s, one of 50 s (all in minute M): p50 in the 16 ms bucket, p95 in 1024 ms, p99 in 65536 ms.
      const durations = [...new Array<number>(18).fill(10), 1_000, 50_000];
      for (const [i, d] of durations.entries()) {
        const id = await keepOne(s, 'tp', at(M, i));
        const claimed = await s.runs.claim(id, 'w', 600_000, at(M, 100 + i));
        await s.runs.complete(id, claimed!.token, 'succeeded', null, at(M, 100 + i + d));
      }
      for (let i = 0; i < 2; i += 1) {
        const id = await keepOne(s, 'tq', at(M, 500 + i));
        const claimed = await s.runs.claim(id, 'w', 600_000, at(M, 600));
        await s.runs.fail(id, claimed!.token, { kind: 'internal', message: 'no' }, at(M, 700));
      }
      const now = at(M + 3, 0);
      const series = statsSeries(await s.runs.minuteStats(M - 60, M + 3), '1h', 'p', now);
      const point = series.points.find((x) => x.at === new Date(at(M, 0)).toISOString())!;
      expect(point).toMatchObject({ accepted: 20, succeeded: 20, failed: 0 });
      expect(point.tool_duration_ms).toEqual({ count: 20, p50: 16, p95: 1024, p99: 65536 });
      expect(point.accept_to_start_ms).toEqual({ count: 20, p50: 128, p95: 128, p99: 128 });
      expect(series.points).toHaveLength(60);
      expect(series.hooks).toEqual(['p', 'q']);
      expect(series.top_failing).toEqual([{ hook: 'q', failed: 2, succeeded: 0, accepted: 2 }]);
      // 24 h: 96 steps of 15 minutes, each the sum of its minutes.
      const day = statsSeries(await s.runs.minuteStats(M - 1440, M + 3), '24h', null, now);
      expect(day.points).toHaveLength(96);
      expect(day.step_seconds).toBe(900);
      expect(day.points.reduce((n, x) => n + x.accepted, 0)).toBe(22);
      expect(day.points.reduce((n, x) => n + x.tool_duration_ms.count, 0)).toBe(22);
    });
  });
}
