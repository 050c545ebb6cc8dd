import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { silentLogger } from '@hookyard/core';
import { createDoorLimiter } from '../../src/limiter';
import type { DoorLimiter } from '../../src/limiter';
import { requireRedis, uniquePrefix } from '../../../../test/support/services';

let url: string;
let admin: Redis;
const prefixes: string[] = [];
const limiters: DoorLimiter[] = [];

beforeAll(async () => {
  url = await requireRedis();
  admin = new Redis(url);
});

afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()));
  for (const prefix of prefixes) {
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  await admin.quit();
});

function make(opts: { rate: number; burst: number; apiRate?: number; redis?: boolean }): DoorLimiter {
  const prefix = uniquePrefix('lim');
  prefixes.push(prefix);
  const limiter = createDoorLimiter({
    redis: opts.redis === false ? undefined : { url, prefix },
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
    const limiter = make({ rate: 1000, burst: 1000, apiRate: 1000, redis });
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
    const limiter = make({ rate: 0.01, burst: 5, redis });
    const ip = `10.0.0.${Math.floor(Math.random() * 200)}`;
    expect(await passes(() => limiter.checkDoor(ip, 'orders'), 5)).toBe(5);
    const refused = await limiter.checkDoor(ip, 'orders');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    // The Redis variant must really count in Redis (shared by replicas), not in its fallback.
    const kept = await admin.keys(`${prefixes[prefixes.length - 1]}:limit:*`);
    expect(kept.length).toBe(redis ? 2 : 0);
  });

  it('keeps a bucket per topic apart from the bucket per client', async () => {
    const limiter = make({ rate: 0.01, burst: 3, redis });
    // One client spreads over topics: its own bucket runs dry after 3.
    expect(await passes(async () => limiter.checkDoor('10.1.1.1', `t-${randomUUID()}`), 4)).toBe(3);
    // Many clients on one topic: the topic's bucket runs dry after 3.
    expect(await passes(async () => limiter.checkDoor(`10.2.2.${Math.floor(Math.random() * 1e6) % 250}-${randomUUID()}`, 'busy'), 4)).toBe(3);
    // Another client on another topic is untouched by both.
    expect((await limiter.checkDoor('10.3.3.3', 'quiet')).ok).toBe(true);
  });

  it('gives the API its own bucket, and rate 0 means unlimited', async () => {
    const limiter = make({ rate: 0, burst: 1, apiRate: 2, redis });
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
    const limiter = createDoorLimiter({
      redis: { url: 'redis://127.0.0.1:1', prefix: uniquePrefix('down') },
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

describe('token bucket in Redis', () => {
  it('refills at the rate: a drained bucket passes again after one interval, not a whole window', async () => {
    // A token a second, a whole bucket (the window a fixed-window counter would wait out) in 5 s.
    const limiter = make({ rate: 1, burst: 5 });
    // Drained however slowly the checks go: keep taking until the first refusal.
    let refusedAt = 0;
    for (let i = 0; i < 30 && refusedAt === 0; i += 1) {
      if (!(await limiter.checkDoor('10.5.5.5', 'refill')).ok) refusedAt = Date.now();
    }
    expect(refusedAt).toBeGreaterThan(0);
    // Then the first token back comes after about one interval (1 s), well before the 5 s window ends.
    let passedAt = 0;
    while (passedAt === 0 && Date.now() - refusedAt < 10_000) {
      if ((await limiter.checkDoor('10.5.5.5', 'refill')).ok) passedAt = Date.now();
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(passedAt).toBeGreaterThan(0);
    expect(passedAt - refusedAt).toBeLessThan(4_000);
  });
});
