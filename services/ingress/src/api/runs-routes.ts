import type { Router } from 'express';
import { RUN_ID_PATTERN, notFound } from '@hookyard/core';
import { requireRole } from './auth';
import type { ApiContext } from './context';
import { parseRunListQuery, runToWire } from './run-wire';

/**
 * The kept runs: list (filters + cursor), one run, retry (a failed run runs
 * again as a fresh run, published at once), discard.
 */
export function runRoutes(router: Router, ctx: ApiContext): void {
  router.get('/hook-runs', requireRole('reader'), async (req, res) => {
    const q = parseRunListQuery(req.query as Record<string, unknown>);
    const page = await ctx.stores.runs.list(q.filter, q.limit, q.cursor);
    res.json({ runs: page.runs.map(runToWire), next_cursor: page.nextCursor });
  });

  router.get('/hook-runs/:id', requireRole('reader'), async (req, res) => {
    const id = runId(req.params.id as string);
    const run = await ctx.stores.runs.get(id);
    if (!run) throw notFound(`no run ${JSON.stringify(id)}`);
    res.json(runToWire(run));
  });

  router.post('/hook-runs/:id/retry', requireRole('operator'), async (req, res) => {
    const id = runId(req.params.id as string);
    // The store refuses (conflict, with the reason) a run whose hook committed a resume or take.
    const run = await ctx.stores.runs.retry(id, ctx.clock.now());
    ctx.logger.info({ run: id, hook: run.hook }, 'run retried by an operator');
    try {
      await ctx.bus.publish([id]);
      ctx.metrics.dispatched.inc({ source: 'retry' });
    } catch (err) {
      ctx.logger.warn({ err, run: id }, 'publish of a retried run failed; the sweep will dispatch it');
    }
    res.json(runToWire(run));
  });

  router.delete('/hook-runs/:id', requireRole('operator'), async (req, res) => {
    const id = runId(req.params.id as string);
    const run = await ctx.stores.runs.discard(id, ctx.clock.now());
    ctx.logger.info({ run: id, hook: run.hook }, 'run discarded by an operator');
    res.json(runToWire(run));
  });
}

/** A malformed id cannot name a run: 404 without asking the store. */
function runId(id: string): string {
  if (!RUN_ID_PATTERN.test(id)) throw notFound(`no run ${JSON.stringify(id)}`);
  return id;
}
