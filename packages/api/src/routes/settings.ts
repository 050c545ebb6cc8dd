import { answer, route } from '../decl';
import { SettingsReload, SettingsView } from './approvals-shared';

export const getSettings = route({
  method: 'GET',
  path: '/settings',
  role: 'operator',
  operationId: 'getSettings',
  tag: 'ops',
  summary: 'The effective settings of the process that answers',
  description:
    'Every setting of this process: `value` (API tokens as their roles only, URL passwords as ***, secrets as their env:/file: references), ' +
    '`source` (default, file or environment), `live`, and `pending_restart` when the file or environment now says something that needs a restart. ' +
    '`env_overrides_file` names the variables set in both HOOKS_CONFIG_FILE and the environment (the environment wins). 503 when the process was not started by `hookyard serve`.',
  answers: { 200: answer('Settings, each with its value, source and whether a reload applies it', SettingsView) },
  errors: [503],
});

export const reloadSettings = route({
  method: 'POST',
  path: '/settings/reload',
  role: 'admin',
  operationId: 'reloadSettings',
  tag: 'ops',
  summary: 'Reload the settings of the process that answers',
  description:
    'Re-reads the environment and HOOKS_CONFIG_FILE and applies every setting that can change live, or nothing: a value that fails validation ' +
    '(or a configuration the process could not run, e.g. a split role without Redis) is a 400 naming the variable. Only this process reloads; ' +
    'every other role reloads on its own SIGHUP or when its mounted file changes.',
  answers: { 200: answer('Reloaded: what was applied now and what needs a restart', SettingsReload) },
  errors: [400, 503],
  audit: 'settings.reload',
});

export const SETTINGS_ROUTES = [getSettings, reloadSettings] as const;
