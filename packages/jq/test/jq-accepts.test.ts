import { loadJq } from 'jq-wasm';
import { createJqEngine } from '@hookyard/jq';
import { compiledOrNull } from '../src/engine';
import { CONDITION, HAND_EXPRS, generatedCases } from './differential-cases';
import { SUITE_FILES, suiteGroups } from './jq-suite-file';

/**
 * The engine checks an expression in the compiled subset without jq-wasm
 * (no worker thread, no compiled jq.wasm in the process), so the compiled
 * parser must never take an expression jq itself refuses to compile. The
 * oracle is jq 1.8.2 (jq-wasm): every program of jq's own test suite (its
 * %%FAIL programs, which jq must refuse, included), the differential cases,
 * and seeded mutants of each (a character dropped, a token put in, a span cut)
 * — whatever the compiled path takes, jq compiles.
 */

function suitePrograms(): string[] {
  // A %%FAIL group is the line, the program jq refuses, then jq's message.
  return SUITE_FILES.flatMap((file) => suiteGroups(file).map(({ lines }) => (lines[0]!.startsWith('%%FAIL') ? lines[1]! : lines[0]!)));
}

const TOKENS = [
  '.',
  '|',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ':',
  ';',
  '$x',
  '$__loc__',
  'as',
  'end',
  'if',
  'then',
  'else',
  'elif',
  '"',
  '\\',
  '?',
  '//',
  'and',
  'or',
  'not',
  '==',
  '=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '..',
  '.a',
  'reduce',
  'foreach',
  'def',
  'try',
  'catch',
  ' ',
  '1',
  '1e',
  '.5',
  'null',
  'true',
  '@base64',
  '\\(',
  '#',
  'label',
  'length(',
  'select',
  '$',
  '@',
  '(0)',
  '(true)',
  '(null)',
  '([])',
];

/** A seeded linear congruential generator: the same mutants on every run. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function mutants(program: string, rnd: () => number, count: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    let s = program;
    for (let edits = 1 + Math.floor(rnd() * 2); edits > 0; edits--) {
      const i = Math.floor(rnd() * (s.length + 1));
      const r = rnd();
      if (r < 0.33) s = s.slice(0, i) + s.slice(i + 1);
      else if (r < 0.66) s = s.slice(0, i) + TOKENS[Math.floor(rnd() * TOKENS.length)]! + s.slice(i);
      else s = s.slice(0, i) + s.slice(Math.min(s.length, i + 1 + Math.floor(rnd() * 4)));
    }
    out.push(s);
  }
  return out;
}

describe('what the compiled path takes, jq compiles', () => {
  it('no expression the compiled parser takes is one jq refuses (jq suite, its %%FAIL programs, differential cases, seeded mutants)', async () => {
    const jq = await loadJq();
    const jqCompiles = (expr: string) => {
      // Empty input: jq compiles the program, then finds no input to run it on (as the engine's check does).
      const res = jq.raw('', expr, []);
      return res.exitCode === 0 || res.stderr === '';
    };
    const programs = [...new Set([...suitePrograms(), ...HAND_EXPRS, CONDITION, ...generatedCases(2000, 42).map((c) => c.expr)])];
    const rnd = seeded(7);
    let tried = 0;
    let taken = 0;
    let refusedByJq = 0;
    const wrong: string[] = [];
    for (const program of programs) {
      for (const expr of [program, ...mutants(program, rnd, 10)]) {
        tried++;
        if (!compiledOrNull(expr, [])) {
          continue;
        }
        taken++;
        if (!jqCompiles(expr)) wrong.push(`${JSON.stringify(expr)}: ${jq.raw('', expr, []).stderr.trim().split('\n')[0]}`);
      }
    }
    for (const expr of programs) if (!jqCompiles(expr)) refusedByJq++;
    // eslint-disable-next-line no-console
    console.log(`jq accepts: ${tried} expressions, ${taken} taken by the compiled path, ${refusedByJq} of the unmutated ones refused by jq`);
    expect(wrong).toEqual([]);
    // The corpus does reach both sides: many taken, and refusals among the programs themselves.
    expect(taken).toBeGreaterThan(3000);
    expect(refusedByJq).toBeGreaterThan(15);
  }, 120_000);

  it.each(['{(0):1}', '{a:., (0):1}', '{(true):1}', '{(null):1}', '{(1+2):3}', '{([]):1}', '{({}):1}', '-1', '--arg'])(
    'leaves to jq-wasm an expression jq may refuse before it runs: %s',
    (expr) => {
      expect(compiledOrNull(expr, [])).toBeNull();
    },
  );

  it('a check in the subset starts no jq-wasm worker; one outside it, or an error, does and quotes jq', async () => {
    const engine = await createJqEngine();
    try {
      for (const expr of [CONDITION, '.a == 1', '{(.name): .value}', '$who == "x"']) await engine.check(expr, expr.includes('$who') ? ['who'] : []);
      expect(engine.stats().workers).toBe(0);
      await expect(engine.run('.a == 1', { a: 1 })).resolves.toEqual([true]);
      expect(engine.stats().workers).toBe(0);
      await expect(engine.check('{(0):1}')).rejects.toThrow('Cannot use number (0) as object key');
      expect(engine.stats().workers).toBe(1);
      await expect(engine.check('.a +')).rejects.toThrow('syntax error');
    } finally {
      await engine.close();
    }
  });
});
