import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { TOKEN_BUCKET_LUA, bucketOptions } from './token-bucket';
import type { BucketName } from './token-bucket';

/**
 * The buckets behind the door limiter. This file has no runtime import of
 * @hookyard packages so the cross-process test can load its JS build alone.
 */
export type Verdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface BucketSetOptions {
  /** `cluster`: the URL names a seed node of a Redis Cluster (HOOKS_REDIS_CLUSTER). */
  redis?: { url: string; prefix: string; cluster?: boolean };
  rate: number;
  burst: number;
  apiRate: number;
  /** The management API's burst; one second's worth of apiRate when absent. */
  apiBurst?: number;
  /** Told when the store fails (fail open) and when it answers again. */
  onStore?: (event: 'down' | 'up', err?: unknown) => void;
}

/** The rates and bursts of a bucket set, replaceable while it serves. */
export type BucketRates = Pick<BucketSetOptions, 'rate' | 'burst' | 'apiRate' | 'apiBurst'>;

export interface BucketSet {
  checkDoor(clientIp: string, topic: string): Promise<Verdict>;
  checkApi(clientIp: string): Promise<Verdict>;
  /** New rates and bursts from the next check on; the Redis connection stays. */
  setRates(rates: BucketRates): void;
  close(): Promise<void>;
}

const OK: Verdict = { ok: true };

type Take = (key: string) => Promise<number>; // 0 = passed, else ms to wait

export function createBucketSet(options: BucketSetOptions): BucketSet {
  const prefix = options.redis?.prefix ?? 'hookyard';
  // Reported once per change, not per request or per reconnect attempt.
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
  const client = options.redis ? connect(options.redis.url, !!options.redis.cluster, markDown) : undefined;
  // Checks made while the first connection is still being set up wait for it (at most
  // connectTimeout) instead of counting in-process; after that, a check never waits on a dead link.
  let firstConnect: Promise<void> | undefined = client ? untilFirstConnect(client) : undefined;
  void firstConnect?.then(() => {
    firstConnect = undefined;
  });

  function bucket(name: BucketName, rate: number, burst: number): Take | undefined {
    if (rate === 0) return undefined; // 0 = unlimited
    const o = bucketOptions(name, rate, burst, prefix);
    const memory = new RateLimiterMemory({ keyPrefix: o.keyPrefix, points: o.points, duration: o.memoryDuration });
    const takeMemory: Take = (key) =>
      memory.consume(key, 1).then(
        () => 0,
        (res: unknown) => waitOf(res),
      );
    if (!client) return takeMemory;
    const redis = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: o.keyPrefix,
      points: o.points,
      duration: o.duration,
      customIncrTtlLuaScript: TOKEN_BUCKET_LUA,
      // Fail fast to the fallback instead of queueing behind a dead connection.
      rejectIfRedisNotReady: true,
    });
    return async (key) => {
      try {
        if (firstConnect) await firstConnect;
        await redis.consume(key, 1, { customDuration: o.customDuration });
        markUp();
        return 0;
      } catch (res) {
        if (res instanceof RateLimiterRes) {
          markUp();
          return waitOf(res);
        }
        // Redis is unreachable: fail open to a per-process bucket rather than refuse every sender.
        markDown(res);
        return takeMemory(key);
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
      // Both checks leave together (ioredis pipelines them): one round trip's wait.
      const [a, b] = await Promise.all([byClient ? byClient(clientIp) : 0, byTopic ? byTopic(topic) : 0]);
      return verdict(Math.max(a, b));
    },
    async checkApi(clientIp) {
      return verdict(api ? await api(clientIp) : 0);
    },
    setRates,
    async close() {
      if (!client) return;
      // quit() is polite but needs a live link; a dead one is just dropped (and stops reconnecting).
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}

function waitOf(res: unknown): number {
  if (res instanceof RateLimiterRes) return Math.max(1, res.msBeforeNext);
  throw res;
}

function verdict(waitMs: number): Verdict {
  return waitMs === 0 ? OK : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

const CONNECT_TIMEOUT_MS = 2000;

function untilFirstConnect(client: Redis | Cluster): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', done);
    client.once('error', done);
  });
}

function connect(url: string, cluster: boolean, onError: (err: unknown) => void): Redis | Cluster {
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A hung Redis must not hold the door: past this the check fails open.
    commandTimeout: 500,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  };
  const client = cluster ? clusterClient(url, options) : new Redis(url, options);
  // Without a listener ioredis prints every reconnect failure; the limiter reports through onStore instead.
  client.on('error', onError);
  return client;
}

/** A Cluster client seeded by the node `url` names (its user, password and TLS go to every node). */
function clusterClient(url: string, options: RedisOptions): Cluster {
  const u = new URL(url);
  const { retryStrategy, enableOfflineQueue, ...perNode } = options;
  return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    redisOptions: {
      ...perNode,
      username: u.username ? decodeURIComponent(u.username) : undefined,
      password: u.password ? decodeURIComponent(u.password) : undefined,
      tls: u.protocol === 'rediss:' ? {} : undefined,
    },
  });
}
