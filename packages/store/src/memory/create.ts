import type { Stores } from '../types';
import { MemoryHookStore, MemoryToolStore } from './memory-hooks';
import { MemoryInteractionStore } from './memory-interactions';
import { MemoryRunStore } from './memory-runs';

/**
 * Stores held in this process: the embedded default and the twin the
 * conformance suite holds Redis to. Time comes from the callers (`now` of
 * each call), as for the Redis store.
 */
export function createMemoryStores(): Stores {
  const hooks = new MemoryHookStore();
  const runs = new MemoryRunStore((topic) => hooks.hookNamesOnTopic(topic));
  return {
    hooks,
    runs,
    tools: new MemoryToolStore(),
    interactions: new MemoryInteractionStore(runs),
    kind: 'memory',
    ping: async () => undefined,
    close: async () => undefined,
  };
}
