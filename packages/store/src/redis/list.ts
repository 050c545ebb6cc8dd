import type { Run } from '@hookyard/core';
import type { RedisClient } from './client';
import type { RunFilter, RunPage } from '../types';
import { idInTimeRange, idTimePrefix } from '../run-ids';
import { errorMatches } from '../run-filter';
import type { KeyLayout } from './keys';
import { fieldsToRun, toFields } from './run-hash';

/** Rounds of index reads one page may take when runs fall out of the filter between index and read. */
const MAX_ROUNDS = 10;
/** Most ids one round reads from one partition's index (the batch doubles each round up to this). */
const MAX_BATCH = 1000;

/**
 * The single-field indexes a filter names (status, hook, topic), or `all`.
 * With two or more, a partition reads the smallest of them and checks each id
 * against the others (list.ts keeps no combined index, see lua/index.lua).
 */
export function indexesFor(filter: RunFilter): string[] {
  const names: string[] = [];
  if (filter.status) names.push(`s:${filter.status}`);
  if (filter.hook) names.push(`h:${filter.hook}`);
  if (filter.topic) names.push(`t:${filter.topic}`);
  return names.length > 0 ? names : ['all'];
}

const matches = (r: Run, f: RunFilter) =>
  (!f.status || r.status === f.status) &&
  (!f.hook || r.hook === f.hook) &&
  (!f.topic || r.topic === f.topic) &&
  (f.deliveryId === undefined || r.delivery_id === f.deliveryId) &&
  idInTimeRange(r.id, f.since, f.until) &&
  errorMatches(r, f);

/**
 * The lex bounds of a page: ids start with their creation time (base36 ms), so
 * `since`/`until` are a range of the index, and the cursor narrows the top.
 */
function lexBounds(filter: RunFilter, after: string | null): { start: string; stop: string } {
  const stop = filter.since === undefined ? '-' : `[${idTimePrefix(filter.since)}`;
  const untilNext = filter.until === undefined ? null : idTimePrefix(filter.until + 1);
  const top = after !== null && untilNext !== null ? (after < untilNext ? after : untilNext) : (after ?? untilNext);
  return { start: top === null ? '+' : `(${top}`, stop };
}

/** What one partition reads: its smallest index of the filter and the others to check ids against. */
interface PartitionPlan {
  read: string;
  check: string[];
}

/**
 * Per partition, the index to read: the smallest of the filter's (ZCARD is
 * O(1)); null where one of them is empty (no run of the partition matches).
 */
async function plan(client: RedisClient, keys: KeyLayout, partitions: number, names: string[]): Promise<Array<PartitionPlan | null>> {
  return Promise.all(
    Array.from({ length: partitions }, async (_, p) => {
      const all = names.map((n) => keys.index(p, n));
      if (all.length === 1) return { read: all[0]!, check: [] };
      const sizes = await Promise.all(all.map((k) => client.zcard(k)));
      if (sizes.some((n) => n === 0)) return null;
      const smallest = sizes.indexOf(Math.min(...sizes));
      return { read: all[smallest]!, check: all.filter((_, i) => i !== smallest) };
    }),
  );
}

/** The ids of `ids` that are members of every index in `check`. */
async function inAll(client: RedisClient, check: string[], ids: string[]): Promise<string[]> {
  if (check.length === 0 || ids.length === 0) return ids;
  const scores = await Promise.all(check.map((k) => client.zmscore(k, ...ids)));
  return ids.filter((_, i) => scores.every((s) => s[i] !== null));
}

const newestFirst = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/**
 * Newest first across partitions. Index members order by id (time first), so
 * each partition reads its next ids after the cursor with one ZREVRANGEBYLEX
 * (checked with ZMSCORE against the filter's other indexes). Every id above
 * the frontier (the highest of the lowest ids read by the partitions that have
 * more) was looked at in every partition, so the matches above it, newest
 * first, are the page; the cursor is the last id the page took, or the
 * frontier when the matches ran short (a page may then come back short, with a
 * cursor). Every read is one auto-pipelined round trip.
 */
export async function listRuns(
  client: RedisClient,
  keys: KeyLayout,
  partitions: number,
  filter: RunFilter,
  limit: number,
  cursor: string | null,
): Promise<RunPage> {
  const runs: Run[] = [];
  if (limit <= 0) return { runs, nextCursor: cursor };
  const plans = await plan(client, keys, partitions, indexesFor(filter));
  let after = cursor;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const want = limit - runs.length;
    // want + 1 ids tell whether there is more; a round after one that fell short reads more.
    const batch = Math.min(MAX_BATCH, (want + 1) * 2 ** round);
    const { start, stop } = lexBounds(filter, after);
    const read = await Promise.all(
      plans.map(async (pp) => {
        if (!pp) return null;
        const ids = await client.zrevrangebylex(pp.read, start, stop, 'LIMIT', 0, batch);
        return { more: ids.length === batch, lowest: ids[ids.length - 1] ?? null, ids: await inAll(client, pp.check, ids) };
      }),
    );
    // A partition with no id left in range has none below the next cursor either.
    read.forEach((r, p) => {
      if (r && r.lowest === null) plans[p] = null;
    });
    let frontier: string | null = null;
    for (const r of read) if (r?.more && r.lowest !== null && (frontier === null || r.lowest > frontier)) frontier = r.lowest;
    const eligible = read
      .flatMap((r) => r?.ids ?? [])
      .filter((id) => frontier === null || id >= frontier)
      .sort(newestFirst);
    const page = eligible.slice(0, want);
    const hashes = await Promise.all(page.map((id) => client.hgetall(keys.run(Number.parseInt(id.slice(22, 24), 36), id))));
    for (const fields of hashes) {
      const run = fieldsToRun(toFields(fields));
      // A run may have changed status or expired between the index read and this read.
      if (run && matches(run, filter)) runs.push(run);
    }
    const full = page.length === want;
    const more = frontier !== null || eligible.length > want;
    after = full ? page[page.length - 1]! : (frontier ?? after);
    if (!more) return { runs, nextCursor: null };
    if (runs.length >= limit) return { runs, nextCursor: after };
  }
  return { runs, nextCursor: after };
}
