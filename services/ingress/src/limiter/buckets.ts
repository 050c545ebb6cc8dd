import { systemClock, unavailable, type Clock } from '@hookyard/core';
import { createMemoryBucketStore } from '@hookyard/store';
import type { BucketStore } from '@hookyard/store';
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
  /** The time of each take (default: the system clock). */
  clock?: Clock;
  /** A take from the shared store that has not answered by then falls back (default 500). */
  takeTimeoutMs?: number;
  /** Told when the shared store fails (fail open) and when it answers again. */
  onStore?: (event: 'down' | 'up', err?: unknown) => void;
}

/** The rates and bursts of a bucket set, replaceable while it serves. */
export type BucketRates = Pick<BucketSetOptions, 'rate' | 'burst' | 'apiRate' | 'apiBurst'>;

export interface BucketSet {
  checkDoor(clientIp: string, topic: string): Promise<Verdict>;
  checkApi(clientIp: string): Promise<Verdict>;
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
    return async (key) => {
      const now = clock.now();
      try {
        const result = await withTimeout(shared.take(name, key, limit, now), timeoutMs);
        markUp();
        return waitOf(result);
      } catch (err) {
        // The shared store is out of reach (or hung): fail open to this process's bucket rather than refuse every sender.
        markDown(err);
        return takeLocal(key);
      }
    };
  }

  let byClient: Take | undefined;
  let byTopic: Take | undefined;
  let api: Take | undefined;
  const setRates = (r: BucketRates) => {
    byClient = bucket('door-client', r.rate, r.burst);
    byTopic = bucket('door-topic', r.rate, r.burst);
    // Without HOOKS_API_BURST: one second's worth.
    api = bucket('api', r.apiRate, r.apiBurst ?? Math.max(1, Math.ceil(r.apiRate)));
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
    setRates,
    // The shared store's connection is the stores' to close; this process's buckets need nothing.
    close: async () => undefined,
  };
}

function waitOf(result: { ok: true } | { ok: false; retryAfterMs: number }): number {
  return result.ok ? 0 : Math.max(1, result.retryAfterMs);
}

function verdict(waitMs: number): Verdict {
  return waitMs === 0 ? OK : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(`flood limiter: the shared bucket store did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
