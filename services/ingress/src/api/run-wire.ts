import { RUN_STATUSES, badInput, isValidName, type Run, type RunStatus } from '@hookyard/core';
import type { RunFilter } from '@hookyard/store';

/**
 * A run on the wire: every core Run field (payload included, in lists too, so
 * a failed run is explainable from one page: status, attempts, error, acted,
 * acted_ids, claim_intent, result, input, history, timestamps). The lease shows
 * its owner, until (ISO) and fencing token.
 */
export function runToWire(run: Run): Record<string, unknown> {
  const lease = run.lease ? { owner: run.lease.owner, until: new Date(run.lease.until).toISOString(), token: run.lease.token } : null;
  return { ...run, lease };
}

export const RUN_LIST_DEFAULT_LIMIT = 50;
export const RUN_LIST_MAX_LIMIT = 500;
const QUERY_KEYS = new Set(['status', 'hook', 'topic', 'limit', 'cursor']);

export interface RunListQuery {
  filter: RunFilter;
  limit: number;
  cursor: string | null;
}

/** Reads `GET /api/hook-runs` query parameters; every bad value is one line of a 400. */
export function parseRunListQuery(query: Record<string, unknown>): RunListQuery {
  const errors: string[] = [];
  const one = (key: string): string | undefined => {
    const v = query[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      errors.push(`${key} must be given once, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  };
  for (const key of Object.keys(query)) if (!QUERY_KEYS.has(key)) errors.push(`unknown query parameter '${key}' (known: ${[...QUERY_KEYS].join(', ')})`);

  const filter: RunFilter = {};
  const status = one('status');
  if (status !== undefined) {
    if ((RUN_STATUSES as readonly string[]).includes(status)) filter.status = status as RunStatus;
    else errors.push(`status must be one of ${RUN_STATUSES.join('|')}, got ${JSON.stringify(status)}`);
  }
  for (const key of ['hook', 'topic'] as const) {
    const v = one(key);
    if (v === undefined) continue;
    if (isValidName(v)) filter[key] = v;
    else errors.push(`${key} must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(v)}`);
  }
  let limit = RUN_LIST_DEFAULT_LIMIT;
  const rawLimit = one('limit');
  if (rawLimit !== undefined) {
    const n = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (n >= 1 && n <= RUN_LIST_MAX_LIMIT) limit = n;
    else errors.push(`limit must be a whole number from 1 to ${RUN_LIST_MAX_LIMIT}, got ${JSON.stringify(rawLimit)}`);
  }
  const cursor = one('cursor') ?? null;
  if (cursor !== null && (cursor === '' || cursor.length > 512)) errors.push('cursor must be the next_cursor of a previous page');
  if (errors.length) throw badInput('bad run list query', errors);
  return { filter, limit, cursor };
}
