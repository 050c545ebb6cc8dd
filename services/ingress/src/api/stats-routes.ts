import type { Router } from 'express';
import { statsSeries as statsSeriesRoute } from '@hookyard/api';
import { statsSeries, windowMinutes } from '@hookyard/store';
import type { StatsWindow } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';

/**
 * `GET /api/stats/series`: the per-minute run counters the store's transitions
 * keep, as a series over the last hour (1-minute steps) or day (15-minute
 * steps), for every hook or one, with the top failing hooks of the window.
 */
export function statsRoutes(router: Router, ctx: ApiContext): void {
  mount(
    router,
    statsSeriesRoute,
    async (req, res) => {
      // Checked by the declaration (a bad window or hook, an unknown parameter: one line each, in the message too).
      const window: StatsWindow = req.checked.query.window ?? '1h';
      const hook = req.checked.query.hook ?? null;
      const now = ctx.clock.now();
      const { from, to } = windowMinutes(window, now);
      res.json(statsSeries(await ctx.stores.runs.minuteStats(from, to), window, hook, now));
    },
    { validateAnswers: ctx.validateAnswers },
  );
}
