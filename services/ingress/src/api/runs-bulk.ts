import type { Router } from 'express';
import { discardRuns, retryRuns, type AnswerOf } from '@hookyard/api';
import { HookyardError, badInput, type Run } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import type { RunFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { runFilterOf, type RunFilterFields } from './run-wire';
import { changedNothing } from '../audit/recorder';

/** One bulk call acts on at most this many runs; the answer says when more matched. */
export const BULK_MAX_RUNS = 10_000;
/** Refusals quoted in the answer (all are counted). */
const REFUSALS_QUOTED = 20;
const PAGE = 500;

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

/**
 * A bulk call's filter from its body as its declaration checked it (the verb's
 * status rule included); hook and agent, since and until are checked together here.
 */
export function bulkFilterOf(verb: Verb, f: RunFilterFields): RunFilter {
  const errors: string[] = [];
  const filter = runFilterOf(f, errors, 'filter.');
  if (errors.length) throw badInput(`bad bulk ${verb} request`, errors);
  return verb === 'retry' ? { ...filter, status: 'failed' } : filter;
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
    // The body is checked by its declaration (the verb's status rule too): its lines name the known fields and check the filter as the run list does.
    mount(
      router,
      verb === 'retry' ? retryRuns : discardRuns,
      async (req, res) => {
        const filter = bulkFilterOf(verb, req.checked.body.filter);
        const dryRun = req.checked.body.dry_run === true;
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
