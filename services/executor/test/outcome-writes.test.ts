import { HookyardError } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { harness, hook, tableJq, testTool } from './fixtures';

/**
 * End-of-attempt writes that meet a Redis blip: retried (they are idempotent
 * per token) while the lease holds; lost only when the sweep took the run over
 * first, and then the run's error says so. The executor's waits move the
 * manual clock, so nothing here depends on timers.
 */
const blip = () => new HookyardError('unavailable', 'redis complete failed: Reached the max retries per request limit (which is 1)');

/** Stores whose `complete` fails while `down()` says so (the write never reaches the store). */
function flaky(down: () => boolean, seen: { completes: number }) {
  return (s: Stores): Stores => ({
    ...s,
    runs: Object.assign(Object.create(s.runs), {
      complete: (...args: Parameters<Stores['runs']['complete']>) => {
        seen.completes += 1;
        return down() ? Promise.reject(blip()) : s.runs.complete(...args);
      },
    }) as Stores['runs'],
  });
}

describe('executor: outcome writes across a Redis blip', () => {
  it('retries a failed complete while the lease holds: the run succeeds, the tool ran once', async () => {
    const seen = { completes: 0 };
    const waits: number[] = [];
    const tool = testTool('t', async () => ({ ok: 1 }));
    const h = harness({
      jq: tableJq({}),
      tools: [tool],
      stores: flaky(() => seen.completes <= 3, seen),
      sleep: async (ms, clock) => {
        waits.push(ms);
        clock.advance(ms);
      },
    });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: { ok: 1 }, attempts: 1, error: null });
    expect(tool.calls).toHaveLength(1);
    expect(waits).toEqual([100, 200, 400]);
    expect(h.lines.filter((l) => l.msg === 'outcome write (succeeded) failed; trying again')).toHaveLength(3);
    expect(h.events.map((e) => [e.event, e.status])).toEqual([
      ['started', 'running'],
      ['finished', 'succeeded'],
    ]);
  });

  it('gives up once the lease and one more are spent, leaving the run to the sweep', async () => {
    const seen = { completes: 0 };
    const h = harness({
      jq: tableJq({}),
      tools: [testTool('t', async () => 'done')],
      settings: { leaseMs: 5_000 },
      stores: flaky(() => true, seen),
      sleep: async (ms, clock) => void clock.advance(ms),
    });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    const started = h.clock.now();
    await h.executor.handle(id!);
    expect((await h.stores.runs.get(id!))?.status).toBe('running');
    // 100, 200, ... 2000 ms waits: no try past the lease plus one more.
    expect(h.clock.now() - started).toBeLessThanOrEqual(2 * 5_000);
    expect(h.clock.now() - started).toBeGreaterThan(2 * 5_000 - 2_000);
    expect(h.lines.find((l) => l.msg.includes('could not record the outcome'))).toMatchObject({ run: id, kind: 'unavailable' });
  });

  it('a write lost to a takeover says so on the run: the error names the lost outcome, not only the lapse', async () => {
    let down = true;
    const seen = { completes: 0 };
    let swept = false;
    const tool = testTool('t', async () => 'done', { crashResumable: false });
    const h = harness({
      jq: tableJq({}),
      tools: [tool],
      settings: { leaseMs: 5_000 },
      stores: flaky(() => down, seen),
      sleep: async (ms, clock) => {
        clock.advance(ms);
        // Redis comes back after the lease lapsed; a scheduler's sweep gets there first.
        if (!swept && clock.now() > (await h.stores.runs.get(id!))!.lease!.until) {
          swept = true;
          await h.stores.runs.sweepLapsed(clock.now(), 10, { maxAttempts: 5, retryDelayMs: 0 });
          down = false;
        }
      },
    });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run?.status).toBe('failed');
    expect(run?.error?.message).toMatch(
      /^attempt 1 ended succeeded but could not write it before its lease was taken over \(redis complete failed: Reached the max retries per request limit \(which is 1\)\); outcome unknown: interrupted after its tool started/,
    );
    expect(run?.history.map((e) => e.event)).toEqual(['kept', 'claimed', 'acted', 'lapsed', 'failed', 'outcome_lost']);
    expect(tool.calls).toHaveLength(1);
  });
});
