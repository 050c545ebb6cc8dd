import { unavailable } from '@hookyard/core';
import { checkTake, intervalMs, singleTake } from '../bucket-rules';
import type { BucketLimit, BucketStore, TakeManyResult, TakeResult } from '../types';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { storeError } from './replies';
import type { Scripts } from './scripts';

/**
 * Token buckets on Redis: one key per bucket and key, in its own slot (keys.ts),
 * one take (of one request or several) is one script (take_token). `now` comes from the caller, as for every
 * store call: replicas agree on a bucket as closely as their clocks agree.
 */
export class RedisBucketStore implements BucketStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
  ) {}

  async take(bucket: string, key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    return singleTake(await this.takeMany(bucket, key, limit, now, 1));
  }

  async takeMany(bucket: string, key: string, limit: BucketLimit, now: number, count: number): Promise<TakeManyResult> {
    checkTake(bucket, key, limit, now, count);
    // Not connected: say so at once (the limiter falls back) rather than queue behind a reconnect.
    if (this.client.status !== 'ready') throw unavailable(`redis take_token not sent: connection is ${this.client.status}`);
    const tag = this.keys.bucketTag(bucket, key);
    let reply: unknown[];
    try {
      reply = await this.scripts.run('take_token', [this.keys.bucket(bucket, key)], [tag, now, intervalMs(limit), limit.burst, count]);
    } catch (err) {
      throw storeError('take_token', err);
    }
    return { granted: Number(reply[0]), retryAfterMs: Number(reply[1]) };
  }
}
