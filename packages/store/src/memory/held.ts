import type { Stores } from '../types';
import { DeclaredStateStore } from '../declared-states';
import { MemoryHookStore } from './memory-hooks';
import { MemoryRunStore } from './memory-runs';

/** What the in-memory store holds that no store interface lists, counted (the embedded default's stop line). */
export interface MemoryOnlyCounts {
  /** Topics with a dedupe key. */
  dedupeKeys: number;
  /** Delivery ids whose duplicate check still holds: after a restart their redelivery is kept again. */
  deliveryIds: number;
  /** Subjects holding a state. */
  subjectStates: number;
}

/**
 * The counts of `stores` the listings cannot give, when they are the
 * in-memory stores of this process (createMemoryStores); null for any other.
 */
export function memoryOnlyCounts(stores: Stores, now: number): MemoryOnlyCounts | null {
  if (!(stores.hooks instanceof MemoryHookStore) || !(stores.runs instanceof MemoryRunStore)) return null;
  return {
    dedupeKeys: stores.hooks.dedupeKeyCount(),
    deliveryIds: stores.runs.deliveryIdsHeld(now),
    subjectStates: stores.states instanceof DeclaredStateStore ? (stores.states.size() ?? 0) : 0,
  };
}
