/**
 * Waiting for a run to reach a state, woken by run events when there is a
 * feed and by polling the store otherwise. Events can be lost (a NATS
 * subscriber reconnecting, a process that announces nothing), so a slow poll
 * runs even with a feed: the store is the truth, an event only says "look now".
 */

/** Poll intervals: without a feed, from FAST_POLL_MS growing to SLOW_POLL_MS; with one, SLOW_POLL_MS as the fallback. */
export const FAST_POLL_MS = 100;
export const SLOW_POLL_MS = 2000;

export interface WaitOptions<T> {
  /** Reads the current state (the store). */
  read(): Promise<T>;
  /** True when there is nothing more to wait for. */
  settled(v: T): boolean;
  /** True when `next` differs from `prev` in a way the caller reports (onProgress). */
  changed(prev: T, next: T): boolean;
  /** How long to wait at most (real time) from the call. */
  waitMs: number;
  signal?: AbortSignal;
  /** Subscribes `wake` to the events that may mean a change; answers the unsubscribe. Absent: poll only. */
  listen?: (wake: () => void) => () => void;
  onProgress?: (v: T) => void;
  /** The fallback poll with a feed (default SLOW_POLL_MS); a test sets it past `waitMs` to show the events alone wake. */
  slowPollMs?: number;
}

/**
 * Reads until `settled`, the time is up or `signal` aborts, and answers the
 * last state read. Subscribes before the first read, so an event between the
 * read and the wait is not missed.
 */
export async function waitUntil<T>(opts: WaitOptions<T>): Promise<T> {
  const deadline = Date.now() + Math.max(0, opts.waitMs);
  let woken = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const unlisten = opts.listen?.(poke);
  const onAbort = () => poke();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    let v = await opts.read();
    let pollMs = opts.listen ? (opts.slowPollMs ?? SLOW_POLL_MS) : FAST_POLL_MS;
    while (!opts.settled(v) && !opts.signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(pollMs, left));
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
      }
      woken = false;
      if (opts.signal?.aborted) break;
      if (!opts.listen) pollMs = Math.min(SLOW_POLL_MS, Math.round(pollMs * 1.5));
      const next = await opts.read();
      if (opts.changed(v, next) && !opts.settled(next)) opts.onProgress?.(next);
      v = next;
    }
    return v;
  } finally {
    unlisten?.();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
