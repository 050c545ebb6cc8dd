import type { Stores } from '../types';
import { MemoryAgentStore } from './memory-agents';
import { MemoryAuditStore } from './memory-audit';
import { MemoryBucketStore } from './memory-buckets';
import { MemoryHookStore, MemoryToolStore } from './memory-hooks';
import { MemoryInteractionStore } from './memory-interactions';
import { MemoryRunStore } from './memory-runs';
import { MemoryStateStore } from './memory-states';
import { DeclaredStateStore } from '../declared-states';
import { DEFAULT_STATE_MAX_BYTES } from '../state-rules';

export interface MemoryStoresOptions {
  /** Largest subject state document in bytes (HOOKS_STATE_MAX_BYTES; default 65536). */
  stateMaxBytes?: number;
}

/**
 * Stores held in this process: the embedded default and the twin the
 * conformance suite holds Redis to. Time comes from the callers (`now` of
 * each call), as for the Redis store.
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): Stores {
  const hooks = new MemoryHookStore();
  const runs = new MemoryRunStore(
    (topic) => hooks.hookNamesOnTopic(topic),
    (name) => hooks.revisionOf(name),
    () => hooks.policyVersion(),
  );
  return {
    hooks,
    runs,
    tools: new MemoryToolStore(),
    interactions: new MemoryInteractionStore(runs),
    declarations: hooks.declarations,
    states: new DeclaredStateStore(new MemoryStateStore(options.stateMaxBytes ?? DEFAULT_STATE_MAX_BYTES), hooks.declarations),
    buckets: new MemoryBucketStore(),
    agents: new MemoryAgentStore(),
    audit: new MemoryAuditStore(),
    kind: 'memory',
    ping: async () => undefined,
    close: async () => undefined,
  };
}
