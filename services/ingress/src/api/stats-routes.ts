import type { Router } from 'express';
import { statsSeries as statsSeriesRoute } from '@hookyard/api';
import { AGENT_HOOK_PREFIX, badInput, isValidName } from '@hookyard/core';
import { STATS_WINDOWS, statsSeries, windowMinutes } from '@hookyard/store';
import type { StatsWindow } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { listQueryReader } from './list-query';

const KNOWN = new Set(['window', 'hook']);

/**
 * `GET /api/stats/series`: the per-minute run counters the store's transitions
 * keep, as a series over the last hour (1-minute steps) or day (15-minute
 * steps), for every hook or one, with the top failing hooks of the window.
 */
export function statsRoutes(router: Router, ctx: ApiContext): void {
  // The query is read here: its 400's message lists the lines (as it always did).
  mount(
    router,
    statsSeriesRoute,
    async (req, res) => {
      const q = listQueryReader(req.query, KNOWN);
      const rawWindow = q.one('window') ?? '1h';
      if (!Object.hasOwn(STATS_WINDOWS, rawWindow))
        q.errors.push(`window must be one of ${Object.keys(STATS_WINDOWS).join(', ')}, got ${JSON.stringify(rawWindow)}`);
      const hook = q.one('hook') ?? null;
      const name = hook?.startsWith(AGENT_HOOK_PREFIX) ? hook.slice(AGENT_HOOK_PREFIX.length) : hook;
      if (name !== null && !isValidName(name)) {
        q.errors.push(`hook must be a hook name (or agent:<name>), got ${JSON.stringify(hook)}`);
      }
      if (q.errors.length) throw badInput(`bad query for GET /api/stats/series: ${q.errors.join('; ')}`, q.errors);
      const window = rawWindow as StatsWindow;
      const now = ctx.clock.now();
      const { from, to } = windowMinutes(window, now);
      res.json(statsSeries(await ctx.stores.runs.minuteStats(from, to), window, hook, now));
    },
    { validateAnswers: ctx.validateAnswers },
  );
}
