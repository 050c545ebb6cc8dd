import { isIP, isIPv4, isIPv6 } from 'node:net';
import { posix } from 'node:path';
import { secretRefFormViolation } from './secrets';
import { ALLOWLIST_ENTRY_PATTERN, parseAllowlist } from './allowlist';

/** A bad value: names the variable; the CLI prints that one line and exits 2, a reload answers 400 with it. */
export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'SettingsError';
  }
}

export type Role = 'reader' | 'operator' | 'admin';
export const ROLES: readonly Role[] = ['reader', 'operator', 'admin'];

export interface ApiToken {
  role: Role;
  token: string;
}

export type Env = Record<string, string | undefined>;

export function num(opts: { def: number; min?: number; max?: number; integer?: boolean; scale?: number }): (raw: string | undefined, name: string) => number {
  return (raw, name) => {
    if (raw === undefined || raw.trim() === '') return opts.def * (opts.scale ?? 1);
    const v = Number(raw.trim());
    if (!Number.isFinite(v)) throw new SettingsError(name, `expected a number, got ${JSON.stringify(raw)}`);
    if (opts.integer && !Number.isInteger(v)) throw new SettingsError(name, `expected a whole number, got ${JSON.stringify(raw)}`);
    if (opts.min !== undefined && v < opts.min) throw new SettingsError(name, `must be >= ${opts.min}, got ${v}`);
    if (opts.max !== undefined && v > opts.max) throw new SettingsError(name, `must be <= ${opts.max}, got ${v}`);
    // Durations in ms round to whole ms; a plain number (a rate: 0.1 per second) is kept as given.
    return opts.scale === undefined ? v : Math.round(v * opts.scale);
  };
}
export const seconds = (def: number, min = 0) => num({ def, min, scale: 1000 });
export const int = (def: number, min = 0, max?: number) => num({ def, min, max, integer: true });

export function str(def: string): (raw: string | undefined) => string {
  return (raw) => (raw === undefined || raw.trim() === '' ? def : raw.trim());
}

export function optUrl(schemes: string[]): (raw: string | undefined, name: string) => string | undefined {
  return (raw, name) => {
    if (raw === undefined || raw.trim() === '') return undefined;
    // NATS accepts several comma-separated servers.
    for (const part of raw.split(',')) {
      let u: URL;
      try {
        u = new URL(part.trim());
      } catch {
        throw new SettingsError(name, `not a URL: ${JSON.stringify(part.trim())}`);
      }
      if (!schemes.includes(u.protocol.replace(/:$/, ''))) {
        throw new SettingsError(name, `scheme must be one of ${schemes.join(', ')}, got ${JSON.stringify(u.protocol)}`);
      }
    }
    return raw.trim();
  };
}

export function bool(def: boolean): (raw: string | undefined, name: string) => boolean {
  return (raw, name) => {
    if (raw === undefined || raw.trim() === '') return def;
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new SettingsError(name, `expected true or false, got ${JSON.stringify(raw)}`);
  };
}

export function list(def: string[]): (raw: string | undefined) => string[] {
  return (raw) =>
    raw === undefined || raw.trim() === ''
      ? def
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
}

export function tokens(raw: string | undefined, name: string): ApiToken[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const e = entry.trim();
    const i = e.indexOf(':');
    const role = i > 0 ? e.slice(0, i) : 'admin';
    const token = i > 0 ? e.slice(i + 1) : e;
    if (!ROLES.includes(role as Role)) {
      throw new SettingsError(name, `role must be one of ${ROLES.join(', ')} (entries are role:token), got ${JSON.stringify(role)}`);
    }
    if (token.length < 16) throw new SettingsError(name, `the ${role} token has ${token.length} characters; a token needs at least 16`);
    return { role: role as Role, token };
  });
}

export function envPrefix(raw: string | undefined, name: string): string {
  const v = raw?.trim() || 'HOOKS_SECRET_';
  if (!/^[A-Za-z_][A-Za-z0-9_]{2,63}$/.test(v))
    throw new SettingsError(name, `must be a variable-name prefix of 3 to 64 letters, digits or _, got ${JSON.stringify(raw)}`);
  return v;
}

export function secretDirs(raw: string | undefined, name: string): string[] {
  const dirs = list(['/var/run/secrets/hookyard'])(raw);
  for (const d of dirs) {
    if (!d.startsWith('/') || d === '/' || posix.normalize(d) !== d.replace(/\/$/, '')) {
      throw new SettingsError(name, `each entry must be a normalized absolute directory other than /, got ${JSON.stringify(d)}`);
    }
  }
  return dirs.map((d) => d.replace(/\/$/, ''));
}

/**
 * A prefix: unset is the default; set, it must be a non-empty name of
 * `pattern` (an empty one would put every key or subject at the root).
 */
export function prefix(def: string, pattern: RegExp, what: string): (raw: string | undefined, name: string) => string {
  return (raw, name) => {
    if (raw === undefined) return def;
    const v = raw.trim();
    if (v === '') throw new SettingsError(name, `must not be empty (unset it for the default ${def})`);
    if (!pattern.test(v)) throw new SettingsError(name, `must be ${what}, got ${JSON.stringify(raw)}`);
    return v;
  };
}

/** A host name or an IP address to bind. */
export function host(def: string): (raw: string | undefined, name: string) => string {
  return (raw, name) => {
    const v = raw?.trim() || def;
    const hostname = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
    if (isIP(v) === 0 && !hostname.test(v)) throw new SettingsError(name, `must be an IP address or a host name to bind, got ${JSON.stringify(raw)}`);
    return v;
  };
}

/** Addresses and CIDR ranges (`10.0.0.0/8`, `::1`); the first entry that is neither is named. */
export function proxies(raw: string | undefined, name: string): string[] {
  const entries = list([])(raw);
  for (const entry of entries) {
    const [addr = '', bits, extra] = entry.split('/');
    const family = isIP(addr);
    const max = family === 6 ? 128 : 32;
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || extra !== undefined || !okBits) throw new SettingsError(name, `entry ${JSON.stringify(entry)} is not an IP address or CIDR range`);
  }
  return entries;
}

/** An allowlist that allows something: only exclusions (or nothing but commas) would refuse every tool. */
export function allowlist(raw: string | undefined, name: string): string[] {
  const entries = list(['*'])(raw);
  for (const e of entries) {
    if (!ALLOWLIST_ENTRY_PATTERN.test(e)) throw new SettingsError(name, `entry ${JSON.stringify(e)} is not *, a tool name or !name`);
  }
  const parsed = parseAllowlist(entries);
  if (raw !== undefined && raw.trim() !== '' && entries.length === 0)
    throw new SettingsError(name, `allows no tool, got ${JSON.stringify(raw)} (unset it for *)`);
  if (!parsed.all && parsed.names.size === 0) {
    throw new SettingsError(name, `allows no tool: ${JSON.stringify(raw)} only excludes; add * (e.g. "*,${entries[0] ?? '!name'}") or the names to allow`);
  }
  return entries;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function logLevel(raw: string | undefined, name: string): string {
  const v = raw?.trim() || 'info';
  if (!LOG_LEVELS.includes(v)) throw new SettingsError(name, `must be one of ${LOG_LEVELS.join('|')}, got ${JSON.stringify(raw)}`);
  return v;
}

export const NATS_STORAGES = ['file', 'memory'] as const;

/** Storage of the run stream: `file` (default) or `memory`. */
export function natsStorage(raw: string | undefined, name: string): (typeof NATS_STORAGES)[number] {
  const v = raw?.trim().toLowerCase() || 'file';
  if (v !== 'memory' && v !== 'file') throw new SettingsError(name, `must be one of ${NATS_STORAGES.join('|')}, got ${JSON.stringify(raw)}`);
  return v;
}

/** An optional port: unset is undefined. */
export function optPort(raw: string | undefined, name: string): number | undefined {
  return raw === undefined || raw.trim() === '' ? undefined : int(0, 0, 65535)(raw, name);
}

export function publicUrl(raw: string | undefined, name: string): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new SettingsError(name, `expected an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SettingsError(name, `expected an http(s) URL, got ${JSON.stringify(raw)}`);
  if (u.search || u.hash || u.username || u.password) throw new SettingsError(name, 'must be a base URL without query, fragment or credentials');
  return v.replace(/\/+$/, '');
}

/** Hosts where an issuer may be plain http (a test or a local IdP): anything else must be https. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Issuer URLs, comma-separated, kept verbatim (a token's `iss` must equal one exactly, trailing slash and all). */
export function issuers(raw: string | undefined, name: string): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .map((e) => {
      let u: URL;
      try {
        u = new URL(e);
      } catch {
        throw new SettingsError(name, `expected issuer URLs, got ${JSON.stringify(e)}`);
      }
      if (u.search || u.hash || u.username || u.password)
        throw new SettingsError(name, `an issuer URL has no query, fragment or credentials, got ${JSON.stringify(e)}`);
      if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname))) {
        throw new SettingsError(name, `an issuer must be https (plain http only on loopback), got ${JSON.stringify(e)}: its keys are fetched from it`);
      }
      return e;
    });
}

/** An RFC 8707 resource: an absolute URI without a fragment. */
export function audience(raw: string | undefined, name: string): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new SettingsError(name, `expected an absolute URI (e.g. https://hooks.example.com/mcp), got ${JSON.stringify(raw)}`);
  }
  if (u.hash) throw new SettingsError(name, `a resource URI has no fragment, got ${JSON.stringify(raw)}`);
  return v;
}

/** A JWT claim name: letters, digits and `_ - : . /` (namespaced claims are URLs). */
export function claimName(raw: string | undefined, name: string): string {
  const v = raw?.trim();
  if (!v) return 'roles';
  if (!/^[A-Za-z0-9_\-:./]+$/.test(v))
    throw new SettingsError(name, `expected a claim name (e.g. roles or https://example.com/roles), got ${JSON.stringify(raw)}`);
  return v;
}

/** `value=role,value=role`: the IdP's values of the roles claim, each mapped to reader, operator or admin. */
export function roleMap(raw: string | undefined, name: string): Record<string, 'reader' | 'operator' | 'admin'> {
  const out: Record<string, 'reader' | 'operator' | 'admin'> = {};
  for (const entry of (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.lastIndexOf('=');
    const [value, role] = [entry.slice(0, eq).trim(), entry.slice(eq + 1).trim()];
    if (eq <= 0 || (role !== 'reader' && role !== 'operator' && role !== 'admin')) {
      throw new SettingsError(
        name,
        `expected value=role pairs with role reader, operator or admin (e.g. hy-admins=admin,hy-ops=operator), got ${JSON.stringify(entry)}`,
      );
    }
    if (Object.hasOwn(out, value)) throw new SettingsError(name, `maps ${JSON.stringify(value)} twice; give each value one role`);
    out[value] = role;
  }
  return out;
}

/** A secret reference (env:NAME or file:/path), never the secret. */
export function secretRef(raw: string | undefined, name: string): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  const bad = secretRefFormViolation(name, v);
  if (bad) throw new SettingsError(name, bad.slice(name.length + 1));
  return v;
}

export function nets(raw: string | undefined, name: string): string[] {
  const entries = list([])(raw);
  for (const n of entries) {
    const [addr = '', bits, extra] = n.split('/');
    const okBits = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (addr.includes(':') ? 128 : 32));
    if (extra !== undefined || !okBits || !(isIPv4(addr) || isIPv6(addr))) throw new SettingsError(name, `not an address or CIDR range: ${JSON.stringify(n)}`);
  }
  return entries;
}

/** An absolute path to a PEM file (read when connecting; a missing file is named then). */
export function pemFile(raw: string | undefined, name: string): string | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  if (!v.startsWith('/') || v.includes('\0')) throw new SettingsError(name, `must be an absolute path to a PEM file, got ${JSON.stringify(raw)}`);
  return v;
}
