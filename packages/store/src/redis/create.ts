import { HookyardError, badInput, unavailable } from '@hookyard/core';
import type { Logger } from '@hookyard/core';
import { connectRedis } from './client';
import { MAX_HOOKS_PER_EVENT } from '../run-ids';
import type { Stores } from '../types';
import { KeyLayout } from './keys';
import { RedisAgentStore } from './redis-agents';
import { RedisAuditStore } from './redis-audit';
import { RedisBucketStore } from './redis-buckets';
import { RedisHookStore, RedisToolStore } from './redis-hooks';
import { RedisInteractionStore } from './redis-interactions';
import { RedisRunStore } from './redis-runs';
import { RedisStateStore } from './redis-states';
import { RedisStateDeclarations } from './redis-declarations';
import { DeclaredStateStore } from '../declared-states';
import { DEFAULT_STATE_MAX_BYTES } from '../state-rules';
import { storeError } from './replies';
import { Scripts } from './scripts';
import { StoreSetup } from './setup';

export interface RedisStoresOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** The URL names a seed node of a Redis Cluster (HOOKS_REDIS_CLUSTER; default false). */
  cluster?: boolean;
  /** Key prefix isolating this deployment (or test); no braces. */
  prefix: string;
  /**
   * Run partitions, each its own Cluster hash tag (HOOKS_RUN_PARTITIONS). Recorded in
   * Redis on first start; a store configured with another count refuses to start.
   */
  partitions: number;
  logger?: Logger;
  /** Largest subject state document in bytes (HOOKS_STATE_MAX_BYTES; default 65536). */
  stateMaxBytes?: number;
  /** Bound on one command, so a hung Redis fails the caller instead of stalling it (default 2000). */
  commandTimeoutMs?: number;
}

/**
 * The stores on Redis. Start-up checks the partition count against the one
 * recorded in Redis (a mismatch rejects with `bad_input`) and builds the
 * per-partition hook copies once if missing (see setup.ts). It does not wait
 * for an unreachable Redis: that store answers every call with `unavailable`
 * within about a second (one reconnect try per command), runs the check before
 * its first call once Redis is back, and recovers.
 */
export async function createRedisStores(options: RedisStoresOptions): Promise<Stores> {
  if (!options.prefix || /[{}\s]/.test(options.prefix)) {
    throw badInput(`redis store prefix ${JSON.stringify(options.prefix)} must be non-empty, without braces or spaces`);
  }
  if (!Number.isInteger(options.partitions) || options.partitions < 1 || options.partitions > MAX_HOOKS_PER_EVENT) {
    throw badInput(`redis store partitions must be an integer from 1 to ${MAX_HOOKS_PER_EVENT}, got ${options.partitions}`);
  }
  const client = connectRedis(options.url, options.cluster ?? false, {
    enableAutoPipelining: true,
    // A dead Redis must fail the door fast (it answers 500 and the sender retries), not queue forever.
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    commandTimeout: options.commandTimeoutMs ?? 2000,
    retryStrategy: (times) => Math.min(100 * times, 1000),
  });
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    // ioredis emits one error per failed reconnect; one line every 10 s is enough.
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    options.logger?.warn({ err: err.message, url: redactedUrl(options.url) }, 'redis store connection error');
  });
  const keys = new KeyLayout(options.prefix);
  const scripts = new Scripts(client);
  const setup = new StoreSetup(client, keys, options.partitions, scripts, options.logger);
  try {
    await setup.ready('start');
  } catch (err) {
    if (!(err instanceof HookyardError) || err.kind !== 'unavailable') {
      client.disconnect();
      throw err;
    }
    options.logger?.warn({ err: err.message }, 'redis store: Redis unreachable at start; its checks run before the first call');
  }
  const declarations = new RedisStateDeclarations(client, scripts, keys);
  return {
    hooks: new RedisHookStore(client, scripts, keys, setup, options.partitions),
    runs: new RedisRunStore(client, scripts, keys, setup, options.partitions),
    tools: new RedisToolStore(client, keys),
    interactions: new RedisInteractionStore(client, scripts, keys, setup, options.partitions),
    declarations,
    // Writes to a declared state are checked against its declaration first (declared-states.ts).
    states: new DeclaredStateStore(new RedisStateStore(client, scripts, keys, options.stateMaxBytes ?? DEFAULT_STATE_MAX_BYTES), declarations),
    buckets: new RedisBucketStore(client, scripts, keys),
    agents: new RedisAgentStore(client, scripts, keys),
    audit: new RedisAuditStore(client, scripts, keys),
    kind: 'redis',
    ping: async () => {
      // Not connected: say so at once rather than queue the PING behind a reconnect.
      if (client.status !== 'ready') throw unavailable(`redis ping failed: connection is ${client.status}`);
      await setup.ready('ping');
      try {
        await client.ping();
      } catch (err) {
        throw storeError('ping', err);
      }
    },
    close: async () => {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable url)';
  }
}
