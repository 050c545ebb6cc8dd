import { tidyJqMessage } from '../src/message';
import { loadJq } from 'jq-wasm';
import { compileJq, createJqEngine } from '@hookyard/jq';
import type { HookyardJqEngine } from '@hookyard/jq';
import { CONDITION, HAND_EXPRS, PAYLOADS, PULL_REQUEST, generatedCases } from './differential-cases';
import type { Case } from './differential-cases';

/**
 * Every pair is evaluated by the compiled path and by jq-wasm (jq 1.8.2): the
 * outputs (key order and -0 included) and error/no-error must agree. Where the
 * compiled path declines a value ("ask jq-wasm") the engine is checked instead;
 * error messages are checked through the engine, which must quote jq exactly.
 */

type Outcome = { ok: true; outputs: unknown[] } | { ok: false; message: string };

/** Distinguishes what toEqual would not: key order and -0. */
function canon(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'number' && Object.is(x, -0) ? '@-0' : x)) ?? 'undefined';
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.ok !== b.ok) return false;
  if (a.ok && b.ok) return canon(a.outputs) === canon(b.outputs);
  return !a.ok && !b.ok && a.message === b.message;
}

function allCases(): Case[] {
  const cases: Case[] = [];
  for (const expr of HAND_EXPRS) for (const input of PAYLOADS) cases.push({ expr, input });
  const pr = PULL_REQUEST;
  for (const input of [
    pr,
    { ...pr, action: 'closed' },
    { ...pr, pull_request: { ...pr.pull_request, labels: [{ name: 'bug' }] } },
    { ...pr, repository: { ...pr.repository, full_name: 'other/widgets' } },
    { ...pr, pull_request: { ...pr.pull_request, labels: null } },
    {},
  ]) {
    cases.push({ expr: CONDITION, input });
  }
  cases.push(...generatedCases(1200, 20240617));
  return cases;
}

describe('compiled jq agrees with jq 1.8 (jq-wasm)', () => {
  let engine: HookyardJqEngine;
  beforeAll(async () => {
    engine = await createJqEngine({ workers: 1, timeoutMs: 5000 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('on every pair: outputs, error/no-error and messages', async () => {
    const jq = await loadJq();
    const reference = (c: Case): Outcome => {
      try {
        return { ok: true, outputs: jq.json(JSON.stringify(c.input), c.expr) };
      } catch (err) {
        return { ok: false, message: tidyJqMessage(String((err as { stderr?: string }).stderr ?? err)) };
      }
    };
    const cases = allCases();
    const counts = { pairs: cases.length, compiled: 0, compiledErrors: 0, declinedValue: 0, notCompiled: 0, compileErrors: 0 };
    const mismatches: string[] = [];
    const viaEngine: { c: Case; want: Outcome }[] = [];

    for (const c of cases) {
      const want = reference(c);
      if (!want.ok && want.message.includes('compile error')) {
        counts.compileErrors++;
        continue; // the engine refuses these before the compiler sees them
      }
      const program = compileJq(c.expr, []);
      if (!program) {
        counts.notCompiled++;
        viaEngine.push({ c, want });
        continue;
      }
      let got: Outcome | 'declined';
      try {
        got = { ok: true, outputs: program.run(JSON.parse(JSON.stringify(c.input)), []) };
      } catch (err) {
        if (!program.isSignal(err)) throw err;
        got = err instanceof Error && err.constructor.name === 'Fallback' ? 'declined' : { ok: false, message: '(compiled error)' };
      }
      if (got === 'declined') {
        counts.declinedValue++;
        viaEngine.push({ c, want });
      } else if (got.ok) {
        counts.compiled++;
        if (!sameOutcome(got, want)) mismatches.push(`${c.expr} on ${canon(c.input)}: compiled ${canon(got)} vs jq ${canon(want)}`);
      } else {
        counts.compiledErrors++;
        if (want.ok) mismatches.push(`${c.expr} on ${canon(c.input)}: compiled raised, jq gave ${canon(want.outputs)}`);
        // Messages come from re-running on jq-wasm; a sample through the engine keeps the test quick.
        if (counts.compiledErrors % 5 === 1) viaEngine.push({ c, want });
      }
    }

    // Through the engine: fallbacks answer like jq, and error messages are jq's own.
    for (const { c, want } of viaEngine) {
      let got: Outcome;
      try {
        got = { ok: true, outputs: await engine.run(c.expr, c.input) };
      } catch (err) {
        got = { ok: false, message: (err as Error).message };
      }
      if (!sameOutcome(got, want)) mismatches.push(`engine: ${c.expr} on ${canon(c.input)}: ${canon(got)} vs jq ${canon(want)}`);
    }

    // eslint-disable-next-line no-console
    console.log(`differential: ${JSON.stringify(counts)}`);
    expect(mismatches).toEqual([]);
    expect(counts.pairs).toBeGreaterThanOrEqual(1000);
    // Most pairs must actually exercise the compiled path, or the test proves little.
    expect(counts.compiled + counts.compiledErrors).toBeGreaterThan(counts.pairs / 2);
  }, 300_000); // thousands of jq-wasm evaluations: minutes on a starved machine, seconds on a quiet one
});
