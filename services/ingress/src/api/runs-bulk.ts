import type { Router } from 'express';
import { discardRuns, retryRuns, type AnswerOf } from '@hookyard/api';
import { HookyardError, badInput, type Run } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import type { RunFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { parseRunListQuery } from './run-wire';
import { changedNothing } from '../audit/recorder';

/** One bulk call acts on at most this many runs; the answer says when more matched. */
export const BULK_MAX_RUNS = 10_000;
/** Refusals quoted in the answer (all are counted). */
const REFUSALS_QUOTED = 20;
const PAGE = 500;
const FILTER_KEYS = ['status', 'hook', 'agent', 'topic', 'delivery_id', 'since', 'until', 'kind', 'fingerprint'];

type Verb = 'retry' | 'discard';

/** A bulk call's count as it walks (the answer, BulkAnswer in @hookyard/api, names `done` by its verb). */
interface BulkTally {
  dry_run: boolean;
  /** Runs the filter matched (at most BULK_MAX_RUNS). */
  matched: number;
  /** Runs retried or discarded (0 on a dry run). */
  done: number;
  /** Runs the store refused (e.g. a committed resume, a run that started meanwhile), with the first reasons. */
  refused: number;
  refusals: { id: string; message: string }[];
  /** More runs matched than one call acts on: call again. */
  truncated: boolean;
  /**
   * Of the matched runs, those whose tool had already started (`acted` is
   * `start`): a retry calls their tool again, each with its own idempotency
   * key (the run id). Counted on a dry run too, so the confirmation can say it.
   */
  tool_called_again: number;
}

/** Reads `{filter: {...}, dry_run?: boolean}`; every bad field is one line of a 400. */
export function parseBulkBody(verb: Verb, body: unknown): { filter: RunFilter; dryRun: boolean } {
  const errors: string[] = [];
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badInput(`bulk ${verb} body must be an object {"filter": {...}, "dry_run": false}`);
  for (const k of Object.keys(b)) if (k !== 'filter' && k !== 'dry_run') errors.push(`unknown field '${k}' (known: filter, dry_run)`);
  if (b.dry_run !== undefined && typeof b.dry_run !== 'boolean') errors.push(`dry_run must be true or false, got ${JSON.stringify(b.dry_run)}`);
  const raw = b.filter;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    errors.push(`filter must be an object of ${FILTER_KEYS.join(', ')}, got ${JSON.stringify(raw)}`);
  const f = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    if (!FILTER_KEYS.includes(k)) errors.push(`unknown filter field '${k}' (known: ${FILTER_KEYS.join(', ')})`);
    else if (typeof v !== 'string') errors.push(`filter.${k} must be a string, got ${JSON.stringify(v)}`);
    else query[k] = v;
  }
  let filter: RunFilter = {};
  try {
    filter = parseRunListQuery(query).filter;
  } catch (err) {
    errors.push(...(err instanceof HookyardError ? err.details.map((d) => `filter.${d}`) : [String(err)]));
  }
  if (verb === 'retry' && typeof f.status === 'string' && f.status !== 'failed') {
    errors.push(`filter.status must be failed for a retry (only a failed run can be retried), got ${JSON.stringify(f.status)}`);
  }
  if (verb === 'discard' && f.status === undefined) errors.push('filter.status is required for a bulk discard (e.g. "failed"), so no call discards every run');
  if (verb === 'discard' && (f.status === 'running' || f.status === 'discarded')) {
    errors.push(
      `filter.status cannot be ${f.status} for a discard (${f.status === 'running' ? 'a running run cannot be discarded' : 'those are discarded already'})`,
    );
  }
  if (errors.length) throw badInput(`bad bulk ${verb} request`, errors);
  return { filter: verb === 'retry' ? { ...filter, status: 'failed' } : filter, dryRun: b.dry_run === true };
}

/** Walks the runs the filter matches, newest first, at most BULK_MAX_RUNS. */
async function* matching(ctx: ApiContext, filter: RunFilter): AsyncGenerator<Run[], boolean> {
  let cursor: string | null = null;
  let seen = 0;
  do {
    const page = await ctx.stores.runs.list(filter, Math.min(PAGE, BULK_MAX_RUNS - seen), cursor);
    seen += page.runs.length;
    if (page.runs.length) yield page.runs;
    cursor = page.nextCursor;
  } while (cursor !== null && seen < BULK_MAX_RUNS);
  return cursor !== null;
}

async function bulk(ctx: ApiContext, verb: Verb, filter: RunFilter, dryRun: boolean): Promise<BulkTally> {
  const answer: BulkTally = { dry_run: dryRun, matched: 0, done: 0, refused: 0, refusals: [], truncated: false, tool_called_again: 0 };
  const now = ctx.clock.now();
  const walk = matching(ctx, filter);
  for (;;) {
    const step = await walk.next();
    if (step.done) {
      answer.truncated = step.value;
      break;
    }
    answer.matched += step.value.length;
    if (verb === 'retry') answer.tool_called_again += step.value.filter((r) => r.acted === 'start').length;
    if (dryRun) continue;
    const retried: string[] = [];
    for (const run of step.value) {
      try {
        const moved = verb === 'retry' ? await ctx.stores.runs.retry(run.id, now) : await ctx.stores.runs.discard(run.id, now);
        announceRun(ctx.events, moved, verb === 'retry' ? 'retried' : 'discarded', ctx.logger);
        answer.done += 1;
        if (verb === 'retry') retried.push(run.id);
      } catch (err) {
        // A run may have moved on since it was listed, or be one no retry may touch: counted, quoted, not fatal.
        if (!(err instanceof HookyardError) || (err.kind !== 'conflict' && err.kind !== 'not_found')) throw err;
        answer.refused += 1;
        if (answer.refusals.length < REFUSALS_QUOTED) answer.refusals.push({ id: run.id, message: err.message });
      }
    }
    if (retried.length) {
      try {
        await ctx.bus.publish(retried);
        ctx.metrics.dispatched.inc({ source: 'retry' }, retried.length);
      } catch (err) {
        ctx.logger.warn({ err, runs: retried.length }, 'publish of bulk-retried runs failed; the sweep will dispatch them');
      }
    }
  }
  return answer;
}

/**
 * `POST /api/hook-runs/retry` and `POST /api/hook-runs/discard` (operator):
 * every run a filter matches, at most BULK_MAX_RUNS per call; `dry_run`
 * answers how many would be acted on and changes nothing.
 */
export function bulkRunRoutes(router: Router, ctx: ApiContext): void {
  for (const verb of ['retry', 'discard'] as const) {
    // The body is read by parseBulkBody: its lines name the known fields and check the filter as the run list does.
    mount(
      router,
      verb === 'retry' ? retryRuns : discardRuns,
      async (req, res) => {
        const { filter, dryRun } = parseBulkBody(verb, req.body);
        const a = await bulk(ctx, verb, filter, dryRun);
        // A dry run changed nothing and says so: the audit trail records the real ones.
        if (dryRun) changedNothing(res);
        else ctx.logger.info({ verb, filter, matched: a.matched, done: a.done, refused: a.refused }, `bulk ${verb} by an operator`);
        const answer: AnswerOf<typeof retryRuns> = {
          dry_run: a.dry_run,
          matched: a.matched,
          [verb === 'retry' ? 'retried' : 'discarded']: a.done,
          refused: a.refused,
          refusals: a.refusals,
          truncated: a.truncated,
          ...(verb === 'retry' ? { tool_called_again: a.tool_called_again } : {}),
        };
        res.json(answer);
      },
      { validateAnswers: ctx.validateAnswers },
    );
  }
}
