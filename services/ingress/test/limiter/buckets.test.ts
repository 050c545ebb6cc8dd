import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { silentLogger, unavailable } from '@hookyard/core';
import { createMemoryBucketStore, createRedisStores } from '@hookyard/store';
import type { BucketStore, Stores } from '@hookyard/store';
import { createDoorLimiter } from '../../src/limiter';
import type { DoorLimiter } from '../../src/limiter';
import { createBucketSet } from '../../src/limiter/buckets';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../../test/support/services';

let url: string;
let admin: Redis;
const prefixes: string[] = [];
const limiters: DoorLimiter[] = [];
const stores: Stores[] = [];

beforeAll(async () => {
  url = await requireRedis();
  admin = new Redis(url);
});

afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()));
  await Promise.all(stores.map((s) => s.close()));
  for (const prefix of prefixes) await deleteRedisKeys(prefix, url);
  await admin.quit();
});

/** The stores on Redis under a fresh prefix, as `hookyard serve` makes them; the limiter takes their buckets. */
async function redisStores(prefix: string): Promise<Stores> {
  const s = await createRedisStores({ url, prefix, partitions: 1 });
  stores.push(s);
  return s;
}

/** A clock the test moves. */
function manualClock(start = Date.now()) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function make(opts: { rate: number; burst: number; apiRate?: number; redis?: boolean; clock?: { now(): number } }): Promise<DoorLimiter> {
  const prefix = uniquePrefix('lim');
  prefixes.push(prefix);
  const limiter = createDoorLimiter({
    buckets: opts.redis === false ? undefined : (await redisStores(prefix)).buckets,
    clock: opts.clock,
    rate: opts.rate,
    burst: opts.burst,
    apiRate: opts.apiRate ?? 0,
    trustedProxies: [],
    logger: silentLogger(),
  });
  limiters.push(limiter);
  return limiter;
}

async function passes(check: () => Promise<{ ok: boolean }>, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i += 1) if ((await check()).ok) ok += 1;
  return ok;
}

describe.each([
  ['redis', true],
  ['memory', false],
])('door buckets (%s)', (_label, redis) => {
  it('setRates (a live reload): door and API rates and bursts change from the next check; a bad value is refused whole', async () => {
    const limiter = await make({ rate: 1000, burst: 1000, apiRate: 1000, redis });
    const ip = `10.1.0.${Math.floor(Math.random() * 200)}`;
    expect(await passes(() => limiter.checkDoor(ip, 'live'), 10)).toBe(10);
    expect(await passes(() => limiter.checkApi(ip), 10)).toBe(10);
    limiter.setRates({ rate: 0.01, burst: 2, apiRate: 0.01, apiBurst: 3 });
    // A client and topic not seen before: in Redis a bucket's state carries over a rate change (its theoretical arrival time).
    const fresh = `10.2.0.${Math.floor(Math.random() * 200)}`;
    expect(await passes(() => limiter.checkDoor(fresh, 'live-fresh'), 5)).toBe(2);
    expect(await passes(() => limiter.checkApi(fresh), 6)).toBe(3);
    expect(() => limiter.setRates({ rate: 1000, burst: 1000, apiRate: 1000, apiBurst: 0 })).toThrow(
      'apiBurst (HOOKS_API_BURST) must be a whole number >= 1, got 0',
    );
    // Refused whole: the door is still at burst 2, not back at 1000.
    expect((await limiter.checkDoor(fresh, 'live-fresh')).ok).toBe(false);
    limiter.setRates({ rate: 0, burst: 1, apiRate: 0 });
    expect(await passes(() => limiter.checkDoor(fresh, 'live-fresh'), 20)).toBe(20);
  });

  it('lets one burst through, then refuses with a Retry-After of at least a second', async () => {
    const limiter = await make({ rate: 0.01, burst: 5, redis });
    const ip = `10.0.0.${Math.floor(Math.random() * 200)}`;
    expect(await passes(() => limiter.checkDoor(ip, 'orders'), 5)).toBe(5);
    const refused = await limiter.checkDoor(ip, 'orders');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    // The Redis variant must really count in Redis (shared by replicas), not in its fallback.
    const kept = await admin.keys(`{${prefixes[prefixes.length - 1]}:lim:*`);
    expect(kept.length).toBe(redis ? 2 : 0);
  });

  it('keeps a bucket per topic apart from the bucket per client', async () => {
    const limiter = await make({ rate: 0.01, burst: 3, redis });
    // One client spreads over topics: its own bucket runs dry after 3.
    expect(await passes(async () => limiter.checkDoor('10.1.1.1', `t-${randomUUID()}`), 4)).toBe(3);
    // Many clients on one topic: the topic's bucket runs dry after 3.
    expect(await passes(async () => limiter.checkDoor(`10.2.2.${Math.floor(Math.random() * 1e6) % 250}-${randomUUID()}`, 'busy'), 4)).toBe(3);
    // Another client on another topic is untouched by both.
    expect((await limiter.checkDoor('10.3.3.3', 'quiet')).ok).toBe(true);
  });

  it('gives the API its own bucket, and rate 0 means unlimited', async () => {
    const limiter = await make({ rate: 0, burst: 1, apiRate: 2, redis });
    expect(await passes(() => limiter.checkDoor('10.4.4.4', 'orders'), 50)).toBe(50);
    expect(await passes(() => limiter.checkApi('10.4.4.4'), 3)).toBe(2);
  });
});

describe('Redis down', () => {
  it('fails open to per-process buckets and logs it once', async () => {
    const warnings: string[] = [];
    const logger = silentLogger();
    logger.warn = (_obj: unknown, msg?: string) => {
      warnings.push(String(msg));
    };
    // Port 1 on loopback: nothing listens, the connection is refused.
    const down = await createRedisStores({ url: 'redis://127.0.0.1:1', prefix: uniquePrefix('down'), partitions: 1 });
    stores.push(down);
    const limiter = createDoorLimiter({
      buckets: down.buckets,
      rate: 0.01,
      burst: 3,
      apiRate: 5,
      trustedProxies: [],
      logger,
    });
    limiters.push(limiter);
    expect(await passes(() => limiter.checkDoor('10.6.6.6', 'orders'), 3)).toBe(3);
    expect((await limiter.checkApi('10.6.6.6')).ok).toBe(true);
    // Still a limiter, not an open tap: the per-process bucket holds the burst.
    expect((await limiter.checkDoor('10.6.6.6', 'orders')).ok).toBe(false);
    expect(warnings).toEqual(['flood limiter: Redis unreachable, limiting per process until it answers (failing open)']);
  });
});

describe('the shared store failing and answering again', () => {
  /** A bucket store the test breaks and mends: failing, hung (never answers), or passing every take. */
  function flaky() {
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    const store: BucketStore = {
      take: async () => {
        if (mode === 'fail') throw unavailable('store out of reach');
        if (mode === 'hang') return new Promise(() => undefined);
        return { ok: true };
      },
      takeMany: async (_bucket, _key, _limit, _now, count) => {
        if (mode === 'fail') throw unavailable('store out of reach');
        if (mode === 'hang') return new Promise(() => undefined);
        return { granted: count, retryAfterMs: 0 };
      },
    };
    return { store, set: (m: typeof mode) => void (mode = m) };
  }

  it('reports down once when it fails or hangs past the take timeout, counting per process meanwhile; up once when it answers', async () => {
    const events: string[] = [];
    const s = flaky();
    const buckets = createBucketSet({ store: s.store, rate: 0.01, burst: 2, apiRate: 0, takeTimeoutMs: 20, onStore: (e) => void events.push(e) });
    expect((await buckets.checkDoor('10.7.7.7', 'orders')).ok).toBe(true);
    s.set('fail');
    // The per-process bucket holds its own burst of 2 (the shared store counted the first check, not this one).
    expect(await passes(() => buckets.checkDoor('10.7.7.7', 'orders'), 3)).toBe(2);
    s.set('hang');
    expect((await buckets.checkDoor('10.7.7.7', 'orders')).ok).toBe(false);
    expect(events).toEqual(['down']);
    s.set('ok');
    expect(await passes(() => buckets.checkDoor('10.7.7.7', 'orders'), 3)).toBe(3);
    expect(events).toEqual(['down', 'up']);
  });
});

describe('token bucket in Redis', () => {
  it('refills at the rate: a drained bucket passes again after one interval, not a whole window', async () => {
    // A token every 100 s, a whole bucket (the window a fixed-window counter would wait out) in 500 s.
    const clock = manualClock();
    const limiter = await make({ rate: 0.01, burst: 5, clock });
    expect(await passes(() => limiter.checkDoor('10.5.5.5', 'refill'), 6)).toBe(5);
    expect(await limiter.checkDoor('10.5.5.5', 'refill')).toEqual({ ok: false, retryAfterSeconds: 100 });
    // One interval on: one token back, well before the 500 s window would end; then dry again.
    clock.advance(99_999);
    expect((await limiter.checkDoor('10.5.5.5', 'refill')).ok).toBe(false);
    clock.advance(1);
    expect((await limiter.checkDoor('10.5.5.5', 'refill')).ok).toBe(true);
    expect(await limiter.checkDoor('10.5.5.5', 'refill')).toEqual({ ok: false, retryAfterSeconds: 100 });
  });
});

/** A shared store in front of a real one that records each take and can hold the next ones until the test lets them go. */
function gated(inner: BucketStore) {
  const calls: Array<{ bucket: string; key: string; count: number }> = [];
  let held: Array<() => void> | null = null;
  const store: BucketStore = {
    take: (bucket, key, limit, now) => inner.take(bucket, key, limit, now),
    takeMany: async (bucket, key, limit, now, count) => {
      calls.push({ bucket, key, count });
      if (held) await new Promise<void>((go) => held?.push(go));
      return inner.takeMany(bucket, key, limit, now, count);
    },
  };
  return {
    store,
    calls,
    hold: () => void (held = []),
    release: () => {
      const waiting = held ?? [];
      held = null;
      waiting.forEach((go) => go());
    },
    /** Resolves once `n` takes have reached the store. */
    reached: async (n: number) => {
      while (calls.length < n) await new Promise((r) => setImmediate(r));
    },
  };
}

describe.each([
  ['redis', true],
  ['memory', false],
])('concurrent checks of one key coalesce into one take (shared store on %s)', (_label, redis) => {
  async function sharedStore(): Promise<BucketStore> {
    if (!redis) return createMemoryBucketStore();
    const prefix = uniquePrefix('limc');
    prefixes.push(prefix);
    return (await redisStores(prefix)).buckets;
  }

  it('checks arriving while a take of their key is in flight leave as one take at the end of their turn, without waiting for its answer', async () => {
    const g = gated(await sharedStore());
    const buckets = createBucketSet({ store: g.store, rate: 1000, burst: 1000, apiRate: 0 });
    g.hold();
    const first = buckets.checkDoor('10.8.0.1', 'orders');
    await g.reached(2); // the client's and the topic's take, in flight
    const later = Array.from({ length: 7 }, () => buckets.checkDoor('10.8.0.1', 'orders'));
    // The seven leave together once their turn is over, while the first takes are still held.
    await g.reached(4);
    g.release();
    expect((await Promise.all([first, ...later])).every((v) => v.ok)).toBe(true);
    // Eight checks, two takes per bucket: the first alone, then the seven of the next turn, as one.
    expect(g.calls).toEqual([
      { bucket: 'door-client', key: '10.8.0.1', count: 1 },
      { bucket: 'door-topic', key: 'orders', count: 1 },
      { bucket: 'door-client', key: '10.8.0.1', count: 7 },
      { bucket: 'door-topic', key: 'orders', count: 7 },
    ]);
  });

  it('holds at most 8 takes of a key in flight: later checks gather until one answers, then leave as one take', async () => {
    const g = gated(await sharedStore());
    const buckets = createBucketSet({ store: g.store, rate: 1000, burst: 1000, apiRate: 0 });
    g.hold();
    const checks = [buckets.checkDoor('10.8.0.5', 'cap')];
    await g.reached(2);
    // One check per turn: each leaves as its own take until 8 of the key are in flight.
    for (let n = 2; n <= 8; n += 1) {
      checks.push(buckets.checkDoor('10.8.0.5', 'cap'));
      await g.reached(2 * n);
    }
    // Three more, in three turns: none reaches the store while the 8 are held.
    for (let n = 0; n < 3; n += 1) {
      checks.push(buckets.checkDoor('10.8.0.5', 'cap'));
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setImmediate(r));
    expect(g.calls).toHaveLength(16);
    g.release();
    expect((await Promise.all(checks)).every((v) => v.ok)).toBe(true);
    expect(g.calls.filter((c) => c.bucket === 'door-client').map((c) => c.count)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 3]);
  });

  it('with 3 tokens left, 5 concurrent checks pass exactly 3, the first to arrive, and the others wait as a single check would', async () => {
    const g = gated(await sharedStore());
    const clock = manualClock();
    const buckets = createBucketSet({ store: g.store, clock, rate: 0.01, burst: 4, apiRate: 0 });
    g.hold();
    const first = buckets.checkDoor('10.8.0.2', 'pay'); // leaves 3 tokens once answered
    await g.reached(2);
    const five = Array.from({ length: 5 }, () => buckets.checkDoor('10.8.0.2', 'pay'));
    g.release();
    expect((await first).ok).toBe(true);
    expect((await Promise.all(five)).map((v) => v.ok)).toEqual([true, true, true, false, false]);
    // Refused with the wait for one token (100 s), and the bucket is dry for the next check too.
    expect(await Promise.all(five.slice(3))).toEqual([
      { ok: false, retryAfterSeconds: 100 },
      { ok: false, retryAfterSeconds: 100 },
    ]);
    expect(await buckets.checkDoor('10.8.0.2', 'pay')).toEqual({ ok: false, retryAfterSeconds: 100 });
    expect(g.calls.filter((c) => c.bucket === 'door-client').map((c) => c.count)).toEqual([1, 5, 1]);
  });

  it('keeps keys apart: checks of other keys are not held behind a take in flight', async () => {
    const g = gated(await sharedStore());
    const buckets = createBucketSet({ store: g.store, rate: 1000, burst: 1000, apiRate: 0 });
    g.hold();
    const a = buckets.checkDoor('10.8.0.3', 'one');
    const b = buckets.checkDoor('10.8.0.4', 'two');
    await g.reached(4);
    expect(g.calls.map((c) => `${c.bucket} ${c.key} ${c.count}`)).toEqual([
      'door-client 10.8.0.3 1',
      'door-topic one 1',
      'door-client 10.8.0.4 1',
      'door-topic two 1',
    ]);
    g.release();
    expect([(await a).ok, (await b).ok]).toEqual([true, true]);
  });
});

describe('coalesced checks and a hung shared store', () => {
  it('checks waiting behind a hung take are answered by the per-process bucket, and the next take does not wait for the hung one', async () => {
    const events: string[] = [];
    let hang = true;
    const store: BucketStore = {
      take: async () => ({ ok: true }),
      takeMany: async (_bucket, _key, _limit, _now, count) => {
        if (hang) return new Promise(() => undefined);
        return { granted: count, retryAfterMs: 0 };
      },
    };
    const buckets = createBucketSet({ store, rate: 0.01, burst: 3, apiRate: 0, takeTimeoutMs: 20, onStore: (e) => void events.push(e) });
    const first = buckets.checkDoor('10.9.0.1', 'orders');
    const behind = Array.from({ length: 4 }, () => buckets.checkDoor('10.9.0.1', 'orders'));
    // All five fall back: the per-process bucket of 3 passes three of them (the first, then two of the four).
    expect((await first).ok).toBe(true);
    expect((await Promise.all(behind)).map((v) => v.ok)).toEqual([true, true, false, false]);
    expect(events).toEqual(['down']);
    hang = false;
    expect((await buckets.checkDoor('10.9.0.1', 'orders')).ok).toBe(true);
    expect(events).toEqual(['down', 'up']);
  });
});
