import type { Router } from 'express';
import { listFailureGroups, type AnswerOf } from '@hookyard/api';
import { agentHookName, agentOfHook, badInput, groupFailures, isValidName, type Run } from '@hookyard/core';
import type { RunFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { listQueryReader } from './list-query';
import { parseInstant, readErrorFilter } from './run-wire';

/** Failed runs one call scans at most, newest first: the groups cover these, and `window.cut` says when older ones were left out. */
export const FAILURES_WINDOW_MAX = 5_000;
/** Groups answered when `limit` is not given (most runs first). */
export const FAILURES_GROUPS_DEFAULT = 50;
export const FAILURES_GROUPS_MAX = 500;
const PAGE = 500;
const QUERY_KEYS = new Set(['hook', 'agent', 'kind', 'fingerprint', 'since', 'window', 'limit']);

export interface FailuresQuery {
  filter: RunFilter;
  window: number;
  limit: number;
}

/** Reads `GET /api/hook-runs/failures` query parameters; every bad value is one line of a 400. */
export function parseFailuresQuery(query: Record<string, unknown>): FailuresQuery {
  const { one, limit: readLimit, errors } = listQueryReader(query, QUERY_KEYS);
  const filter: RunFilter = { status: 'failed' };
  const hook = one('hook');
  if (hook !== undefined) {
    if (isValidName(hook)) filter.hook = hook;
    else errors.push(`hook must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(hook)}`);
  }
  const agent = one('agent');
  if (agent !== undefined) {
    if (!isValidName(agent)) errors.push(`agent must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(agent)}`);
    else if (hook !== undefined) errors.push('give hook or agent, not both: an agent call is not a hook run');
    else filter.hook = agentHookName(agent);
  }
  readErrorFilter(one, errors, filter);
  const since = one('since');
  if (since !== undefined) {
    const ms = parseInstant(since);
    if (ms === null) errors.push(`since must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(since)}`);
    else filter.since = ms;
  }
  let window = FAILURES_WINDOW_MAX;
  const rawWindow = one('window');
  if (rawWindow !== undefined) {
    const n = /^\d{1,5}$/.test(rawWindow) ? Number(rawWindow) : NaN;
    if (n >= 1 && n <= FAILURES_WINDOW_MAX) window = n;
    else errors.push(`window must be a whole number from 1 to ${FAILURES_WINDOW_MAX}, got ${JSON.stringify(rawWindow)}`);
  }
  const limit = readLimit(FAILURES_GROUPS_DEFAULT, FAILURES_GROUPS_MAX);
  if (errors.length) throw badInput('bad failures query', errors);
  return { filter, window, limit };
}

/** What `GET /api/hook-runs/failures` answers (declared in @hookyard/api). */
export type FailuresAnswer = AnswerOf<typeof listFailureGroups>;

/**
 * The newest `window` failed runs the filter matches, grouped by hook, error
 * kind and message fingerprint. Reads the store's failed-status index through
 * `list` (a page of 500 at a time), so its cost is bounded by the window.
 */
export async function failureGroups(ctx: Pick<ApiContext, 'stores'>, q: FailuresQuery): Promise<FailuresAnswer> {
  // Only what grouping reads is kept from each page: a window of runs with big payloads stays small.
  const runs: Pick<Run, 'id' | 'hook' | 'error' | 'finished_at' | 'updated_at' | 'created_at'>[] = [];
  let cursor: string | null = null;
  do {
    const page = await ctx.stores.runs.list(q.filter, Math.min(PAGE, q.window - runs.length), cursor);
    for (const r of page.runs)
      runs.push({ id: r.id, hook: r.hook, error: r.error, finished_at: r.finished_at, updated_at: r.updated_at, created_at: r.created_at });
    cursor = page.nextCursor;
  } while (cursor !== null && runs.length < q.window);
  const groups = groupFailures(runs);
  return {
    groups: groups.slice(0, q.limit).map((g) => ({ ...g, agent: agentOfHook(g.hook) })),
    group_count: groups.length,
    window: { max: q.window, scanned: runs.length, cut: cursor !== null, oldest: runs[runs.length - 1]?.created_at ?? null },
  };
}

/** `GET /api/hook-runs/failures` (reader). Registered before `/hook-runs/:id`, where `failures` would read as a run id. */
export function failureRoutes(router: Router, ctx: ApiContext): void {
  // The query is read by parseFailuresQuery (its lines quote what they got; hook and agent are checked together).
  mount(router, listFailureGroups, async (req, res) => res.json(await failureGroups(ctx, parseFailuresQuery(req.query))), {
    validateAnswers: ctx.validateAnswers,
  });
}
