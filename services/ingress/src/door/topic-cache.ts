/** Bounds a cache when deliveries spray many topic names; clearing costs only a store read each. */
const CACHE_MAX = 10_000;

/**
 * A topic's binding (or its absence) read from the store and reused for
 * `cacheMs` (default 1000 ms), so the door's hot path does not pay a store
 * round trip per delivery. This process drops an entry at once when the
 * binding changes through its own API (`invalidate`); other replicas within
 * `cacheMs`. A read that fails throws and caches nothing.
 */
export function createTopicCache<T>(
  load: (topic: string) => Promise<T | null>,
  opts: { cacheMs?: number; now?: () => number } = {},
): { get(topic: string): Promise<T | null>; invalidate(topic: string): void } {
  const cacheMs = opts.cacheMs ?? 1000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: T | null; at: number }>();
  return {
    async get(topic) {
      const hit = cache.get(topic);
      if (hit && now() - hit.at < cacheMs) return hit.value;
      const value = await load(topic);
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(topic, { value, at: now() });
      return value;
    },
    invalidate(topic) {
      cache.delete(topic);
    },
  };
}
