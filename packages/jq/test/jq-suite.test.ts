import { loadJq } from 'jq-wasm';
import { compileJq } from '@hookyard/jq';
import { SUITE_FILES, suiteGroups } from './jq-suite-file';

/**
 * jq's own test suite (jq 1.8.2: tests/jq.test, onig.test, man.test, vendored
 * under fixtures/) as the oracle of the compiled path. For every test, jq-wasm
 * (jq 1.8.2 itself) answers, and so does the compiled path where it compiles
 * the program; no compiled answer may differ from jq-wasm's (a program or
 * value it does not support must fall back, never differ). The counts are
 * printed: tests passing on jq-wasm alone, and on the compiled path.
 */

interface SuiteCase {
  file: string;
  line: number;
  program: string;
  input: string;
  expected: string[];
}

/** Groups of program, input, expected outputs; %%FAIL groups (program, error) are jq's compile errors, not the compiler's business. */
function parseSuite(file: string): SuiteCase[] {
  const out: SuiteCase[] = [];
  for (const { line, lines: group } of suiteGroups(file)) {
    if (group[0]!.startsWith('%%FAIL')) continue;
    if (group.length >= 2) out.push({ file, line, program: group[0]!, input: group[1]!, expected: group.slice(2) });
  }
  return out;
}

const canon = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'number' && Object.is(x, -0) ? '@-0' : x)) ?? 'undefined';

describe("jq's own test suite (1.8.2)", () => {
  it('compiled answers never differ from jq; pass counts next to jq-wasm alone', async () => {
    let jq = await loadJq();
    const counts: Record<string, { tests: number; wasmPass: number; compiled: number; compiledPass: number; fellBack: number }> = {};
    const mismatches: string[] = [];
    for (const file of SUITE_FILES) {
      const c = (counts[file] = { tests: 0, wasmPass: 0, compiled: 0, compiledPass: 0, fellBack: 0 });
      for (const t of parseSuite(file)) {
        c.tests++;
        let input: unknown;
        let expected: unknown[];
        try {
          input = JSON.parse(t.input);
          expected = t.expected.map((e) => JSON.parse(e) as unknown);
        } catch {
          continue; // inputs or outputs that are jq literals, not JSON (nan, several values...): not comparable here
        }
        let wasm: { ok: true; out: unknown[] } | { ok: false };
        try {
          wasm = { ok: true, out: jq.json<unknown[]>(t.input, t.program, ['-c']) };
        } catch (err) {
          wasm = { ok: false };
          // A test that exhausts jq-wasm (a WebAssembly abort) leaves the instance unusable: a fresh one for the next.
          if ((err as Error).name !== 'JqError') jq = await loadJq();
        }
        if (wasm.ok && canon(wasm.out) === canon(expected)) c.wasmPass++;
        const program = (() => {
          try {
            return compileJq(t.program, []);
          } catch {
            return null;
          }
        })();
        if (!program) continue;
        let got: unknown[] | 'error' | 'fallback';
        try {
          got = program.run(input, []);
        } catch (err) {
          if (!program.isSignal(err)) got = 'error';
          else got = (err as Error).constructor.name === 'Fallback' ? 'fallback' : 'error';
        }
        if (got === 'fallback') {
          c.fellBack++;
          continue;
        }
        c.compiled++;
        if (got !== 'error' && canon(got) === canon(expected)) c.compiledPass++;
        const same = got === 'error' ? !wasm.ok : wasm.ok && canon(got) === canon(wasm.out);
        if (!same)
          mismatches.push(
            `${t.file}:${t.line} ${t.program} on ${t.input}: compiled ${got === 'error' ? 'raised' : canon(got)}, jq ${wasm.ok ? canon(wasm.out) : 'raised'}`,
          );
      }
    }
    // eslint-disable-next-line no-console
    console.log(`jq suite: ${JSON.stringify(counts)}`);
    expect(mismatches).toEqual([]);
  }, 300_000);
});
