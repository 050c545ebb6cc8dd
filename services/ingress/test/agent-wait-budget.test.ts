import { FALLBACK_READS_PER_SECOND, SLOW_POLL_MS, fallbackPollMs, waitUntil } from '../src/agent/wait';

/**
 * The fallback poll of waits with a feed shares one budget per process: with
 * many calls waiting on approvals, the store reads they make together stay at
 * FALLBACK_READS_PER_SECOND instead of growing with their number (the issue-36
 * waiters bench: 1,000 waits polling each 2 s were 500 reads/s of the ingress).
 */
describe('the fallback poll budget of waits with a feed', () => {
  afterEach(() => jest.useRealTimers());

  it('stretches past SLOW_POLL_MS only when the waits together would read more than the budget', () => {
    expect(fallbackPollMs(1)).toBe(SLOW_POLL_MS);
    expect(fallbackPollMs((SLOW_POLL_MS / 1000) * FALLBACK_READS_PER_SECOND)).toBe(SLOW_POLL_MS);
    expect(fallbackPollMs(1_000)).toBe((1_000 * 1000) / FALLBACK_READS_PER_SECOND);
  });

  it('500 waits with a feed that says nothing read about the budget per second, not 500 every 2 s', async () => {
    jest.useFakeTimers();
    const waits = 500;
    let reads = 0;
    const wakes: Array<() => void> = [];
    const all = Array.from({ length: waits }, () =>
      waitUntil<number>({
        read: async () => {
          reads += 1;
          return 0;
        },
        settled: (v) => v === 1,
        changed: () => false,
        waitMs: 120_000,
        listen: (wake) => {
          wakes.push(wake);
          return () => undefined;
        },
      }),
    );
    await jest.advanceTimersByTimeAsync(0);
    expect(reads).toBe(waits); // each wait's first read
    const seconds = 60;
    await jest.advanceTimersByTimeAsync(seconds * 1000);
    const fallback = reads - waits;
    // 500 waits share 50 reads/s: each polls every 10 s, six times a minute (3,000 at SLOW_POLL_MS would be 15,000).
    expect(fallback).toBeGreaterThanOrEqual(waits * 5);
    expect(fallback).toBeLessThanOrEqual(FALLBACK_READS_PER_SECOND * seconds + waits);
    // An event still wakes its wait at once: each reads when poked, whatever its poll interval.
    const before = reads;
    for (const wake of wakes) wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(reads).toBe(before + waits);
    await jest.advanceTimersByTimeAsync(120_000);
    await Promise.all(all);
  });

  it('a wait alone keeps SLOW_POLL_MS', async () => {
    jest.useFakeTimers();
    let reads = 0;
    const done = waitUntil<number>({
      read: async () => {
        reads += 1;
        return 0;
      },
      settled: (v) => v === 1,
      changed: () => false,
      waitMs: 10_000,
      listen: () => () => undefined,
    });
    await jest.advanceTimersByTimeAsync(10_000);
    await done;
    // The first read, then one every 2 s until the 10 s are up.
    expect(reads).toBe(1 + 10_000 / SLOW_POLL_MS);
  });
});
