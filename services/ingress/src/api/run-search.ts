import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { badInput, compileErrorLines, toHookyardError, type Clock, type Run } from '@hookyard/core';
import { isTruthyOutput, type JqEngine } from '@hookyard/jq';
import type { RunFilter, RunStore } from '@hookyard/store';

/** The most runs one `?where=` request reads (the default of `scan`). */
export const SEARCH_SCAN_MAX = 5000;
/** The most time one `?where=` request spends reading and evaluating, in ms: the window is cut there too. */
export const SEARCH_TIME_BUDGET_MS = 3000;
/** The longest `where` expression, in characters (as a topic's dedupe key). */
export const SEARCH_EXPR_MAX_LENGTH = 4096;
/** Runs read from the store per round of a scan. */
const SCAN_CHUNK = 250;
/**
 * The longest a scan runs before it lets the event loop serve everything else
 * (the door, /healthz, hook work in the same process), in ms. The memory store
 * and the compiled jq path do no I/O, so without these yields a scan would hold
 * the loop for its whole time budget.
 */
export const SEARCH_SLICE_MS = 4;

/**
 * What a `where` expression sees for each run: what the run carries (its
 * event's payload, the tool's result, the error) and the fields that say
 * what it is. Built fresh per run; payload and result are the run's parsed
 * JSON values.
 */
export function searchInput(run: Run): Record<string, unknown> {
  return {
    payload: run.payload,
    result: run.result ?? null,
    error: run.error,
    hook: run.hook,
    topic: run.topic,
    status: run.status,
    door: run.door,
    verified: run.verified,
    delivery_id: run.delivery_id,
    event_id: run.id.slice(0, 24),
    attempts: run.attempts,
    created_at: run.created_at,
  };
}

/**
 * At most one `where` scan per token at a time: a reader with one token can
 * keep one scan's worth of the process busy, not as many as it opens
 * connections. `take` answers the release (idempotent), or null when the
 * token's scan is still running.
 */
export class ScanSlots {
  private readonly running = new Set<string>();

  take(caller: string): (() => void) | null {
    if (this.running.has(caller)) return null;
    this.running.add(caller);
    let held = true;
    return () => {
      if (held) this.running.delete(caller);
      held = false;
    };
  }
}

/** The scan's account: how far it read, and whether the window was cut before the end of the runs. */
export interface ScanReport {
  /** Runs read and evaluated by this request. */
  scanned: number;
  /** Runs the expression matched (the runs answered). */
  matched: number;
  /** True when the scan stopped at its bound (`scan` runs or the time budget) with runs left unread: continue with `next_cursor`. */
  cut: boolean;
  /** Runs on which the expression raised a jq error (they do not match). */
  errors: number;
  /** The first such error: the run and jq's message. */
  first_error?: { run: string; message: string };
}

export interface SearchResult {
  runs: Run[];
  nextCursor: string | null;
  scan: ScanReport;
}

/** Compiles `where` (no variables): a 400 quoting the expression and jq's message when it does not. */
export async function checkWhere(jq: JqEngine, where: string): Promise<void> {
  try {
    await jq.check(where, [], { lane: 'search' });
  } catch (err) {
    const e = toHookyardError(err);
    if (e.kind !== 'bad_input') throw err;
    throw badInput('bad run list query', compileErrorLines(`where ${JSON.stringify(where)}`, e));
  }
}

/**
 * Reads runs newest first (the list's filters and cursor), evaluates `where`
 * on each and keeps those whose first output is neither false nor null, until
 * `limit` matched, the runs end, `window` runs were read or the time budget
 * is spent. `nextCursor` continues right after the last run read (any run id
 * is a list cursor: the runs older than it), so a cut scan resumes where it
 * stopped and no run is read twice.
 *
 * It shares the process: every SEARCH_SLICE_MS it yields to the event loop,
 * each in-process evaluation has the search's step budget (`steps`, smaller
 * than a hook condition's) and the rest go to the search's own jq-wasm
 * workers (lane `search`). When `signal` aborts (the client left) it stops at
 * its next yield and answers what it has.
 */
export async function searchRuns(
  deps: { runs: RunStore; jq: JqEngine; clock: Clock; jqTimeoutMs: number; steps: number },
  q: { filter: RunFilter; where: string; limit: number; cursor: string | null; window: number },
  signal?: AbortSignal,
): Promise<SearchResult> {
  const started = deps.clock.now();
  const scan: ScanReport = { scanned: 0, matched: 0, cut: false, errors: 0 };
  const runs: Run[] = [];
  let cursor = q.cursor;
  let lastRead: string | null = null;
  const spent = () => deps.clock.now() - started >= SEARCH_TIME_BUDGET_MS;
  let slice = performance.now();
  /** True when the scan should stop: yields first if its slice is used up. */
  const pause = async (): Promise<boolean> => {
    if (performance.now() - slice >= SEARCH_SLICE_MS) {
      await yieldToLoop();
      slice = performance.now();
    }
    return signal?.aborted === true;
  };
  for (;;) {
    // A store page can take a while to read (the memory store sorts and copies): start it on a fresh slice.
    if ((await pause()) || scan.scanned >= q.window || spent()) {
      scan.cut = true;
      break;
    }
    const page = await deps.runs.list(q.filter, Math.min(SCAN_CHUNK, q.window - scan.scanned), cursor);
    const last = page.runs[page.runs.length - 1];
    let stopped = false;
    for (const run of page.runs) {
      if (await pause()) {
        // The client left: nobody reads the answer, but it stays true (continue after the last run read).
        stopped = scan.cut = true;
        break;
      }
      scan.scanned += 1;
      lastRead = run.id;
      if (await matches(deps, q.where, run, scan)) runs.push(run);
      if (run !== last && (runs.length >= q.limit || spent())) {
        stopped = true;
        if (runs.length < q.limit) scan.cut = true;
        break;
      }
    }
    if (stopped) {
      // Stopped inside the page: continue after the last run read.
      cursor = lastRead ?? cursor;
      break;
    }
    cursor = page.nextCursor;
    if (cursor === null || runs.length >= q.limit) break;
  }
  scan.matched = runs.length;
  return { runs, nextCursor: cursor, scan };
}

async function matches(deps: { jq: JqEngine; jqTimeoutMs: number; steps: number }, where: string, run: Run, scan: ScanReport): Promise<boolean> {
  try {
    const opts = { timeoutMs: deps.jqTimeoutMs, steps: deps.steps, lane: 'search' as const };
    return isTruthyOutput(await deps.jq.run(where, searchInput(run), opts));
  } catch (err) {
    const e = toHookyardError(err);
    // A jq error (or the time bound) on one run's values: that run does not match; the count says so.
    if (e.kind !== 'bad_input') throw err;
    scan.errors += 1;
    scan.first_error ??= { run: run.id, message: e.message };
    return false;
  }
}
