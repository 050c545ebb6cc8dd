import type { BucketLimit, BucketStore, TakeManyResult, TakeResult } from '../src';
import { T0, rejection, useStores } from './fixtures';
import type { StoresFactory } from './fixtures';

/**
 * The flood limiter's token buckets. Time is the `now` each take is given,
 * never the wall clock; the limits are slow (a token every 100 s or more) so
 * that a Redis key's expiry, which runs on Redis's own clock and is never
 * shorter than the bucket's refill, cannot land inside a test.
 */
const SLOW: BucketLimit = { rate: 0.01, burst: 5 }; // a token every 100 s, five at once
const INTERVAL = 100_000;

async function takeMany(buckets: BucketStore, n: number, key: string, limit: BucketLimit, now: number, bucket = 'door-client'): Promise<TakeResult[]> {
  const out: TakeResult[] = [];
  for (let i = 0; i < n; i += 1) out.push(await buckets.take(bucket, key, limit, now));
  return out;
}

const passed = (results: TakeResult[]) => results.filter((r) => r.ok).length;

/** Two single takes of `key` at `now`, answered as one take of two would be. */
async function pairOfSingles(buckets: BucketStore, key: string, limit: BucketLimit, now: number): Promise<TakeManyResult> {
  const results = await takeMany(buckets, 2, key, limit, now, 'door-topic');
  const refused = results.find((r): r is { ok: false; retryAfterMs: number } => !r.ok);
  return { granted: passed(results), retryAfterMs: refused ? refused.retryAfterMs : 0 };
}

export function describeBucketConformance(name: string, factory: StoresFactory): void {
  describe(`${name} bucket store`, () => {
    const stores = useStores(factory);

    it('a fresh bucket lets one burst through at once, then refuses with the wait for one token', async () => {
      const { buckets } = stores();
      expect(passed(await takeMany(buckets, 5, '10.0.0.1', SLOW, T0))).toBe(5);
      expect(await buckets.take('door-client', '10.0.0.1', SLOW, T0)).toEqual({ ok: false, retryAfterMs: INTERVAL });
      // A refusal takes nothing: later in the same interval the wait is shorter by as much.
      expect(await buckets.take('door-client', '10.0.0.1', SLOW, T0 + 40_000)).toEqual({ ok: false, retryAfterMs: 60_000 });
    });

    it('refills continuously: one token after one interval, not a whole bucket after a window', async () => {
      const { buckets } = stores();
      await takeMany(buckets, 5, 'k', SLOW, T0);
      expect(await buckets.take('door-client', 'k', SLOW, T0 + INTERVAL - 1)).toEqual({ ok: false, retryAfterMs: 1 });
      expect(await buckets.take('door-client', 'k', SLOW, T0 + INTERVAL)).toEqual({ ok: true });
      expect(await buckets.take('door-client', 'k', SLOW, T0 + INTERVAL)).toEqual({ ok: false, retryAfterMs: INTERVAL });
      // Two intervals on: two tokens, the third refused.
      expect(passed(await takeMany(buckets, 3, 'k', SLOW, T0 + 3 * INTERVAL))).toBe(2);
    });

    it('an idle bucket fills up to its burst and no further', async () => {
      const { buckets } = stores();
      await takeMany(buckets, 5, 'k', SLOW, T0);
      expect(passed(await takeMany(buckets, 8, 'k', SLOW, T0 + 50 * INTERVAL))).toBe(5);
    });

    it('a fractional rate: the wait is rounded up to the next whole ms and the token comes then', async () => {
      const { buckets } = stores();
      const limit = { rate: 0.003, burst: 3 }; // a token every 333333.33 ms
      expect(passed(await takeMany(buckets, 3, 'k', limit, T0))).toBe(3);
      expect(await buckets.take('door-client', 'k', limit, T0)).toEqual({ ok: false, retryAfterMs: 333_334 });
      expect(await buckets.take('door-client', 'k', limit, T0 + 333_333)).toEqual({ ok: false, retryAfterMs: 1 });
      expect(await buckets.take('door-client', 'k', limit, T0 + 333_334)).toEqual({ ok: true });
    });

    it('keeps a bucket per name and key: another key or another bucket name is untouched', async () => {
      const { buckets } = stores();
      await takeMany(buckets, 5, '10.0.0.1', SLOW, T0);
      expect((await buckets.take('door-client', '10.0.0.1', SLOW, T0)).ok).toBe(false);
      expect((await buckets.take('door-client', '10.0.0.2', SLOW, T0)).ok).toBe(true);
      expect((await buckets.take('api', '10.0.0.1', SLOW, T0)).ok).toBe(true);
      // Keys are any text: an IPv6 address, and one with braces (kept apart from the plain one).
      expect(passed(await takeMany(buckets, 6, '2001:db8::1', SLOW, T0))).toBe(5);
      expect(passed(await takeMany(buckets, 6, '{orders}', SLOW, T0, 'door-topic'))).toBe(5);
      expect((await buckets.take('door-topic', 'orders', SLOW, T0)).ok).toBe(true);
    });

    it('the limit travels with each take: a new rate or burst applies at once and the bucket state carries over', async () => {
      const { buckets } = stores();
      await takeMany(buckets, 2, 'k', { rate: 0.01, burst: 2 }, T0); // kept 200 s ahead
      // A bigger bucket at the same rate has room for three more.
      expect(passed(await takeMany(buckets, 4, 'k', { rate: 0.01, burst: 5 }, T0))).toBe(3);
      // A faster rate with a small bucket: 500 s ahead is far past its 2 s fill; the wait is what is left.
      expect(await buckets.take('door-client', 'k', { rate: 1, burst: 2 }, T0)).toEqual({ ok: false, retryAfterMs: 499_000 });
    });

    it('a take for several requests decides as that many single takes: the first ones pass, the rest wait as one would', async () => {
      const { buckets } = stores();
      // A fresh bucket of 5: three requests pass, then five more find two tokens left.
      expect(await buckets.takeMany('door-client', 'k', SLOW, T0, 3)).toEqual({ granted: 3, retryAfterMs: 0 });
      expect(await buckets.takeMany('door-client', 'k', SLOW, T0, 5)).toEqual({ granted: 2, retryAfterMs: INTERVAL });
      // Each granted request cost one token, the refused ones nothing: dry now, and 40 s on the wait is 60 s.
      expect(await buckets.take('door-client', 'k', SLOW, T0)).toEqual({ ok: false, retryAfterMs: INTERVAL });
      expect(await buckets.takeMany('door-client', 'k', SLOW, T0 + 40_000, 4)).toEqual({ granted: 0, retryAfterMs: 60_000 });
      // Two intervals on: two tokens, taken by one call of 3 as by three single takes.
      expect(await buckets.takeMany('door-client', 'k', SLOW, T0 + 2 * INTERVAL, 3)).toEqual({ granted: 2, retryAfterMs: INTERVAL });
      expect(await buckets.takeMany('door-client', 'k', SLOW, T0 + 2 * INTERVAL, 1)).toEqual({ granted: 0, retryAfterMs: INTERVAL });
    });

    it('a take for several requests keeps the same bucket state as single takes, at a fractional rate too', async () => {
      const { buckets } = stores();
      const limit = { rate: 0.003, burst: 4 }; // a token every 333333.33 ms
      expect(await buckets.takeMany('door-topic', 'many', limit, T0, 3)).toEqual({ granted: 3, retryAfterMs: 0 });
      expect(passed(await takeMany(buckets, 3, 'one', limit, T0, 'door-topic'))).toBe(3);
      // Both buckets were moved the same three rounded steps: the same answers from here on.
      for (const at of [T0, T0 + 333_333, T0 + 333_334, T0 + 700_000]) {
        expect(await buckets.takeMany('door-topic', 'many', limit, at, 2)).toEqual(await pairOfSingles(buckets, 'one', limit, at));
      }
    });

    it('refuses a take for a count that is not a whole number >= 1, taking nothing', async () => {
      const { buckets } = stores();
      for (const count of [0, -1, 1.5, Number.NaN]) {
        const bad = await rejection(buckets.takeMany('api', 'k', SLOW, T0, count));
        expect(bad.kind).toBe('bad_input');
        expect(bad.message).toContain(`bucket take count must be a whole number >= 1, got ${count}`);
      }
      expect(await buckets.takeMany('api', 'k', SLOW, T0, 6)).toEqual({ granted: 5, retryAfterMs: INTERVAL });
    });

    it('refuses a bad bucket name, an empty key and a bad limit as bad_input, naming each', async () => {
      const { buckets } = stores();
      const bad = await rejection(buckets.take('Door Client', '', { rate: 0, burst: 1.5 }, T0));
      expect(bad.kind).toBe('bad_input');
      expect(bad.message).toContain('bucket "Door Client" must match ^[a-z0-9][a-z0-9_-]*$');
      expect(bad.message).toContain('bucket key must be a non-empty string');
      expect(bad.message).toContain('bucket rate must be a finite number above 0, got 0');
      expect(bad.message).toContain('bucket burst must be a whole number >= 1, got 1.5');
      expect((await rejection(buckets.take('api', 'k', { rate: Infinity, burst: 1 }, T0))).kind).toBe('bad_input');
      expect((await rejection(buckets.take('api', 'k', SLOW, Number.NaN))).message).toContain('bucket take time must be epoch ms');
      // Nothing was taken by a refused call.
      expect(passed(await takeMany(buckets, 6, 'k', SLOW, T0, 'api'))).toBe(5);
    });
  });
}
