import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { measure } = require('./hostile-mix.js') as {
  measure(engine: HookyardJqEngine, rounds?: number): Promise<{ longestStallMs: number; outcomes: Record<string, string> }>;
};

/**
 * Hostile conditions must never hold the event loop: an executor renews its
 * leases from the same loop (every HOOKS_RUN_LEASE_SECONDS/6, 5 s by
 * default), so a stall of that length lets other runs' leases lapse. Before
 * the step budget and RE2 the optional-atoms regex alone stalled V8 for over
 * 30 s and the nested `any` for hundreds of ms per evaluation.
 */
describe('the hostile jq mix', () => {
  let engine: HookyardJqEngine;
  beforeAll(async () => {
    engine = await createJqEngine({ workers: 1, timeoutMs: 1000 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('keeps the event loop turning (heartbeats, as lease renewals, never wait a renewal interval)', async () => {
    const { longestStallMs, outcomes } = await measure(engine, 2);
    // eslint-disable-next-line no-console
    console.log(`hostile mix: longest event-loop stall ${longestStallMs} ms; ${JSON.stringify(outcomes)}`);
    expect(longestStallMs).toBeLessThan(5000);
    // The regex is answered (linearly, in-process); the others by jq-wasm within its time bound or with its answer.
    expect(outcomes['optional-atoms']).toBe('[false]');
    for (const name of ['pattern-from-payload', 'pattern-from-payload-field', 'nested-any']) {
      expect(outcomes[name]).toMatch(
        /^(\[false\]|bad_input: jq expression exceeded its time bound of 1000 ms|bad_input: jq: error: Regex failure: retry-limit-in-match over)$/,
      );
    }
  });

  it('never compiles a pattern that comes from the data', async () => {
    const before = engine.stats();
    expect(await engine.run('.s | test($re)', { s: 'abc' }, { vars: { re: '^a' } })).toEqual([true]);
    expect(await engine.run('.s | test(.re)?', { s: 'abc', re: 'b' })).toEqual([]);
    expect(await engine.run('.s | test("^a"; $f)', { s: 'ABC' }, { vars: { f: 'i' } })).toEqual([true]);
    const after = engine.stats();
    expect(after.fallback - before.fallback).toBe(3);
    expect(after.compiled - before.compiled).toBe(0);
    expect(await engine.run('.s | test("^a"; "i")', { s: 'ABC' })).toEqual([true]);
    expect(engine.stats().compiled - after.compiled).toBe(1);
  });

  it('hands an evaluation past the step budget to jq-wasm, which answers as jq does', async () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const before = engine.stats();
    // 1000 x 1000 comparisons: past the budget, so answered by a worker (given a generous bound here).
    expect(await engine.run('. as $d | [$d[] | select(. as $x | $d | any(. == $x + 999))] | length', xs, { timeoutMs: 60_000 })).toEqual([1]);
    expect(engine.stats().fallback - before.fallback).toBe(1);
    // A small one stays in-process.
    expect(await engine.run('. as $d | any($d[]; . == 2)', [1, 2, 3])).toEqual([true]);
    expect(engine.stats().compiled - before.compiled).toBe(1);
  }, 120_000);

  it('ends a memory-hungry expression as bad_input "memory bound exceeded" (one line), and the engine goes on', async () => {
    const err = await engine.run('[range(1e8)] | length', null, { timeoutMs: 150_000 }).then(
      () => undefined,
      (e: unknown) => e as { kind: string; message: string },
    );
    expect(err).toMatchObject({ kind: 'bad_input', message: 'memory bound exceeded' });
    expect(await engine.run('[range(3)] | length', null)).toEqual([3]);
  }, 200_000);
});
