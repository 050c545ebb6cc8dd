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
