import type { Router } from 'express';
import { RUN_ID_PATTERN, badInput, conflict, notFound } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import { requireRole } from './auth';
import type { ApiContext } from './context';
import { parseRunListQuery, runToWire } from './run-wire';

/**
 * The kept runs: list (filters + cursor), counts of the unfinished states,
 * one run, retry (a failed run runs again as a fresh run, published at
 * once), discard.
 */
export function runRoutes(router: Router, ctx: ApiContext): void {
  router.get('/hook-runs', requireRole('reader'), async (req, res) => {
    const q = parseRunListQuery(req.query);
    const page = await ctx.stores.runs.list(q.filter, q.limit, q.cursor);
    res.json({ runs: page.runs.map(runToWire), next_cursor: page.nextCursor });
  });

  // Before /hook-runs/:id ('counts' is not a run id): the store's per-status index sizes, no run read.
  router.get('/hook-runs/counts', requireRole('reader'), async (req, res) => {
    if (Object.keys(req.query).length)
      throw badInput(
        'GET /api/hook-runs/counts takes no query parameters',
        Object.keys(req.query).map((k) => `unknown query parameter '${k}'`),
      );
    res.json(await ctx.stores.runs.counts());
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
    announceRun(ctx.events, run, 'retried', ctx.logger);
    try {
      await ctx.bus.publish([id]);
      ctx.metrics.dispatched.inc({ source: 'retry' });
    } catch (err) {
      ctx.logger.warn({ err, run: id }, 'publish of a retried run failed; the sweep will dispatch it');
    }
    res.json(runToWire(run));
  });

  router.post('/hook-runs/:id/replay', requireRole('operator'), async (req, res) => {
    const id = runId(req.params.id as string);
    const source = await ctx.stores.runs.get(id);
    if (!source) throw notFound(`no run ${JSON.stringify(id)}`);
    if (source.door === 'agent') {
      throw conflict(`run ${id} is a call of ${source.hook}: an agent's call is not replayed by an operator (the agent calls again, or retry it if it failed)`);
    }
    const hook = await ctx.stores.hooks.getHook(source.hook);
    if (!hook) throw conflict(`run ${id} was of hook ${source.hook}, which is no longer registered; register it again to replay the event`);
    const run = await ctx.stores.runs.replay(id, { name: hook.name, topic: hook.topic }, ctx.clock.now(), ctx.settings.dispatchGraceMs);
    ctx.logger.info({ run: run.id, hook: run.hook, replay_of: id }, 'run replayed by an operator');
    announceRun(ctx.events, run, 'accepted', ctx.logger);
    try {
      await ctx.bus.publish([run.id]);
      ctx.metrics.dispatched.inc({ source: 'replay' });
    } catch (err) {
      ctx.logger.warn({ err, run: run.id }, 'publish of a replayed run failed; the sweep will dispatch it');
    }
    res.status(201).json(runToWire(run));
  });

  router.delete('/hook-runs/:id', requireRole('operator'), async (req, res) => {
    const id = runId(req.params.id as string);
    const run = await ctx.stores.runs.discard(id, ctx.clock.now());
    ctx.logger.info({ run: id, hook: run.hook }, 'run discarded by an operator');
    announceRun(ctx.events, run, 'discarded', ctx.logger);
    res.json(runToWire(run));
  });
}

/** A malformed id cannot name a run: 404 without asking the store. */
function runId(id: string): string {
  if (!RUN_ID_PATTERN.test(id)) throw notFound(`no run ${JSON.stringify(id)}`);
  return id;
}
