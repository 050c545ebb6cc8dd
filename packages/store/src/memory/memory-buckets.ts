import { checkTake, intervalMs, singleTake, takeManySteps } from '../bucket-rules';
import type { BucketLimit, BucketStore, TakeManyResult, TakeResult } from '../types';

/**
 * Token buckets in this process: the embedded default, the twin the bucket
 * conformance suite holds Redis to, and the limiter's own fallback while its
 * shared store is out of reach. A bucket whose time has passed is full, so it
 * is dropped; a sweep runs whenever the map has doubled since the last one,
 * which keeps it to the buckets still refilling (a flood from a million
 * addresses leaves nothing behind once they have refilled).
 */
export class MemoryBucketStore implements BucketStore {
  private readonly tats = new Map<string, number>();
  private sweepAbove = 1024;

  async take(bucket: string, key: string, limit: BucketLimit, now: number): Promise<TakeResult> {
    return singleTake(await this.takeMany(bucket, key, limit, now, 1));
  }

  async takeMany(bucket: string, key: string, limit: BucketLimit, now: number, count: number): Promise<TakeManyResult> {
    checkTake(bucket, key, limit, now, count);
    const id = `${bucket}:${key}`;
    const steps = takeManySteps(this.tats.get(id) ?? 0, now, intervalMs(limit), limit.burst, count);
    if (steps.tat !== undefined) {
      this.tats.set(id, steps.tat);
      if (this.tats.size > this.sweepAbove) this.sweep(now);
    }
    return steps.result;
  }

  /** Buckets still refilling at `now` (tests read it to see the sweep work). */
  get size(): number {
    return this.tats.size;
  }

  private sweep(now: number): void {
    for (const [id, tat] of this.tats) if (tat <= now) this.tats.delete(id);
    this.sweepAbove = Math.max(1024, this.tats.size * 2);
  }
}

/** Token buckets held in this process (see MemoryBucketStore). */
export function createMemoryBucketStore(): BucketStore {
  return new MemoryBucketStore();
}
