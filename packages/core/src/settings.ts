import { isIP, isIPv4, isIPv6 } from 'node:net';
import { hostname } from 'node:os';
import { statSync } from 'node:fs';
import { secretRefFormViolation } from './secrets';
import { ALLOWLIST_ENTRY_PATTERN, parseAllowlist } from './allowlist';
import { posix } from 'node:path';

/**
 * Settings are read once, at boot, from the environment into a typed object.
 * Durations become `…Ms` numbers. A bad value throws a SettingsError naming
 * the variable; the CLI prints that one line and exits non-zero.
 */
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

type Env = Record<string, string | undefined>;

interface Spec<T> {
  /** One-line doc with the default, listed by `hookyard settings`. */
  doc: string;
  parse(raw: string | undefined, name: string, env: Env): T;
}

function num(opts: { def: number; min?: number; max?: number; integer?: boolean; scale?: number }): (raw: string | undefined, name: string) => number {
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
const seconds = (def: number, min = 0) => num({ def, min, scale: 1000 });
const int = (def: number, min = 0, max?: number) => num({ def, min, max, integer: true });

function str(def: string): (raw: string | undefined) => string {
  return (raw) => (raw === undefined || raw.trim() === '' ? def : raw.trim());
}

function optUrl(schemes: string[]): (raw: string | undefined, name: string) => string | undefined {
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

function bool(def: boolean): (raw: string | undefined, name: string) => boolean {
  return (raw, name) => {
    if (raw === undefined || raw.trim() === '') return def;
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new SettingsError(name, `expected true or false, got ${JSON.stringify(raw)}`);
  };
}

function list(def: string[]): (raw: string | undefined) => string[] {
  return (raw) => (raw === undefined || raw.trim() === '' ? def : raw.split(',').map((s) => s.trim()).filter(Boolean));
}

function tokens(raw: string | undefined, name: string): ApiToken[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const e = entry.trim();
    const i = e.indexOf(':');
    const role = i > 0 ? e.slice(0, i) : 'admin';
    const token = i > 0 ? e.slice(i + 1) : e;
    if (!ROLES.includes(role as Role)) {
      throw new SettingsError(name, `role must be one of ${ROLES.join(', ')} (entries are role:token), got ${JSON.stringify(role)}`);
    }
    if (token.length < 16) throw new SettingsError(name, `a ${role} token is shorter than 16 characters`);
    return { role: role as Role, token };
  });
}

function envPrefix(raw: string | undefined, name: string): string {
  const v = raw?.trim() || 'HOOKS_SECRET_';
  if (!/^[A-Za-z_][A-Za-z0-9_]{2,63}$/.test(v)) throw new SettingsError(name, `must be a variable-name prefix of 3 to 64 letters, digits or _, got ${JSON.stringify(raw)}`);
  return v;
}

function secretDirs(raw: string | undefined, name: string): string[] {
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
function prefix(def: string, pattern: RegExp, what: string): (raw: string | undefined, name: string) => string {
  return (raw, name) => {
    if (raw === undefined) return def;
    const v = raw.trim();
    if (v === '') throw new SettingsError(name, `must not be empty (unset it for the default ${def})`);
    if (!pattern.test(v)) throw new SettingsError(name, `must be ${what}, got ${JSON.stringify(raw)}`);
    return v;
  };
}

/** A host name or an IP address to bind. */
function host(def: string): (raw: string | undefined, name: string) => string {
  return (raw, name) => {
    const v = raw?.trim() || def;
    const hostname = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
    if (isIP(v) === 0 && !hostname.test(v)) throw new SettingsError(name, `must be an IP address or a host name to bind, got ${JSON.stringify(raw)}`);
    return v;
  };
}

/** Addresses and CIDR ranges (`10.0.0.0/8`, `::1`); the first entry that is neither is named. */
function proxies(raw: string | undefined, name: string): string[] {
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
function allowlist(raw: string | undefined, name: string): string[] {
  const entries = list(['*'])(raw);
  for (const e of entries) {
    if (!ALLOWLIST_ENTRY_PATTERN.test(e)) throw new SettingsError(name, `entry ${JSON.stringify(e)} is not *, a tool name or !name`);
  }
  const parsed = parseAllowlist(entries);
  if (raw !== undefined && raw.trim() !== '' && entries.length === 0) throw new SettingsError(name, `allows no tool, got ${JSON.stringify(raw)} (unset it for *)`);
  if (!parsed.all && parsed.names.size === 0) {
    throw new SettingsError(name, `allows no tool: ${JSON.stringify(raw)} only excludes; add * (e.g. "*,${entries[0] ?? '!name'}") or the names to allow`);
  }
  return entries;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const SPEC = {
  retryBaseMs: { doc: 'HOOKS_RUN_RETRY_BASE_SECONDS: first retry delay (default 2)', parse: seconds(2) },
  retryCapMs: { doc: 'HOOKS_RUN_RETRY_CAP_SECONDS: longest retry delay (default 300)', parse: seconds(300) },
  maxAttempts: { doc: 'HOOKS_RUN_MAX_ATTEMPTS: attempts in all before a run is held as failed (default 5)', parse: int(5, 1, 1000) },
  leaseMs: { doc: 'HOOKS_RUN_LEASE_SECONDS: lease of a running attempt, renewed while it runs (default 30)', parse: seconds(30, 0.05) },
  sweepMs: { doc: 'HOOKS_RUN_SWEEP_SECONDS: how often the scheduler sweeps due runs and lapsed leases (default 5)', parse: seconds(5, 0.01) },
  shutdownGraceMs: { doc: 'HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: time runs in flight get to finish on SIGTERM (default 20)', parse: seconds(20) },
  maxWorkers: { doc: 'HOOKS_MAX_WORKERS: runs in flight per executor process (default 16)', parse: int(16, 1, 10000) },
  redisUrl: {
    doc: 'HOOKS_REDIS_URL (falls back to TAI_DEFAULT_REDIS_URL): Redis for hooks and runs (default: in-memory)',
    parse: (raw: string | undefined, name: string, env: Env) =>
      optUrl(['redis', 'rediss'])(raw ?? env.TAI_DEFAULT_REDIS_URL, raw === undefined && env.TAI_DEFAULT_REDIS_URL ? 'TAI_DEFAULT_REDIS_URL' : name),
  },
  redisCluster: {
    doc: 'HOOKS_REDIS_CLUSTER: HOOKS_REDIS_URL names a seed node of a Redis Cluster; the store and the door limiter follow its slots (default false)',
    parse: bool(false),
  },
  natsUrl: { doc: 'HOOKS_NATS_URL: NATS with JetStream for dispatch (default: in-memory)', parse: optUrl(['nats', 'tls', 'ws', 'wss']) },
  httpHost: { doc: 'HOOKS_HTTP_HOST: address the HTTP server binds (default 127.0.0.1)', parse: host('127.0.0.1') },
  httpPort: { doc: 'HOOKS_HTTP_PORT: HTTP port; 0 picks a free one (default 8080)', parse: int(8080, 0, 65535) },
  adminPort: {
    doc: 'HOOKS_ADMIN_PORT: when set, the ingress serves the management API, /metrics, /openapi.json and the console on this port and only the door, approval links and probes on HOOKS_HTTP_PORT; 0 picks a free one (default: one port for all)',
    parse: (raw: string | undefined, name: string) => (raw === undefined || raw.trim() === '' ? undefined : int(0, 0, 65535)(raw, name)),
  },
  apiTokens: { doc: 'HOOKS_API_TOKENS: management tokens, comma-separated role:token (role reader|operator|admin; a bare token is admin)', parse: tokens },
  natsPrefix: { doc: 'HOOKS_NATS_PREFIX: root of NATS subjects (<prefix>.runs.ready.*, <prefix>.ingest.*, <prefix>.events.run.*) and stream names (default hooks)', parse: prefix('hooks', /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/, 'NATS subject tokens (letters, digits, _ and -) joined by dots') },
  natsReplicas: { doc: 'HOOKS_NATS_REPLICAS: replicas of each JetStream stream the platform creates (runs, ingest), 1 to 5 (default 1)', parse: int(1, 1, 5) },
  natsDedupeMs: { doc: 'HOOKS_NATS_DEDUPE_SECONDS: how long the NATS door remembers a Nats-Msg-Id per topic, past JetStream\'s 2-minute window (default 86400)', parse: seconds(86400, 1) },
  keyPrefix: { doc: 'HOOKS_KEY_PREFIX: prefix of every Redis key (default hookyard)', parse: prefix('hookyard', /^[A-Za-z0-9_.:-]{1,64}$/, 'up to 64 letters, digits, _, ., : or - (no braces: the store adds its own hash tags)') },
  partitions: { doc: 'HOOKS_RUN_PARTITIONS: run partitions (Redis Cluster hash tags) (default 4)', parse: int(4, 1, 1024) },
  retentionMs: { doc: 'HOOKS_RUN_RETENTION_SECONDS: how long finished runs are kept; failed runs never expire (default 604800)', parse: seconds(604800, 1) },
  dispatchGraceMs: { doc: 'HOOKS_RUN_DISPATCH_GRACE_SECONDS: a due run nobody claimed is dispatched again after this (default 15)', parse: seconds(15, 0.01) },
  bodyMaxBytes: { doc: 'HOOKS_BODY_MAX_BYTES: largest body the public door reads (default 1048576)', parse: int(1048576, 1) },
  apiBodyMaxBytes: { doc: 'HOOKS_API_BODY_MAX_BYTES: largest management API request body; past it the API answers 413 (default 262144)', parse: int(262144, 1) },
  stateMaxBytes: { doc: 'HOOKS_STATE_MAX_BYTES: largest subject state document (its compact JSON); a larger write is refused, 400 from the API, bad_input from a state tool (default 65536)', parse: int(65536, 16, 16 * 1024 * 1024) },
  queryMaxBytes: { doc: 'HOOKS_QUERY_MAX_BYTES: longest query string the public door accepts (default 8192)', parse: int(8192, 1) },
  jqTimeoutMs: { doc: 'HOOKS_JQ_TIMEOUT_MS: time bound of one jq evaluation (default 1000)', parse: int(1000, 1) },
  toolTimeoutMs: { doc: 'HOOKS_TOOL_TIMEOUT_SECONDS: default time bound of one tool call (default 60)', parse: seconds(60, 0.001) },
  toolsAllow: { doc: 'HOOKS_TOOLS_ALLOW: tools this deployment allows, allowlist grammar (default *)', parse: allowlist },
  localFsRoot: { doc: 'HOOKS_LOCAL_FS_ROOT: the root local_fs is confined to and local_shell runs in; local_shell arguments are not path-checked (default: local_fs off)', parse: (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined) },
  localShellEnabled: { doc: 'HOOKS_LOCAL_SHELL_ENABLED: turns local_shell on (default false)', parse: bool(false) },
  localShellAllow: { doc: 'HOOKS_LOCAL_SHELL_ALLOW: commands local_shell may run (default none)', parse: list([]) },
  mcpStdioAllow: { doc: 'HOOKS_MCP_STDIO_ALLOW: commands a registered MCP server of transport stdio may spawn, exact strings (default none)', parse: list([]) },
  openapiMaxBytes: { doc: 'HOOKS_OPENAPI_MAX_BYTES: largest OpenAPI document a registered openapi tool may serve (default 67108864; GitHub\'s is 13 MB)', parse: int(64 * 1024 * 1024, 1024) },
  publicUrl: {
    doc: 'HOOKS_PUBLIC_URL: the ingress as people reach it (e.g. https://hooks.example.com), the base of approval links (default: no links)',
    parse: (raw: string | undefined, name: string) => {
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
    },
  },
  approvalLinkSecret: {
    doc: 'HOOKS_APPROVAL_LINK_SECRET: secret reference (env:NAME or file:/path) of the key approval links are signed with; with HOOKS_PUBLIC_URL, every approval gets approve_url and deny_url (default: no links)',
    parse: (raw: string | undefined, name: string) => {
      const v = raw?.trim();
      if (!v) return undefined;
      const bad = secretRefFormViolation(name, v);
      if (bad) throw new SettingsError(name, bad.slice(name.length + 1));
      return v;
    },
  },
  webhookAllowHosts: { doc: 'HOOKS_WEBHOOK_ALLOW_HOSTS: hosts the webhook tool may call (default none; their addresses must still pass HOOKS_OUTBOUND_ALLOW_NETS)', parse: list([]) },
  outboundAllowNets: {
    doc: 'HOOKS_OUTBOUND_ALLOW_NETS: address ranges (CIDR, comma-separated) outbound tool calls may reach although not public, e.g. 127.0.0.0/8,::1 on a laptop; loopback, link-local, private and reserved ranges are refused otherwise (default none)',
    parse: (raw: string | undefined, name: string) => {
      const nets = list([])(raw);
      for (const n of nets) {
        const [addr = '', bits, extra] = n.split('/');
        const okBits = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (addr.includes(':') ? 128 : 32));
        if (extra !== undefined || !okBits || !(isIPv4(addr) || isIPv6(addr))) throw new SettingsError(name, `not an address or CIDR range: ${JSON.stringify(n)}`);
      }
      return nets;
    },
  },
  secretEnvPrefix: { doc: 'HOOKS_SECRET_ENV_PREFIX: env: secret references must name a variable with this prefix; Hookyard\'s own HOOKS_* settings never (default HOOKS_SECRET_)', parse: envPrefix },
  secretDirs: { doc: 'HOOKS_SECRET_DIRS: file: secret references must lie in one of these directories, comma-separated; the Kubernetes service account never (default /var/run/secrets/hookyard)', parse: secretDirs },
  doorRate: { doc: 'HOOKS_DOOR_RATE: public door requests per second per client and per topic, fractions allowed (0.1 = one per 10 s); 0 turns the door limiter off, said at boot (default 200)', parse: num({ def: 200, min: 0 }) },
  doorBurst: { doc: 'HOOKS_DOOR_BURST: public door burst per client and per topic (default 400)', parse: int(400, 1) },
  apiRate: { doc: 'HOOKS_API_RATE: management requests per second per client, fractions allowed; 0 turns the API limiter off, said at boot (default 1000)', parse: num({ def: 1000, min: 0 }) },
  trustedProxies: { doc: 'HOOKS_TRUSTED_PROXIES: proxies whose X-Forwarded-For is believed, addresses and CIDR ranges (default none)', parse: proxies },
  logLevel: {
    doc: 'HOOKS_LOG_LEVEL: fatal|error|warn|info|debug|trace|silent (default info)',
    parse: (raw: string | undefined, name: string) => {
      const v = raw?.trim() || 'info';
      if (!LOG_LEVELS.includes(v)) throw new SettingsError(name, `must be one of ${LOG_LEVELS.join('|')}, got ${JSON.stringify(raw)}`);
      return v;
    },
  },
  instanceId: { doc: 'HOOKS_INSTANCE_ID: this process in lease owners and logs (default host-pid)', parse: str(`${hostname()}-${process.pid}`) },
} satisfies Record<string, Spec<unknown>>;

type SpecTable = typeof SPEC;
export type Settings = { [K in keyof SpecTable]: ReturnType<SpecTable[K]['parse']> };

/** Maps each settings field to its environment variable. */
export const SETTINGS_ENV: { [K in keyof Settings]: string } = Object.fromEntries(
  Object.entries(SPEC).map(([k, s]) => [k, s.doc.split(':')[0]!.split(' ')[0]!]),
) as { [K in keyof Settings]: string };

/** Every variable Hookyard reads, for deploy checks and `--help`. */
export const SETTINGS_VARIABLES: readonly string[] = [...Object.values(SETTINGS_ENV), 'TAI_DEFAULT_REDIS_URL'];

export function settingsDocs(): string[] {
  return Object.values(SPEC).map((s) => s.doc);
}

/** The secret references these settings allow. */
export function secretScopeOf(settings: Pick<Settings, 'secretEnvPrefix' | 'secretDirs'>): { envPrefix: string; dirs: readonly string[] } {
  return { envPrefix: settings.secretEnvPrefix, dirs: settings.secretDirs };
}

/** Reads and validates every setting. Throws SettingsError naming the first bad variable. */
export function loadSettings(env: Env = process.env, overrides: Partial<Settings> = {}): Settings {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(SPEC) as [keyof Settings, Spec<unknown>][]) {
    const name = SETTINGS_ENV[key];
    out[key] = key in overrides ? overrides[key] : spec.parse(env[name], name, env);
  }
  const s = out as Settings;
  if (s.adminPort !== undefined && s.adminPort !== 0 && s.adminPort === s.httpPort) {
    throw new SettingsError('HOOKS_ADMIN_PORT', `must differ from HOOKS_HTTP_PORT (${s.httpPort}): it exists to keep the management API off the public port`);
  }
  if (s.retryCapMs < s.retryBaseMs) {
    throw new SettingsError('HOOKS_RUN_RETRY_CAP_SECONDS', `must be >= HOOKS_RUN_RETRY_BASE_SECONDS (${s.retryBaseMs / 1000})`);
  }
  return s;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export interface UnknownSetting {
  variable: string;
  /** The known setting nearest in spelling, when one is close enough to be a typo. */
  suggestion: string | null;
}

/**
 * `HOOKS_*` variables in `env` that no setting reads (a typo is silently the
 * default otherwise), each with the nearest known name. Variables under the
 * secret prefix (`HOOKS_SECRET_ENV_PREFIX`, default HOOKS_SECRET_) are secrets, not settings.
 */
export function unknownSettings(env: Env, secretPrefix = 'HOOKS_SECRET_'): UnknownSetting[] {
  const known = new Set(SETTINGS_VARIABLES);
  const out: UnknownSetting[] = [];
  for (const variable of Object.keys(env).sort()) {
    if (!variable.startsWith('HOOKS_') || known.has(variable) || variable.startsWith(secretPrefix)) continue;
    let best: string | null = null;
    let bestD = Infinity;
    for (const k of known) {
      const d = distance(variable, k);
      if (d < bestD) [best, bestD] = [k, d];
    }
    out.push({ variable, suggestion: best !== null && bestD <= Math.max(2, Math.floor(variable.length / 5)) ? best : null });
  }
  return out;
}

/** The one WARN line for an unknown variable. */
export function unknownSettingMessage(u: UnknownSetting): string {
  return `${u.variable} is not a Hookyard setting and is ignored${u.suggestion ? `; did you mean ${u.suggestion}?` : ' (see `hookyard settings`)'}`;
}

/**
 * What can only be checked against the machine, at boot: `HOOKS_LOCAL_FS_ROOT`
 * must be an existing directory (local_fs would otherwise fail on every call).
 */
export function checkSettingsAtBoot(s: Pick<Settings, 'localFsRoot'>, stat: (path: string) => { isDirectory(): boolean } = statSync): void {
  if (s.localFsRoot === undefined) return;
  let st: { isDirectory(): boolean };
  try {
    st = stat(s.localFsRoot);
  } catch (err) {
    throw new SettingsError('HOOKS_LOCAL_FS_ROOT', `${s.localFsRoot} does not exist or cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!st.isDirectory()) throw new SettingsError('HOOKS_LOCAL_FS_ROOT', `${s.localFsRoot} is not a directory`);
}
