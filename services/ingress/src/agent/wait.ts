/**
 * Waiting for a run to reach a state, woken by run events when there is a
 * feed and by polling the store otherwise. Events can be lost (a NATS
 * subscriber reconnecting, a process that announces nothing), so a slow poll
 * runs even with a feed: the store is the truth. An event says "look now",
 * or, where the caller can read it alone (`advance`), what changed: a move a
 * read would only confirm costs no read.
 */

/** Poll intervals: without a feed, from FAST_POLL_MS growing to SLOW_POLL_MS; with one, SLOW_POLL_MS as the fallback. */
export const FAST_POLL_MS = 100;
export const SLOW_POLL_MS = 2000;
/**
 * The fallback reads per second that all of a process's waits with a feed make together, at most: past
 * SLOW_POLL_MS x this many waits, each wait's fallback poll stretches (1,000 waits: one read each 20 s), so
 * the store reads of calls waiting on approvals do not grow with their number. Events still wake each at once.
 */
export const FALLBACK_READS_PER_SECOND = 50;

/** Waits with a feed and the default fallback poll, in this process (the budget above is shared among them). */
let waitingWithFeed = 0;

/** The fallback poll of one wait with a feed while `waiting` such waits are open. */
export function fallbackPollMs(waiting: number): number {
  return Math.max(SLOW_POLL_MS, Math.ceil((waiting * 1000) / FALLBACK_READS_PER_SECOND));
}

export interface WaitOptions<T, E = never> {
  /** Reads the current state (the store). */
  read(): Promise<T>;
  /** The state now, when the caller knows it without a read (it listened before the state could move): no first read. */
  first?: T;
  /** True when there is nothing more to wait for. */
  settled(v: T): boolean;
  /** True when `next` differs from `prev` in a way the caller reports (onProgress). */
  changed(prev: T, next: T): boolean;
  /** How long to wait at most (real time) from the call. */
  waitMs: number;
  signal?: AbortSignal;
  /** Subscribes `wake` to the events that may mean a change (each handed on, when there is one); answers the unsubscribe. Absent: poll only. */
  listen?: (wake: (event?: E) => void) => () => void;
  /**
   * What an event alone says about the state `v`, when the caller can tell without a read: the state it moves to
   * (`v` itself when it says nothing new), or null when only a read can tell. Absent: every event is a read.
   */
  advance?: (v: T, event: E) => T | null;
  onProgress?: (v: T) => void;
  /** Reports the first state read too (onProgress), unless it is settled: the caller tells the state now, then each change. */
  reportFirst?: boolean;
  /**
   * The fallback poll with a feed (default fallbackPollMs of the waits open in this process, read at each poll);
   * a test sets it past `waitMs` to show the events alone wake.
   */
  slowPollMs?: number;
}

/**
 * Reads until `settled`, the time is up or `signal` aborts, and answers the
 * last state read (or moved to by `advance`). Subscribes before the first
 * read (or the caller did, before `first`), so no event is missed. An event
 * that `advance` can read alone costs no read; the poll counts from the last
 * read, so such events never put it off.
 */
export async function waitUntil<T, E = never>(opts: WaitOptions<T, E>): Promise<T> {
  const deadline = Date.now() + Math.max(0, opts.waitMs);
  // The events since the last read, in order; `mustRead` once one of them (or the abort) needs the store.
  const events: E[] = [];
  let mustRead = false;
  let wake: (() => void) | null = null;
  const poke = (event?: E) => {
    if (event === undefined || !opts.advance) mustRead = true;
    else events.push(event);
    wake?.();
  };
  const unlisten = opts.listen?.(poke);
  const onAbort = () => poke();
  opts.signal?.addEventListener('abort', onAbort);
  const shared = opts.listen !== undefined && opts.slowPollMs === undefined;
  if (shared) waitingWithFeed += 1;
  try {
    let v: T = opts.first !== undefined ? opts.first : await opts.read();
    let readAt = Date.now();
    if (opts.reportFirst && !opts.settled(v)) opts.onProgress?.(v);
    let pollMs = opts.listen ? (opts.slowPollMs ?? SLOW_POLL_MS) : FAST_POLL_MS;
    while (!opts.settled(v) && !opts.signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (shared) pollMs = fallbackPollMs(waitingWithFeed);
      let timedOut = false;
      if (!mustRead && events.length === 0) {
        timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => done(true), Math.max(0, Math.min(readAt + pollMs - Date.now(), left)));
          function done(byTimer: boolean) {
            clearTimeout(timer);
            wake = null;
            resolve(byTimer);
          }
          wake = () => done(false);
        });
      }
      if (opts.signal?.aborted) break;
      const seen = events.splice(0);
      let next: T | null = mustRead || timedOut ? null : v;
      mustRead = false;
      for (let i = 0; next !== null && i < seen.length; i++) next = opts.advance!(next, seen[i]!);
      if (next === null) {
        if (!opts.listen) pollMs = Math.min(SLOW_POLL_MS, Math.round(pollMs * 1.5));
        next = await opts.read();
        readAt = Date.now();
      }
      if (opts.changed(v, next) && !opts.settled(next)) opts.onProgress?.(next);
      v = next;
    }
    return v;
  } finally {
    if (shared) waitingWithFeed -= 1;
    unlisten?.();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
