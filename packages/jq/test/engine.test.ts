import { HookyardError } from '@hookyard/core';
import type { JqTemplate } from '@hookyard/core';
import { createJqEngine, isTruthyOutput, resolveJqField } from '@hookyard/jq';
import type { HookyardJqEngine } from '@hookyard/jq';

async function errorOf(p: Promise<unknown>): Promise<HookyardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HookyardError) return err;
    throw err;
  }
  throw new Error('expected a HookyardError, got a result');
}

describe('jq engine', () => {
  let engine: HookyardJqEngine;

  beforeAll(async () => {
    engine = await createJqEngine({ timeoutMs: 400, workers: 2 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('returns every output, in order', async () => {
    expect(await engine.run('.a[]', { a: [1, 'x', null] })).toEqual([1, 'x', null]);
    expect(await engine.run('empty', {})).toEqual([]);
    expect(isTruthyOutput(await engine.run('.a == 1', { a: 1 }))).toBe(true);
  });

  it('binds vars as $name on both paths', async () => {
    expect(await engine.run('$x + 1', null, { vars: { x: 41 } })).toEqual([42]);
    // `limit` is outside the compiled subset: jq-wasm gets the same vars.
    expect(await engine.run('[limit(2; $xs[])]', null, { vars: { xs: [1, 2, 3] } })).toEqual([[1, 2]]);
  });

  it('reports a jq runtime error as bad_input quoting jq', async () => {
    const err = await errorOf(engine.run('.a + "x"', { a: 1 }));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain('number (1) and string ("x") cannot be added');
    const thrown = await errorOf(engine.run('error("boom")', null));
    expect(thrown.message).toContain('boom');
  });

  it('check: a syntax error is bad_input with jq compile message; a runtime-only error is not', async () => {
    const err = await errorOf(engine.check('.a +'));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain('syntax error');
    await expect(engine.check('.a.b + "x"')).resolves.toBeUndefined();
    await expect(engine.check('error("only at runtime")')).resolves.toBeUndefined();
    const undefinedVar = await errorOf(engine.check('$who == 1'));
    expect(undefinedVar.message).toContain('$who is not defined');
    await expect(engine.check('$who == 1', ['who'])).resolves.toBeUndefined();
    const unknownFn = await errorOf(engine.check('nosuchfn'));
    expect(unknownFn.message).toContain('nosuchfn/0 is not defined');
  });

  it('run refuses an expression that does not compile', async () => {
    const err = await errorOf(engine.run('{', {}));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain('compile error');
  });

  it.each(['[range(1e12)]', 'repeat(.)', 'def f: f; f'])('stops %s at the time bound while other evaluations still answer', async (runaway) => {
    const stuck = errorOf(engine.run(runaway, 1, { timeoutMs: 300 }));
    // Outside the compiled subset, so these queue on the worker pool beside the runaway.
    const normal = [1, 2, 3, 4, 5].map((n) => engine.run('[limit(1; .[])] | first', [n]));
    const err = await stuck;
    expect(err.kind).toBe('bad_input');
    expect(err.message).toBe('jq expression exceeded its time bound of 300 ms');
    expect(await Promise.all(normal)).toEqual([[1], [2], [3], [4], [5]]);
    // The replaced worker answers too.
    expect(await engine.run('[limit(1; .[])]', [9])).toEqual([[9]]);
  });

  it('answers common conditions in-process and the rest on jq-wasm', async () => {
    const before = engine.stats();
    await engine.run('.x | test("^a")', { x: 'abc' });
    await engine.run('[.[] | tostring] | join(",")', [1, 2]);
    const mid = engine.stats();
    expect(mid.compiled - before.compiled).toBe(2);
    await engine.run('@base64', 'x');
    expect(engine.stats().fallback - mid.fallback).toBe(1);
  });

  it('runs regexes in-process on RE2 (linear time): nested quantifiers and long subjects cannot stall the loop', async () => {
    const evil = 'a'.repeat(40) + '1';
    const before = engine.stats();
    // Catastrophic for a backtracking engine; linear for RE2, so answered in-process at once.
    expect(await engine.run('.x | test("^(a+)+$")', { x: evil })).toEqual([false]);
    expect(await engine.run('.x | test("^a+b")', { x: 'aab' })).toEqual([true]);
    expect(await engine.run('.x | test("a*b")', { x: 'a'.repeat(5000) })).toEqual([false]);
    expect(engine.stats().compiled - before.compiled).toBe(3);
    expect(engine.stats().fallback - before.fallback).toBe(0);
    // Lookarounds are not RE2's: jq-wasm answers.
    expect(await engine.run('.x | test("a(?=b)")', { x: 'ab' })).toEqual([true]);
    expect(engine.stats().fallback - before.fallback).toBe(1);
  });

  it('gives jq-wasm the evaluations the compiled path will not guess about', async () => {
    // jq 1.8 prints parsed numbers in decimal form: 1e-05 computed, 0.00001 parsed.
    expect(await engine.run('.a | tostring', { a: 0.00001 })).toEqual(['0.00001']);
    expect(await engine.run('.a + 0 | tostring', { a: 0.00001 })).toEqual(['1e-05']);
    expect(await engine.run('"\\(1.0)"', null)).toEqual(['1.0']);
  });
});

describe('closing', () => {
  it('fails queued work and refuses new work after close', async () => {
    const engine = await createJqEngine({ workers: 1 });
    await engine.close();
    const err = await errorOf(engine.run('@base64', 'x'));
    expect(err.kind).toBe('internal');
  });
});

describe('resolveJqField', () => {
  const templates: Record<string, JqTemplate> = { is_label: { id: 'is_label', content: '.labels | index($name) != null' } };
  const get = async (id: string) => templates[id] ?? null;

  it('passes inline content through with no vars', async () => {
    expect(await resolveJqField({ content: '.a' }, get)).toEqual({ expr: '.a', vars: {} });
  });

  it('resolves a stored template and binds its kwargs', async () => {
    expect(await resolveJqField({ id: 'is_label', kwargs: { name: 'deploy' } }, get)).toEqual({
      expr: '.labels | index($name) != null',
      vars: { name: 'deploy' },
    });
    expect(await resolveJqField({ id: 'is_label' }, get)).toEqual({ expr: '.labels | index($name) != null', vars: {} });
  });

  it('names an unknown template id', async () => {
    const err = await errorOf(resolveJqField({ id: 'ghost' }, get));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toBe("stored id 'ghost' is not a stored template");
  });

  it('refuses a field that is neither form', async () => {
    const err = await errorOf(resolveJqField({ nope: 1 } as never, get));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain('"nope"');
  });

  it('a resolved template runs with its kwargs', async () => {
    const engine = await createJqEngine({ workers: 1 });
    try {
      const { expr, vars } = await resolveJqField({ id: 'is_label', kwargs: { name: 'deploy' } }, get);
      expect(await engine.run(expr, { labels: ['x', 'deploy'] }, { vars })).toEqual([true]);
    } finally {
      await engine.close();
    }
  });
});

describe('jq engine workers', () => {
  /** Resolves once `check` holds, polling; fails after `timeoutMs`. */
  async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    for (const end = Date.now() + timeoutMs; !check();) {
      if (Date.now() > end) throw new Error('condition not met');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('stop once idle, and the next job that needs one starts one again', async () => {
    const engine = await createJqEngine({ workers: 1, workerIdleMs: 50 });
    try {
      expect(engine.stats().workers).toBe(0);
      // An expression in the compiled subset is checked without one.
      await engine.check('.a == 1');
      expect(engine.stats().workers).toBe(0);
      // One outside it is checked on jq-wasm: that starts a worker.
      await engine.check('[limit(2; .[])]');
      expect(engine.stats().workers).toBe(1);
      await until(() => engine.stats().workers === 0);
      // `limit` is outside the compiled subset: it needs a worker again, and gets one.
      expect(await engine.run('[limit(2; .[])]', [1, 2, 3])).toEqual([[1, 2]]);
      await until(() => engine.stats().workers === 0);
    } finally {
      await engine.close();
    }
  });

  it('keeps a busy worker', async () => {
    const engine = await createJqEngine({ workers: 1, workerIdleMs: 50, timeoutMs: 5000 });
    try {
      // Runs well past the idle bound: the worker must not be stopped under it.
      const slow = engine.run('[range(0; 3000000)] | length', null);
      await until(() => engine.stats().workers === 1);
      expect(await slow).toEqual([3000000]);
    } finally {
      await engine.close();
    }
  });
});
