import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { HookyardError, badInput, unavailable } from '@hookyard/core';
import type { Logger } from '@hookyard/core';
import { compileJq } from './compile';
import type { CompiledProgram } from './compile';
import { DEFAULT_WORKER_IDLE_MS, JqWorkerPool } from './pool';
import type { JqEngine, JqLane } from './types';

/** Default time bound of one jq-wasm evaluation, in ms. */
export const DEFAULT_JQ_TIMEOUT_MS = 1000;
/** How many prepared expressions stay cached before the oldest is dropped. */
const CACHE_LIMIT = 2000;

export interface JqEngineOptions {
  /** Time bound of one evaluation on jq-wasm, in ms (default 1000). */
  timeoutMs?: number;
  /** jq-wasm worker threads (default 1 or 2, leaving a core to the caller). */
  workers?: number;
  /** How long a jq-wasm worker waits for work before it stops, in ms (default 30000; the next job starts one). */
  workerIdleMs?: number;
  /** jq-wasm worker threads of the `search` lane (default 1): apart from the ones hook conditions use. */
  searchWorkers?: number;
  /** How long a `search` evaluation waits for a search worker before it is refused (`unavailable`), in ms (default: timeoutMs). */
  searchWaitMs?: number;
  logger?: Logger;
}

/** How evaluations were answered, for tests and benchmarks. */
export interface JqEngineStats {
  /** Answered by the in-process compiler. */
  compiled: number;
  /** Answered by jq-wasm: expression outside the subset, a value the compiler will not guess about, or an error. */
  fallback: number;
  /** jq-wasm workers alive now (the conditions lane). */
  workers: number;
  /** jq-wasm workers of the search lane alive now. */
  searchWorkers: number;
}

/** A JqEngine that also reports how evaluations were answered. */
export interface HookyardJqEngine extends JqEngine {
  stats(): JqEngineStats;
}

const NO_VARS: Record<string, unknown> = Object.freeze({});
const NO_NAMES: readonly string[] = Object.freeze([]);

interface Prepared {
  /** jq's compile error, when the expression does not compile. */
  error?: HookyardError;
  /** The in-process form; null when the expression is outside the compiled subset. */
  program: CompiledProgram | null;
}

function cacheKey(expr: string, names: readonly string[]): string {
  // Without vars the caller's own string is the key: its hash is cached, the hot path stays cheap.
  return names.length === 0 ? expr : `${names.join(',')}\u0000${expr}`;
}

function varPairs(names: readonly string[], vars: Record<string, unknown>): [string, string][] {
  return names.map((n) => [n, JSON.stringify(vars[n]) ?? 'null']);
}

/**
 * The compiled form when the expression is in the subset, else null (jq-wasm checks it). jq's command line
 * reads an expression that starts with `-` as an option, so jq-wasm's answer decides those; and an expression
 * the parser cannot take whole (too deep for its stack, say) is jq-wasm's too.
 */
export function compiledOrNull(expr: string, names: readonly string[]): CompiledProgram | null {
  if (expr.startsWith('-')) return null;
  try {
    return compileJq(expr, names);
  } catch {
    return null;
  }
}

/** The global WebAssembly namespace; our lib settings carry no DOM types, so typed by hand. */
const wasmApi = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }).WebAssembly;

function loadWasmModule(logger?: Logger): object | undefined {
  try {
    // Compiled once here and shared, so a replaced worker starts in milliseconds.
    return new wasmApi.Module(readFileSync(require.resolve('jq-wasm/jq.wasm')));
  } catch (err) {
    logger?.warn({ err }, 'jq.wasm not precompiled; each worker loads its own');
    return undefined;
  }
}

/**
 * jq with a compiled fast path: expressions in the common subset run in-process
 * as JavaScript closures; everything else — and every evaluation the compiled
 * path cannot answer with certainty, errors included — runs on jq-wasm in a
 * pool of worker threads under a time bound. Compile results are cached.
 * Run searches (lane `search`) have their own, smaller pool with a wait bound.
 */
export async function createJqEngine(options: JqEngineOptions = {}): Promise<HookyardJqEngine> {
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_JQ_TIMEOUT_MS;
  if (!(defaultTimeoutMs > 0)) throw badInput(`jq timeoutMs must be a positive number of ms; got ${defaultTimeoutMs}`);
  const size = options.workers ?? Math.min(2, Math.max(1, availableParallelism() - 1));
  if (!Number.isInteger(size) || size < 1) throw badInput(`jq workers must be a positive integer; got ${size}`);
  const logger = options.logger;
  const idleMs = options.workerIdleMs ?? DEFAULT_WORKER_IDLE_MS;
  if (!(idleMs > 0)) throw badInput(`jq workerIdleMs must be a positive number of ms; got ${idleMs}`);
  const searchSize = options.searchWorkers ?? 1;
  if (!Number.isInteger(searchSize) || searchSize < 1) throw badInput(`jq searchWorkers must be a positive integer; got ${searchSize}`);
  const searchWaitMs = options.searchWaitMs ?? defaultTimeoutMs;
  if (!(searchWaitMs > 0)) throw badInput(`jq searchWaitMs must be a positive number of ms; got ${searchWaitMs}`);
  // Compiled when the first worker starts, not here: most roles never start one (the compiled path answers
  // their conditions), and the compiled module holds a few MiB of machine code in the process.
  let wasmModule: { module: object | undefined } | undefined;
  const wasm = () => (wasmModule ??= { module: loadWasmModule(logger) }).module;
  const pools: Record<JqLane, JqWorkerPool> = {
    conditions: new JqWorkerPool(size, wasm, logger, idleMs),
    // A reader's search gets its own workers, so it never queues ahead of a hook's evaluation; and
    // it waits at most searchWaitMs for one, so searches do not pile up behind each other either.
    search: new JqWorkerPool(searchSize, wasm, logger, idleMs, {
      ms: searchWaitMs,
      refusal: (ms) =>
        unavailable(
          `the jq-wasm workers of run searches are busy: an evaluation waited ${ms} ms for one (the search wait bound); retry later, or narrow the search (status, hook, topic, since) or simplify where`,
        ),
    }),
  };
  const ready = new Map<string, Prepared>();
  const preparing = new Map<string, Promise<Prepared>>();
  const stats = { compiled: 0, fallback: 0 };

  function keep(key: string, prepared: Prepared): Prepared {
    if (ready.size >= CACHE_LIMIT) ready.delete(ready.keys().next().value as string);
    ready.set(key, prepared);
    return prepared;
  }

  /** An expression the compiled path declined (`prepare` tried it first): jq-wasm checks it, and runs it. */
  async function prepareSlow(expr: string, names: readonly string[], key: string, lane: JqLane): Promise<Prepared> {
    let prepared: Prepared;
    try {
      // jq-wasm decides what compiles, so syntax errors and their messages are jq's own.
      await pools[lane].run({ op: 'check', expr, vars: names.map((n) => [n, 'null']) }, defaultTimeoutMs);
      prepared = { program: null };
    } catch (err) {
      if (!(err instanceof HookyardError) || err.kind !== 'bad_input') throw err;
      prepared = { error: err, program: null };
    }
    return keep(key, prepared);
  }

  function prepare(expr: string, names: readonly string[], lane: JqLane): Prepared | Promise<Prepared> {
    if (typeof expr !== 'string') throw badInput(`a jq expression must be a string; got ${typeof expr}`);
    const key = cacheKey(expr, names);
    const hit = ready.get(key);
    if (hit) return hit;
    // An expression in the compiled subset needs no jq-wasm to be checked: the parser takes only jq's own
    // grammar and leaves to jq-wasm whatever jq could still refuse (test/jq-accepts.test.ts holds it to that).
    // So a role whose conditions are all in the subset never starts a jq-wasm worker (about 25 MiB).
    const program = compiledOrNull(expr, names);
    if (program) return keep(key, { program });
    // Per lane: a hook's check never waits on (nor fails with) a search's bounded wait.
    const waitKey = lane === 'conditions' ? key : `search\u0001${key}`;
    let pending = preparing.get(waitKey);
    if (!pending) {
      pending = prepareSlow(expr, names, key, lane).finally(() => preparing.delete(waitKey));
      preparing.set(waitKey, pending);
    }
    return pending;
  }

  async function runOnWasm(expr: string, input: unknown, names: readonly string[], vars: Record<string, unknown>, timeoutMs: number, lane: JqLane) {
    stats.fallback++;
    const text = JSON.stringify(input) ?? 'null';
    return pools[lane].run({ op: 'run', expr, input: text, vars: varPairs(names, vars) }, timeoutMs);
  }

  return {
    async check(expr, varNames = [], checkOptions = {}) {
      const prepared = await prepare(expr, [...varNames].sort(), checkOptions.lane ?? 'conditions');
      if (prepared.error) throw prepared.error;
    },

    async run(expr, input, runOptions = {}) {
      const vars = runOptions.vars ?? NO_VARS;
      const names = vars === NO_VARS ? NO_NAMES : Object.keys(vars).sort();
      const timeoutMs = runOptions.timeoutMs ?? defaultTimeoutMs;
      const lane = runOptions.lane ?? 'conditions';
      const got = prepare(expr, names, lane);
      const prepared = got instanceof Promise ? await got : got;
      if (prepared.error) throw prepared.error;
      const program = prepared.program;
      if (program) {
        try {
          // jq-wasm receives vars as JSON, where undefined becomes null: so does the compiled path.
          const outputs = program.run(input, names.length === 0 ? NO_NAMES : names.map((n) => vars[n] ?? null), runOptions.steps);
          stats.compiled++;
          return outputs;
        } catch (err) {
          // jq errors, values the compiler will not guess about, and (never expected)
          // compiler bugs: jq-wasm answers, so outputs and messages are always jq's.
          if (!program.isSignal(err)) logger?.warn({ err, expr }, 'compiled jq failed unexpectedly; answered by jq-wasm');
        }
      }
      return runOnWasm(expr, input, names, vars, timeoutMs, lane);
    },

    stats: () => ({ ...stats, workers: pools.conditions.workerCount(), searchWorkers: pools.search.workerCount() }),

    async close() {
      await Promise.all([pools.conditions.close(), pools.search.close()]);
    },
  };
}
