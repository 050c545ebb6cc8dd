import type { BucketLimit } from '@hookyard/store';

/**
 * The limiter's policy for one bucket. The bucket itself is the store's
 * (BucketStore.take: a token bucket that refills continuously, GCRA, kept in
 * Redis when the stores are, so replicas share it).
 */

/** Which bucket: per client at the door, per topic at the door, per client on the management API, per agent at /mcp. */
export type BucketName = 'door-client' | 'door-topic' | 'api' | 'agent';

/** The bucket's limit, or null for a rate of 0 (unlimited: no bucket at all). */
export function bucketLimit(rate: number, burst: number): BucketLimit | null {
  return rate === 0 ? null : { rate, burst };
}
