import { Unsupported } from './ast';
import { compileNode, isSignal } from './codegen';
import { parseJq } from './parser';
import { startBudget } from './values';

/** An expression compiled to JavaScript closures. */
export interface CompiledProgram {
  /**
   * Every output over `input`, with `vars` in the slot order given at compile
   * time. Throws a signal (see `isSignal`) when jq would raise an error or when
   * the answer must come from jq-wasm (past `steps`, default STEP_BUDGET, too).
   */
  run(input: unknown, vars: readonly unknown[], steps?: number): unknown[];
  /** True for the two expected throws of `run`: a jq error, or "ask jq-wasm". */
  isSignal(err: unknown): boolean;
}

/**
 * The compiled form of `expr` with `varNames` bound as `$name` (in that order),
 * or null when the expression uses anything outside the compiled subset or
 * does not parse (it reports no syntax error: jq-wasm does). What it compiles,
 * jq compiles too (test/jq-accepts.test.ts).
 */
export function compileJq(expr: string, varNames: readonly string[]): CompiledProgram | null {
  let compiled;
  let slots: number;
  try {
    const parsed = parseJq(expr, varNames);
    slots = parsed.slots;
    compiled = compileNode(parsed.node);
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
  const { val, gen } = compiled;
  const envFor = (vars: readonly unknown[]): unknown[] => {
    const env = vars.slice();
    env.length = slots;
    return env;
  };
  return {
    run: val
      ? (input, vars, steps) => {
          startBudget(steps);
          return [val(input, envFor(vars))];
        }
      : (input, vars, steps) => {
          startBudget(steps);
          const out: unknown[] = [];
          gen(input, envFor(vars), (v) => out.push(v));
          return out;
        },
    isSignal,
  };
}
