import { systemClock, unavailable, type Clock } from '@hookyard/core';
import { createMemoryBucketStore } from '@hookyard/store';
import type { BucketStore, TakeManyResult } from '@hookyard/store';
import { bucketLimit } from './token-bucket';
import type { BucketName } from './token-bucket';

/** The buckets behind the door limiter: the store's, with a per-process fallback. */
export type Verdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface BucketSetOptions {
  /** Shared buckets (the stores' `buckets`, on Redis when the stores are); absent = per-process buckets. */
  store?: BucketStore;
  rate: number;
  burst: number;
  apiRate: number;
  /** The management API's burst; one second's worth of apiRate when absent. */
  apiBurst?: number;
  /** Agent door requests per second per agent (0 or absent = unlimited) and its burst (one second's worth when absent). */
  agentRate?: number;
  agentBurst?: number;
  /** The time of each take (default: the system clock). */
  clock?: Clock;
  /** A check the shared store has not answered within this many ms falls back to this process's bucket (default 500). */
  takeTimeoutMs?: number;
  /** Told when the shared store fails (fail open) and when it answers again. */
  onStore?: (event: 'down' | 'up', err?: unknown) => void;
}

/** The rates and bursts of a bucket set, replaceable while it serves. */
export type BucketRates = Pick<BucketSetOptions, 'rate' | 'burst' | 'apiRate' | 'apiBurst' | 'agentRate' | 'agentBurst'>;

export interface BucketSet {
  checkDoor(clientIp: string, topic: string): Promise<Verdict>;
  checkApi(clientIp: string): Promise<Verdict>;
  checkAgent(agent: string): Promise<Verdict>;
  /** New rates and bursts from the next check on; the buckets (and their state) stay. */
  setRates(rates: BucketRates): void;
  close(): Promise<void>;
}

const OK: Verdict = { ok: true };
const DEFAULT_TAKE_TIMEOUT_MS = 500;

type Take = (key: string) => Promise<number>; // 0 = passed, else ms to wait

export function createBucketSet(options: BucketSetOptions): BucketSet {
  const clock = options.clock ?? systemClock;
  const shared = options.store;
  const timeoutMs = options.takeTimeoutMs ?? DEFAULT_TAKE_TIMEOUT_MS;
  // This process's own buckets: all of them without a shared store, the fallback with one.
  const local = createMemoryBucketStore();
  // Reported once per change, not per request.
  let storeDown = false;
  const markDown = (err: unknown) => {
    if (storeDown) return;
    storeDown = true;
    options.onStore?.('down', err);
  };
  const markUp = () => {
    if (!storeDown) return;
    storeDown = false;
    options.onStore?.('up');
  };

  function bucket(name: BucketName, rate: number, burst: number): Take | undefined {
    const limit = bucketLimit(rate, burst);
    if (!limit) return undefined;
    const takeLocal: Take = async (key) => waitOf(await local.take(name, key, limit, clock.now()));
    if (!shared) return takeLocal;
    return coalesced({
      // The shared store is out of reach (or hung): fail open to this process's bucket rather than refuse every sender.
      take: (key, count) => shared.takeMany(name, key, limit, clock.now(), count),
      fallback: (key, count, err) => {
        markDown(err);
        return local.takeMany(name, key, limit, clock.now(), count);
      },
      answered: markUp,
      timeoutMs,
    });
  }

  let byClient: Take | undefined;
  let byTopic: Take | undefined;
  let api: Take | undefined;
  let agent: Take | undefined;
  const setRates = (r: BucketRates) => {
    byClient = bucket('door-client', r.rate, r.burst);
    byTopic = bucket('door-topic', r.rate, r.burst);
    // Without HOOKS_API_BURST: one second's worth.
    api = bucket('api', r.apiRate, r.apiBurst ?? Math.max(1, Math.ceil(r.apiRate)));
    const agentRate = r.agentRate ?? 0;
    agent = bucket('agent', agentRate, r.agentBurst ?? Math.max(1, Math.ceil(agentRate)));
  };
  setRates(options);

  return {
    async checkDoor(clientIp, topic) {
      // Both takes leave together (the store's client pipelines them): one round trip's wait.
      const [a, b] = await Promise.all([byClient ? byClient(clientIp) : 0, byTopic ? byTopic(topic) : 0]);
      return verdict(Math.max(a, b));
    },
    async checkApi(clientIp) {
      return verdict(api ? await api(clientIp) : 0);
    },
    async checkAgent(name) {
      return verdict(agent ? await agent(name) : 0);
    },
    setRates,
    // The shared store's connection is the stores' to close; this process's buckets need nothing.
    close: async () => undefined,
  };
}

interface CoalesceOptions {
  take(key: string, count: number): Promise<TakeManyResult>;
  fallback(key: string, count: number, err: unknown): Promise<TakeManyResult>;
  answered(): void;
  timeoutMs: number;
}

/** Checks of one key answered by one take: its waiters are requests in arrival order. */
interface Batch {
  waiters: Array<{ resolve: (waitMs: number) => void; reject: (err: unknown) => void }>;
  /** Sent, and holding one of its key's takes in flight until it answers or is given up on. */
  holding: boolean;
  /** Its event-loop turn is over: it leaves as soon as its key has a take to spare. */
  ready: boolean;
  settled: boolean;
  timer?: NodeJS.Timeout;
}

/**
 * Takes of one key in flight at most. Past it, checks gather until a take
 * answers, so a slow store sees a bounded number of takes per key while the
 * checks wait for it.
 */
const TAKES_IN_FLIGHT_PER_KEY = 8;

/**
 * One bucket's takes from the shared store, coalesced per key: a check of a
 * key with no take in flight leaves at once; the checks that arrive while one
 * is in flight gather for the rest of that event-loop turn and leave as one
 * take of n requests at its end, without waiting for the takes in flight to
 * answer (up to `maxInFlight` per key; past that, when one answers). Waiting
 * for the answer instead made a check of a flooded key wait out the rest of a
 * round trip before its own. The takes of a key leave in arrival order on the
 * store's one connection, which decides them in that order, and the store
 * decides n requests exactly as n takes one after another (BucketStore.takeMany:
 * the first ones pass), so this changes how many round trips a flood of one
 * client or topic costs, never what passes. Each batch is answered within
 * `timeoutMs` of its first check: by the store, or else by this process's
 * bucket (fail open); a late answer is dropped, as a late single take was.
 */
function coalesced(o: CoalesceOptions, maxInFlight = TAKES_IN_FLIGHT_PER_KEY): Take {
  // Takes in flight per key; a key with none is not here.
  const inFlight = new Map<string, number>();
  const waiting = new Map<string, Batch>();

  const settle = (batch: Batch): boolean => {
    if (batch.settled) return false;
    batch.settled = true;
    clearTimeout(batch.timer);
    return true;
  };
  const answer = (batch: Batch, result: TakeManyResult) => {
    const refused = waitOf({ ok: false, retryAfterMs: result.retryAfterMs });
    batch.waiters.forEach((w, i) => w.resolve(i < result.granted ? 0 : refused));
  };
  const fallBack = (key: string, batch: Batch, err: unknown) => {
    if (!settle(batch)) return;
    o.fallback(key, batch.waiters.length, err).then(
      (result) => answer(batch, result),
      // Only a caller's bug (a bad key) is refused here: each check fails with it, as a single take did.
      (bad: unknown) => batch.waiters.forEach((w) => w.reject(bad)),
    );
  };
  const sendIfDue = (key: string) => {
    const queued = waiting.get(key);
    if (queued?.ready && (inFlight.get(key) ?? 0) < maxInFlight) send(key, queued);
  };
  const release = (key: string, batch: Batch) => {
    if (!batch.holding) return;
    batch.holding = false;
    const left = (inFlight.get(key) ?? 1) - 1;
    if (left > 0) inFlight.set(key, left);
    else inFlight.delete(key);
    sendIfDue(key);
  };
  const send = (key: string, batch: Batch) => {
    if (waiting.get(key) === batch) waiting.delete(key);
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    batch.holding = true;
    // A store that throws instead of rejecting is a failed take all the same.
    new Promise<TakeManyResult>((resolve) => resolve(o.take(key, batch.waiters.length))).then(
      (result) => {
        release(key, batch);
        if (!settle(batch)) return;
        o.answered();
        answer(batch, result);
      },
      (err: unknown) => {
        release(key, batch);
        fallBack(key, batch, err);
      },
    );
  };
  const giveUp = (key: string, batch: Batch) => {
    // Not sent yet (behind hung takes) or sent and silent: either way the next batch must not queue behind it.
    if (waiting.get(key) === batch) waiting.delete(key);
    else release(key, batch);
    fallBack(key, batch, unavailable(`flood limiter: the shared bucket store did not answer within ${o.timeoutMs} ms`));
  };

  return (key) =>
    new Promise<number>((resolve, reject) => {
      const queued = waiting.get(key);
      if (queued) {
        queued.waiters.push({ resolve, reject });
        return;
      }
      const batch: Batch = { waiters: [{ resolve, reject }], holding: false, ready: false, settled: false };
      batch.timer = setTimeout(() => giveUp(key, batch), o.timeoutMs);
      batch.timer.unref();
      if (!inFlight.has(key)) {
        send(key, batch);
        return;
      }
      waiting.set(key, batch);
      setImmediate(() => {
        batch.ready = true;
        // Given up on meanwhile (a hung store): nothing to send.
        if (waiting.get(key) === batch) sendIfDue(key);
      });
    });
}

function waitOf(result: { ok: true } | { ok: false; retryAfterMs: number }): number {
  return result.ok ? 0 : Math.max(1, result.retryAfterMs);
}

function verdict(waitMs: number): Verdict {
  return waitMs === 0 ? OK : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
