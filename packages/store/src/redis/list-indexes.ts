import { Cluster } from 'ioredis';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';

/** `{P}:meta` field `list_indexes`: the run list index layout the store holds (2: all, h, t, s; no combined index). */
export const LIST_INDEX_LAYOUT = '2';

/** Keys asked for per SCAN step, and so removed per batch. */
const SCAN_COUNT = 500;

const globEscaped = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');
const regexEscaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Brings the run list indexes to this version's layout, once per store
 * (recorded in `{P}:meta` `list_indexes`): removes the combined indexes
 * `{P:p<n>}:ix:sh:<status>:<hook>` and `:ix:st:<status>:<topic>` that versions
 * before issue 36 kept beside all, h, t and s (which they kept as this version
 * does, so nothing is rebuilt). The keys are found with SCAN on every master
 * (a cluster spreads the partitions' hash tags over them), matched to this
 * prefix's partition tags exactly, and unlinked a SCAN step at a time. A store
 * with no run in any partition has no such key: it only records the layout.
 * Returns how many keys it removed.
 */
export async function ensureListIndexLayout(client: RedisClient, keys: KeyLayout, partitions: number): Promise<number> {
  if ((await client.hget(keys.meta, 'list_indexes')) === LIST_INDEX_LAYOUT) return 0;
  const used = await Promise.all(Array.from({ length: partitions }, (_, p) => client.exists(keys.index(p, 'all'))));
  const removed = used.some((n) => n > 0) ? await removeCombinedIndexes(client, keys) : 0;
  await client.hset(keys.meta, 'list_indexes', LIST_INDEX_LAYOUT);
  return removed;
}

async function removeCombinedIndexes(client: RedisClient, keys: KeyLayout): Promise<number> {
  const pattern = `{${globEscaped(keys.prefix)}:p*}:ix:s[ht]:*`;
  // The glob's `*` would also match another prefix that starts with this one and `:p`.
  const own = new RegExp(`^\\{${regexEscaped(keys.prefix)}:p\\d+\\}:ix:s[ht]:`);
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  let removed = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      cursor = next;
      const stale = found.filter((k) => own.test(k));
      // One key per command: the keys of one step may be in several slots.
      await Promise.all(stale.map((k) => client.unlink(k)));
      removed += stale.length;
    } while (cursor !== '0');
  }
  return removed;
}
