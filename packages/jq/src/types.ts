/**
 * jq behind a small interface. Expressions are compiled once and cached;
 * evaluation is time-bounded so a runaway expression (`[range(1e12)]`,
 * `repeat(.)`) is stopped and reported as `bad_input` without blocking others.
 */
export interface JqEngine {
  /** Throws HookyardError `bad_input` quoting jq's message when `expr` does not compile. */
  check(expr: string, varNames?: readonly string[]): Promise<void>;
  /**
   * Every output of `expr` over `input`. `vars` bind as `$name`. A jq error or a
   * time bound exceeded throws HookyardError `bad_input`; an engine failure
   * throws `internal`.
   */
  run(expr: string, input: unknown, options?: { vars?: Record<string, unknown>; timeoutMs?: number }): Promise<unknown[]>;
  close(): Promise<void>;
}

/** A condition matches when its first output is neither `false` nor `null`; no output does not match. */
export function isTruthyOutput(outputs: readonly unknown[]): boolean {
  if (outputs.length === 0) return false;
  const first = outputs[0];
  return first !== false && first !== null && first !== undefined;
}
