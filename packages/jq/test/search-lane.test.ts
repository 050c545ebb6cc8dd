import { HookyardError } from '@hookyard/core';
import { createJqEngine } from '@hookyard/jq';

/**
 * The `search` lane (a reader's run search) has its own jq-wasm workers and a
 * wait bound: its escapes never queue ahead of a hook's evaluation, and never
 * queue without end behind each other. Ordering, not timing: each test holds a
 * worker with a runaway evaluation whose time bound is far away and checks
 * what answers while it still runs.
 */
describe('jq engine search lane', () => {
  /** Outside the compiled subset: always answered on jq-wasm. */
  const WASM_ONLY = '@base64';
  /** Holds its worker until its time bound (or close). */
  const RUNAWAY = 'last(range(1e12))';

  type Outcome<T> = { ok: true; value: T } | { ok: false; err: HookyardError };

  /** The promise's outcome, and whether it has settled yet (read synchronously). */
  function watch<T>(p: Promise<T>): { settled: boolean; outcome: Promise<Outcome<T>> } {
    const state = { settled: false };
    const outcome = p.then(
      (value): Outcome<T> => ((state.settled = true), { ok: true, value }),
      (err: unknown): Outcome<T> => ((state.settled = true), { ok: false, err: err as HookyardError }),
    );
    return Object.assign(state, { outcome });
  }

  it('a search escape cannot hold up a hook condition: the search lane has its own worker', async () => {
    const engine = await createJqEngine({ workers: 1, timeoutMs: 60_000 });
    try {
      await engine.check(RUNAWAY, [], { lane: 'search' });
      const hog = watch(engine.run(RUNAWAY, null, { lane: 'search' }));
      const condition = await engine.run(WASM_ONLY, 'x');
      expect(condition).toEqual(['eA==']);
      // Answered by the conditions lane while the search's runaway still holds the only search worker.
      expect(hog.settled).toBe(false);
      expect(engine.stats()).toMatchObject({ workers: 1, searchWorkers: 1 });
    } finally {
      await engine.close();
    }
  });

  it('a search evaluation that waits past the search wait bound is refused (unavailable) naming it; the conditions lane is untouched', async () => {
    const engine = await createJqEngine({ workers: 1, searchWorkers: 1, searchWaitMs: 300, timeoutMs: 60_000 });
    try {
      // Start the search worker and cache both expressions first: the bound then counts queueing only.
      expect(await engine.run(WASM_ONLY, 'x', { lane: 'search' })).toEqual(['eA==']);
      await engine.check(RUNAWAY, [], { lane: 'search' });
      const hog = watch(engine.run(RUNAWAY, null, { lane: 'search' }));
      const queued = await watch(engine.run(WASM_ONLY, 'y', { lane: 'search' })).outcome;
      expect(queued.ok).toBe(false);
      const err = (queued as { err: HookyardError }).err;
      expect(err).toBeInstanceOf(HookyardError);
      expect(err.kind).toBe('unavailable');
      expect(err.message).toMatch(/jq-wasm workers of run searches are busy: an evaluation waited 300 ms for one \(the search wait bound\)/);
      expect(hog.settled).toBe(false);
      // Hook evaluations are not bounded by it: they have their own worker.
      expect(await engine.run(WASM_ONLY, 'z')).toEqual(['eg==']);
    } finally {
      await engine.close();
    }
  });

  it('a search evaluation spends its own step budget in-process, then goes to jq-wasm', async () => {
    const engine = await createJqEngine({ workers: 1 });
    try {
      const expr = '[.[] | . + 1] | length';
      const input = Array.from({ length: 2000 }, (_, i) => i);
      await engine.check(expr);
      const before = engine.stats();
      expect(await engine.run(expr, input)).toEqual([2000]);
      expect(engine.stats().compiled - before.compiled).toBe(1);
      expect(await engine.run(expr, input, { lane: 'search', steps: 500 })).toEqual([2000]);
      expect(engine.stats().fallback - before.fallback).toBe(1);
      // Answered by the search lane's own worker.
      expect(engine.stats().searchWorkers).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
