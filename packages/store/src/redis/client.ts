import Redis, { Cluster, type RedisOptions } from 'ioredis';

/** One Redis server or a Redis Cluster: the store speaks only single-slot commands, so either serves. */
export type RedisClient = Redis | Cluster;

/**
 * Connects to the server `url` names, or with `cluster` to the Redis Cluster
 * it is a seed node of (HOOKS_REDIS_CLUSTER): the client learns the slot map
 * from it and follows MOVED/ASK; the URL's user, password and TLS apply to
 * every node. `options` are per connection; their retryStrategy also paces
 * the cluster's reconnects.
 */
export function connectRedis(url: string, cluster: boolean, options: RedisOptions): RedisClient {
  if (!cluster) return new Redis(url, options);
  const u = new URL(url);
  const { retryStrategy, enableAutoPipelining: _pipelining, enableOfflineQueue, ...perNode } = options;
  return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    // Not on a cluster: ioredis 5.9's auto-pipeline batches calls of several slots
    // into one pipeline under load and fails the batch ("All keys in the pipeline
    // should belong to the same slots allocation group"), scripts included.
    enableAutoPipelining: false,
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) ?? null : undefined,
    redisOptions: {
      ...perNode,
      username: u.username ? decodeURIComponent(u.username) : undefined,
      password: u.password ? decodeURIComponent(u.password) : undefined,
      tls: u.protocol === 'rediss:' ? {} : undefined,
    },
  });
}
