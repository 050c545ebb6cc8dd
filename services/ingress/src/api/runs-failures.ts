import type { Router } from 'express';
import { listFailureGroups, type AnswerOf, type RequestOf } from '@hookyard/api';
import { agentOfHook, badInput, groupFailures, type Run } from '@hookyard/core';
import type { RunFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { runFilterOf } from './run-wire';

/** Failed runs one call scans at most, newest first: the groups cover these, and `window.cut` says when older ones were left out. */
export const FAILURES_WINDOW_MAX = 5_000;
/** Groups answered when `limit` is not given (most runs first). */
export const FAILURES_GROUPS_DEFAULT = 50;
const PAGE = 500;

export interface FailuresQuery {
  filter: RunFilter;
  window: number;
  limit: number;
}

/** `GET /api/hook-runs/failures`'s query as its declaration checked it (hook and agent are checked together here). */
export function failuresQueryOf(q: RequestOf<typeof listFailureGroups>['query']): FailuresQuery {
  const errors: string[] = [];
  const filter: RunFilter = { ...runFilterOf(q, errors), status: 'failed' };
  if (errors.length) throw badInput('bad failures query', errors);
  return { filter, window: q.window ?? FAILURES_WINDOW_MAX, limit: q.limit ?? FAILURES_GROUPS_DEFAULT };
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
  // The query is checked by its declaration; failuresQueryOf checks hook and agent together.
  mount(router, listFailureGroups, async (req, res) => res.json(await failureGroups(ctx, failuresQueryOf(req.checked.query))), {
    validateAnswers: ctx.validateAnswers,
  });
}
