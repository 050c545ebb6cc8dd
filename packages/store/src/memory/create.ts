import { systemClock } from '@hookyard/core';
import type { Clock } from '@hookyard/core';
import type { Stores } from '../types';
import { MemoryHookStore, MemoryToolStore } from './memory-hooks';
import { MemoryInteractionStore } from './memory-interactions';
import { MemoryRunStore } from './memory-runs';

/**
 * Stores held in this process: the embedded default and the twin the
 * conformance suite holds Redis to. `clock` (default: system) times delivery claims.
 */
export function createMemoryStores(options: { clock?: Clock } = {}): Stores {
  const hooks = new MemoryHookStore(options.clock ?? systemClock);
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
