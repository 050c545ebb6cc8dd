import { readFileSync } from 'node:fs';
import { setOwn } from './own';
import { SETTINGS_REGISTRY, SETTINGS_VARIABLES, SettingsError, loadSettings, nearestSetting, type Env, type Settings } from './settings';

/** Where a setting's value came from. */
export type SettingSource = 'default' | 'file' | 'environment';

export interface ResolvedSettings {
  settings: Settings;
  /** Per registry variable: where its value came from. */
  sources: Record<string, SettingSource>;
  /** Variables set in both HOOKS_CONFIG_FILE and the environment: the environment won. */
  overridden: string[];
  /** HOOKS_CONFIG_FILE, when set. */
  file: string | undefined;
}

const FILE_VARIABLE = 'HOOKS_CONFIG_FILE';

/**
 * The settings of a HOOKS_CONFIG_FILE: a YAML (or JSON, which is YAML) mapping
 * of variable names to scalars; a list of scalars is joined with commas, null
 * is unset. A name no setting reads, a nested value, HOOKS_CONFIG_FILE itself
 * or a secret variable is refused naming it: what the file says must take effect.
 */
export function parseSettingsFile(text: string, path: string): Record<string, string> {
  // Loaded here, with the first settings file: most roles read none (about 0.9 MiB of heap).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parse: parseYaml } = require('yaml') as typeof import('yaml');
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    throw new SettingsError(FILE_VARIABLE, `${path} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new SettingsError(FILE_VARIABLE, `${path} must be a mapping of setting names to values`);
  const known = new Set(SETTINGS_VARIABLES);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
    if (name === FILE_VARIABLE) throw new SettingsError(name, `is read from the environment only, not from ${path}`);
    if (!known.has(name)) {
      const near = nearestSetting(name);
      throw new SettingsError(name, `in ${path} is not a Hookyard setting${near ? `; did you mean ${near}?` : ' (see `hookyard settings`)'}`);
    }
    if (value === null) continue;
    if (Array.isArray(value) && value.every(isScalar)) setOwn(out, name, value.map(String).join(','));
    else if (isScalar(value)) setOwn(out, name, String(value));
    else throw new SettingsError(name, `in ${path} must be a string, number, boolean or list of them`);
  }
  return out;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Reads HOOKS_CONFIG_FILE; a file that cannot be read names the variable. */
export function readSettingsFile(path: string, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): Record<string, string> {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    throw new SettingsError(FILE_VARIABLE, `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseSettingsFile(text, path);
}

/**
 * Settings from the environment and, when HOOKS_CONFIG_FILE is set, that
 * file: the environment wins on a clash (and `overridden` names it). Throws
 * SettingsError naming the first bad variable.
 */
export function resolveSettings(env: Env, read?: (path: string) => string): ResolvedSettings {
  const file = env[FILE_VARIABLE]?.trim() || undefined;
  const fromFile = file ? readSettingsFile(file, read) : {};
  const merged: Env = {};
  for (const [k, v] of Object.entries(fromFile)) setOwn<string | undefined>(merged, k, v);
  const sources: Record<string, SettingSource> = {};
  const overridden: string[] = [];
  for (const name of SETTINGS_VARIABLES) {
    const fromEnv = env[name];
    if (fromEnv !== undefined) {
      if (Object.hasOwn(fromFile, name)) overridden.push(name);
      merged[name] = fromEnv;
    }
  }
  for (const name of Object.keys(SETTINGS_REGISTRY)) {
    sources[name] = env[name] !== undefined ? 'environment' : Object.hasOwn(fromFile, name) ? 'file' : 'default';
  }
  // The Redis fallback variable counts as HOOKS_REDIS_URL's source.
  if (sources.HOOKS_REDIS_URL === 'default' && merged.TAI_DEFAULT_REDIS_URL !== undefined) {
    sources.HOOKS_REDIS_URL = env.TAI_DEFAULT_REDIS_URL !== undefined ? 'environment' : 'file';
  }
  return { settings: loadSettings(merged), sources, overridden: overridden.sort(), file };
}
