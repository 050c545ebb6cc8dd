import { DeliveryClaims } from '../src/memory/delivery-claims';

describe('memory delivery claims', () => {
  it('agrees with a plain map over many claims, releases and mixed ttls, and drops lapsed claims', () => {
    const claims = new DeliveryClaims();
    const model = new Map<string, number>();
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    let now = 0;
    for (let i = 0; i < 20_000; i += 1) {
      now += rand(3);
      const key = `k${rand(3_000)}`;
      if (rand(10) === 0) {
        claims.release(key);
        model.delete(key);
        continue;
      }
      const ttl = [5, 50, 500][rand(3)]!;
      const held = model.get(key);
      const expected = held === undefined || held <= now;
      if (expected) model.set(key, now + ttl);
      expect([i, claims.claim(key, ttl, now)]).toEqual([i, expected]);
    }
    const live = [...model.values()].filter((u) => u > now).length;
    // Lapsed claims are dropped as the clock passes them, so the held set stays near the live one.
    claims.claim('last', 1, now + 1_000);
    expect(claims.size).toBe(1);
    expect(live).toBeGreaterThan(0);
  });
});
