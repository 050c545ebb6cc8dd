import type { Router } from 'express';
import { HookyardError, unavailable, type ReloadResult, type SettingsView } from '@hookyard/core';
import { getSettings, reloadSettings } from '@hookyard/api';
import type { ApiContext } from './context';
import { mount } from './declare';

/** What the process that serves the API knows of its own settings (made by `hookyard serve`). */
export interface SettingsControl {
  view(): SettingsView;
  /** Re-reads the environment and HOOKS_CONFIG_FILE, applies what is live (all or nothing), logs and counts the outcome. */
  reload(): ReloadResult;
}

/**
 * `GET /api/settings` (operator): the effective settings of this process,
 * where each came from and the generation; tokens never, URL passwords
 * hidden. `POST /api/settings/reload` (admin): reloads this process only
 * (every other process reloads on its own SIGHUP or file watch); 200 with
 * what was applied and what needs a restart, or 400 naming the variable that
 * failed, with nothing applied.
 */
export function settingsRoutes(router: Router, ctx: ApiContext): void {
  const control = () => {
    if (!ctx.settingsControl) throw unavailable('this process was not started by `hookyard serve`: its settings cannot be shown or reloaded here');
    return ctx.settingsControl;
  };
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    getSettings,
    (_req, res) => {
      res.json(control().view());
    },
    opts,
  );
  mount(
    router,
    reloadSettings,
    (_req, res) => {
      const r = control().reload();
      if (!r.ok) {
        throw new HookyardError('bad_input', `settings reload refused, nothing applied: ${r.message}`, { details: [r.message] });
      }
      res.json(r);
    },
    opts,
  );
}
