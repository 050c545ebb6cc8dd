import { badInput } from '@hookyard/core';
import type { Logger } from '@hookyard/core';
import Redis from 'ioredis';
import { MAX_HOOKS_PER_EVENT } from '../run-ids';
import type { Stores } from '../types';
import { KeyLayout } from './keys';
import { RedisHookStore, RedisToolStore } from './redis-hooks';
import { RedisRunStore } from './redis-runs';
import { storeError } from './replies';
import { Scripts } from './scripts';

export interface RedisStoresOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** Key prefix isolating this deployment (or test); no braces. */
  prefix: string;
  /** Run partitions, each its own Cluster hash tag (HOOKS_RUN_PARTITIONS). Never change it under kept runs. */
  partitions: number;
  logger?: Logger;
  /** Bound on one command, so a hung Redis fails the caller instead of stalling it (default 2000). */
  commandTimeoutMs?: number;
}

/**
 * The stores on Redis. Start-up does not wait for Redis: a store whose Redis
 * is down answers every call with `unavailable` within about a second
 * (one reconnect try per command), and recovers when Redis comes back.
 */
export async function createRedisStores(options: RedisStoresOptions): Promise<Stores> {
  if (!options.prefix || /[{}\s]/.test(options.prefix)) {
    throw badInput(`redis store prefix ${JSON.stringify(options.prefix)} must be non-empty, without braces or spaces`);
  }
  if (!Number.isInteger(options.partitions) || options.partitions < 1 || options.partitions > MAX_HOOKS_PER_EVENT) {
    throw badInput(`redis store partitions must be an integer from 1 to ${MAX_HOOKS_PER_EVENT}, got ${options.partitions}`);
  }
  const client = new Redis(options.url, {
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
  return {
    hooks: new RedisHookStore(client, scripts, keys),
    runs: new RedisRunStore(client, scripts, keys, options.partitions),
    tools: new RedisToolStore(client, keys),
    kind: 'redis',
    ping: async () => {
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
