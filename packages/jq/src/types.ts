/**
 * Which jq-wasm workers answer the evaluations the compiled path does not:
 * `conditions` (hooks, approval rules, dry runs: the default) or `search`
 * (a reader's run search), which has its own workers and a wait bound, so
 * searches never queue ahead of a hook's evaluation.
 */
export type JqLane = 'conditions' | 'search';

export interface JqRunOptions {
  vars?: Record<string, unknown>;
  timeoutMs?: number;
  /** Steps the in-process evaluation may take before jq-wasm answers it instead (default 50,000, a hook condition's). */
  steps?: number;
  lane?: JqLane;
}

/**
 * jq behind a small interface. Expressions are compiled once and cached;
 * evaluation is time-bounded so a runaway expression (`[range(1e12)]`,
 * `repeat(.)`) is stopped and reported as `bad_input` without blocking others.
 */
export interface JqEngine {
  /** Throws HookyardError `bad_input` quoting jq's message when `expr` does not compile. */
  check(expr: string, varNames?: readonly string[], options?: { lane?: JqLane }): Promise<void>;
  /**
   * Every output of `expr` over `input`. `vars` bind as `$name`. A jq error or a
   * time bound exceeded throws HookyardError `bad_input`; an engine failure
   * throws `internal`; a `search` evaluation that waited its lane's wait
   * bound for a worker throws `unavailable`.
   */
  run(expr: string, input: unknown, options?: JqRunOptions): Promise<unknown[]>;
  close(): Promise<void>;
}

/** A condition matches when its first output is neither `false` nor `null`; no output does not match. */
export function isTruthyOutput(outputs: readonly unknown[]): boolean {
  if (outputs.length === 0) return false;
  const first = outputs[0];
  return first !== false && first !== null && first !== undefined;
}
