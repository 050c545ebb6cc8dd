import type { Run } from '@hookyard/core';
import type { RedisClient } from './client';
import type { RunFilter, RunPage } from '../types';
import { idInTimeRange, idTimePrefix } from '../run-ids';
import { errorMatches } from '../run-filter';
import type { KeyLayout } from './keys';
import { fieldsToRun, toFields } from './run-hash';

/** Rounds of index reads one page may take when runs fall out of the filter between index and read. */
const MAX_ROUNDS = 10;

/**
 * The narrowest index for a filter. Status with hook or topic has a combined
 * index; hook and topic together use the hook's (a hook's runs share its topic
 * unless the hook was moved) and the topic is checked on the run.
 */
export function indexFor(filter: RunFilter): string {
  if (filter.status && filter.hook) return `sh:${filter.status}:${filter.hook}`;
  if (filter.status && filter.topic) return `st:${filter.status}:${filter.topic}`;
  if (filter.status) return `s:${filter.status}`;
  if (filter.hook) return `h:${filter.hook}`;
  if (filter.topic) return `t:${filter.topic}`;
  return 'all';
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

/**
 * Newest first across partitions. Index members order by id (time first), so
 * each partition gives its next `want + 1` ids after the cursor with one
 * ZREVRANGEBYLEX; the merged top `want` are the page and the cursor is the
 * last id read. Every read is one auto-pipelined round trip.
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
  const suffix = indexFor(filter);
  let after = cursor;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const want = limit - runs.length;
    const { start, stop } = lexBounds(filter, after);
    const perPartition = await Promise.all(
      Array.from({ length: partitions }, (_, p) => client.zrevrangebylex(keys.index(p, suffix), start, stop, 'LIMIT', 0, want + 1)),
    );
    const merged = perPartition.flat().sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const page = merged.slice(0, want);
    const read = await Promise.all(page.map((id) => client.hgetall(keys.run(Number.parseInt(id.slice(22, 24), 36), id))));
    for (const fields of read) {
      const run = fieldsToRun(toFields(fields));
      // A run may have changed status or expired between the index read and this read.
      if (run && matches(run, filter)) runs.push(run);
    }
    const more = merged.length > want;
    after = page[page.length - 1] ?? after;
    if (!more) return { runs, nextCursor: null };
    if (runs.length >= limit) return { runs, nextCursor: after };
  }
  return { runs, nextCursor: after };
}
