import { SETTINGS_REGISTRY, SettingsError, type Env, type Settings, type SettingSpec } from './settings';
import { resolveSettings, type ResolvedSettings, type SettingSource } from './settings-file';

/** What asked for a reload. */
export type ReloadTrigger = 'sighup' | 'file' | 'api';

/** One setting whose value a reload found different, shown as GET /api/settings shows values. */
export interface SettingChange {
  variable: string;
  from: unknown;
  to: unknown;
}

export type ReloadResult =
  | {
      ok: true;
      trigger: ReloadTrigger;
      /** The configuration generation after this reload (1 at boot, +1 per reload that applied something). */
      generation: number;
      /** Applied to this process now. */
      applied: SettingChange[];
      /** Changed in the file or environment but not applied: these need a restart of this process. */
      restart_needed: SettingChange[];
      /** Set in both the file and the environment: the environment's value is the one in effect. */
      env_overrides_file: string[];
    }
  | { ok: false; trigger: ReloadTrigger; generation: number; variable: string; message: string };

/** One row of GET /api/settings. */
export interface SettingView {
  variable: string;
  /** The value in effect in this process (tokens as their roles only, URL passwords hidden). */
  value: unknown;
  source: SettingSource;
  live: boolean;
  /** Present when the file or environment now says something else that needs a restart. */
  pending_restart?: unknown;
}

export interface SettingsView {
  generation: number;
  config_file: string | null;
  env_overrides_file: string[];
  settings: SettingView[];
}

/** Told, after a reload applied, the live settings that changed (by field) and the settings object. */
export type ApplyListener = (changed: ReadonlySet<keyof Settings>, settings: Settings) => void;

export interface LiveSettings {
  /**
   * The one settings object of the process, handed to every role: a reload
   * writes the live fields into it in place, so whatever reads a field at use
   * time sees the new value; what was captured at boot is told by onApply.
   */
  readonly settings: Settings;
  generation(): number;
  /** Re-reads the environment and HOOKS_CONFIG_FILE; applies all the live changes, or nothing. */
  reload(trigger: ReloadTrigger): ReloadResult;
  onApply(listener: ApplyListener): void;
  view(): SettingsView;
}

export interface LiveSettingsOptions {
  env: Env;
  /** The boot resolution (so boot and reload read the same way); resolved from env when absent. */
  resolved?: ResolvedSettings;
  /** Reads the config file (tests); readFileSync otherwise. */
  read?: (path: string) => string;
  /** A check of the whole new configuration beyond parsing (e.g. the embedded-form refusal); null passes. */
  check?: (next: Settings) => SettingsError | null;
}

const SPECS = Object.entries(SETTINGS_REGISTRY) as [string, SettingSpec<keyof Settings>][];

/** A value as the settings view shows it, in its variable's unit (seconds, not the ms it is kept as): no token, no URL password. */
export function shownValue(variable: string, spec: Pick<SettingSpec, 'secret'>, value: unknown): unknown {
  if (value === undefined) return null;
  if (variable.endsWith('_SECONDS') && typeof value === 'number') return value / 1000;
  if (spec.secret === 'tokens') {
    const tokens = value as { role: string }[];
    return { set: tokens.length > 0, roles: tokens.map((t) => t.role) };
  }
  if (spec.secret === 'url' && typeof value === 'string') {
    return value
      .split(',')
      .map((part) => {
        try {
          const u = new URL(part.trim());
          if (!u.password) return part.trim();
          u.password = '***';
          return u.toString();
        } catch {
          return '***';
        }
      })
      .join(',');
  }
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function createLiveSettings(options: LiveSettingsOptions): LiveSettings {
  let resolved = options.resolved ?? resolveSettings(options.env, options.read);
  const settings = resolved.settings;
  // What was loaded, kept apart from `settings` (which the runtime may extend, e.g. a generated token).
  const running: Record<string, unknown> = { ...settings };
  const listeners: ApplyListener[] = [];
  let generation = 1;
  let pending: Record<string, unknown> = {};

  return {
    settings,
    generation: () => generation,
    onApply(listener) {
      listeners.push(listener);
    },
    reload(trigger) {
      let next: ResolvedSettings;
      try {
        next = resolveSettings(options.env, options.read);
        const refused = options.check?.(next.settings);
        if (refused) throw refused;
      } catch (err) {
        if (!(err instanceof SettingsError)) throw err;
        return { ok: false, trigger, generation, variable: err.variable, message: err.message };
      }
      const applied: SettingChange[] = [];
      const restart: SettingChange[] = [];
      const changed = new Set<keyof Settings>();
      const nextPending: Record<string, unknown> = {};
      for (const [variable, spec] of SPECS) {
        const from = running[spec.field];
        const to = (next.settings as Record<string, unknown>)[spec.field];
        if (same(from, to)) continue;
        const change = { variable, from: shownValue(variable, spec, from), to: shownValue(variable, spec, to) };
        if (spec.live) {
          applied.push(change);
          changed.add(spec.field);
        } else {
          restart.push(change);
          nextPending[variable] = change.to;
        }
      }
      // Everything was validated above: from here on nothing can refuse, so nothing is half-applied.
      for (const field of changed) {
        const value = (next.settings as Record<string, unknown>)[field];
        running[field] = value;
        (settings as Record<string, unknown>)[field] = value;
      }
      const sources = { ...resolved.sources };
      for (const [variable, spec] of SPECS) if (spec.live) sources[variable] = next.sources[variable]!;
      resolved = { ...next, sources, settings };
      pending = nextPending;
      if (changed.size > 0) {
        generation += 1;
        for (const l of listeners) l(changed, settings);
      }
      return { ok: true, trigger, generation, applied, restart_needed: restart, env_overrides_file: next.overridden };
    },
    view() {
      return {
        generation,
        config_file: resolved.file ?? null,
        env_overrides_file: resolved.overridden,
        settings: SPECS.map(([variable, spec]) => ({
          variable,
          // The object the process runs on (which may hold what the runtime added, e.g. the embedded default's token).
          value: shownValue(variable, spec, (settings as Record<string, unknown>)[spec.field]),
          source: resolved.sources[variable] ?? 'default',
          live: spec.live,
          ...(Object.hasOwn(pending, variable) ? { pending_restart: pending[variable] } : {}),
        })),
      };
    },
  };
}
