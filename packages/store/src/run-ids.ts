import { RUN_ID_PATTERN, newRunId } from '@hookyard/core';

/** Runs of one event are numbered with 2 base36 chars: at most this many hooks per topic. */
export const MAX_HOOKS_PER_EVENT = 36 * 36;

/**
 * The shared start of the ids of one event's runs: `newRunId(now)` (time first, so
 * ids sort by creation) followed by the partition in 2 base36 chars. The store
 * appends each run's index within the event (2 base36 chars): 26 chars in all.
 */
export function runIdBase(now: number, partition: number): string {
  return newRunId(now) + partition.toString(36).padStart(2, '0');
}

/** The id of the `index`-th run of an event. Mirrored in keep_event.lua. */
export function runIdAt(base: string, index: number): string {
  return base + index.toString(36).padStart(2, '0');
}

/** The partition a store id carries, or null when `id` is not a store run id. */
export function partitionOf(id: string, partitions: number): number | null {
  if (id.length !== 26 || !RUN_ID_PATTERN.test(id)) return null;
  const p = parseInt(id.slice(22, 24), 36);
  return Number.isInteger(p) && p < partitions ? p : null;
}

/**
 * The partition of a claimed delivery: FNV-1a (32 bit) over the UTF-8 of
 * `topic`, a newline and `deliveryId`, modulo `partitions`. Every process
 * computes the same one, so the claim key and the runs it keeps share the
 * partition's hash tag (one atomic script, Redis Cluster-safe), and claims
 * spread over the partitions instead of one slot. Never change it: claims
 * held under another partition would not be found.
 */
export function deliveryPartition(topic: string, deliveryId: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(`${topic}\n${deliveryId}`, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

/** The 10-char time prefix of the ids made at `ms` (see `newRunId`). */
export function idTimePrefix(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(36).padStart(10, '0');
}

/** True when a run id was made within [since, until] (epoch ms, inclusive; either bound open). */
export function idInTimeRange(id: string, since: number | undefined, until: number | undefined): boolean {
  const at = id.slice(0, 10);
  return (since === undefined || at >= idTimePrefix(since)) && (until === undefined || at <= idTimePrefix(until));
}
