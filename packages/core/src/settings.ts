import { hostname } from 'node:os';
import { statSync } from 'node:fs';
import {
  SettingsError,
  allowlist,
  audience,
  bool,
  claimName,
  envPrefix,
  host,
  int,
  issuers,
  list,
  logLevel,
  natsStorage,
  nets,
  num,
  optPort,
  optUrl,
  pemFile,
  prefix,
  proxies,
  publicUrl,
  roleMap,
  secretDirs,
  secretRef,
  seconds,
  str,
  tokens,
  type Env,
} from './settings-parsers';

export { ROLES, SettingsError } from './settings-parsers';
export type { ApiToken, Env, Role } from './settings-parsers';

/**
 * Settings are parsed and validated into a typed object, at boot and on every
 * reload (see live-settings.ts). Durations become `…Ms` numbers. A bad value
 * throws a SettingsError naming the variable.
 *
 * The registry below is keyed by variable name; the docs (`hookyard
 * settings`, the table in docs/settings.md), the unknown-variable warning, validation and
 * live reload all read it.
 */
export interface SettingSpec<F extends string = string, T = unknown> {
  /** The field of the typed Settings object. */
  field: F;
  /** What it does, one line. */
  doc: string;
  /** The default as people read it. */
  default: string;
  /** Re-applied by a reload (SIGHUP, a change of HOOKS_CONFIG_FILE, POST /api/settings/reload); otherwise a change needs a restart. */
  live: boolean;
  /** How GET /api/settings shows it: `tokens` shows roles only, `url` hides a password in the URL. */
  secret?: 'tokens' | 'url';
  parse(raw: string | undefined, name: string, env: Env): T;
}

function setting<F extends string, T>(field: F, spec: Omit<SettingSpec<F, T>, 'field'>): SettingSpec<F, T> {
  return { field, ...spec };
}

const NATS_PREFIX = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

const REGISTRY = {
  HOOKS_RUN_RETRY_BASE_SECONDS: setting('retryBaseMs', { doc: 'first retry delay', default: '2', live: true, parse: seconds(2) }),
  HOOKS_RUN_RETRY_CAP_SECONDS: setting('retryCapMs', { doc: 'longest retry delay', default: '300', live: true, parse: seconds(300) }),
  HOOKS_RUN_MAX_ATTEMPTS: setting('maxAttempts', { doc: 'attempts in all before a run is held as failed', default: '5', live: true, parse: int(5, 1, 1000) }),
  HOOKS_RUN_LEASE_SECONDS: setting('leaseMs', {
    doc: 'lease of a running attempt, renewed while it runs',
    default: '30',
    live: false,
    parse: seconds(30, 0.05),
  }),
  HOOKS_RUN_SWEEP_SECONDS: setting('sweepMs', {
    doc: 'how often the scheduler sweeps due runs and lapsed leases',
    default: '5',
    live: false,
    parse: seconds(5, 0.01),
  }),
  HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: setting('shutdownGraceMs', {
    doc: 'time runs in flight get to finish on SIGTERM',
    default: '20',
    live: false,
    parse: seconds(20),
  }),
  HOOKS_MAX_WORKERS: setting('maxWorkers', {
    doc: 'runs in flight per executor process; a reload applies from the next run admitted, never cancelling one in flight',
    default: '16',
    live: true,
    parse: int(16, 1, 10000),
  }),
  HOOKS_REDIS_URL: setting('redisUrl', {
    doc: 'Redis for hooks and runs (falls back to TAI_DEFAULT_REDIS_URL)',
    default: 'in-memory',
    live: false,
    secret: 'url',
    parse: (raw: string | undefined, name: string, env: Env) =>
      optUrl(['redis', 'rediss'])(raw ?? env.TAI_DEFAULT_REDIS_URL, raw === undefined && env.TAI_DEFAULT_REDIS_URL ? 'TAI_DEFAULT_REDIS_URL' : name),
  }),
  HOOKS_REDIS_CLUSTER: setting('redisCluster', {
    doc: 'HOOKS_REDIS_URL names a seed node of a Redis Cluster; the store and the door limiter follow its slots',
    default: 'false',
    live: false,
    parse: bool(false),
  }),
  HOOKS_NATS_URL: setting('natsUrl', {
    doc: 'NATS with JetStream for dispatch',
    default: 'in-memory',
    live: false,
    secret: 'url',
    parse: optUrl(['nats', 'tls', 'ws', 'wss']),
  }),
  HOOKS_NATS_USER: setting('natsUser', {
    doc: 'user name Hookyard connects to NATS as, with HOOKS_NATS_PASSWORD',
    default: 'none',
    live: false,
    parse: (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined),
  }),
  HOOKS_NATS_PASSWORD: setting('natsPassword', {
    doc: 'secret reference (env:NAME or file:/path) of the password of HOOKS_NATS_USER',
    default: 'none',
    live: false,
    parse: secretRef,
  }),
  HOOKS_NATS_TOKEN: setting('natsToken', {
    doc: 'secret reference (env:NAME or file:/path) of a NATS authentication token',
    default: 'none',
    live: false,
    parse: secretRef,
  }),
  HOOKS_NATS_NKEY_SEED: setting('natsNkeySeed', {
    doc: 'secret reference (env:NAME or file:/path) of the NKey seed (SU...) Hookyard signs the NATS nonce with',
    default: 'none',
    live: false,
    parse: secretRef,
  }),
  HOOKS_NATS_CREDS: setting('natsCreds', {
    doc: 'secret reference (file:/path, or env:NAME) of a NATS .creds file (user JWT and NKey seed)',
    default: 'none',
    live: false,
    parse: secretRef,
  }),
  HOOKS_NATS_TLS_CA: setting('natsTlsCa', {
    doc: "PEM file of the CA the NATS server's certificate must chain to; turns TLS on",
    default: 'system CAs',
    live: false,
    parse: pemFile,
  }),
  HOOKS_NATS_TLS_CERT: setting('natsTlsCert', {
    doc: 'PEM client certificate for NATS TLS (mutual TLS), with HOOKS_NATS_TLS_KEY',
    default: 'none',
    live: false,
    parse: pemFile,
  }),
  HOOKS_NATS_TLS_KEY: setting('natsTlsKey', {
    doc: 'PEM private key of HOOKS_NATS_TLS_CERT',
    default: 'none',
    live: false,
    parse: pemFile,
  }),
  HOOKS_HTTP_HOST: setting('httpHost', { doc: 'address the HTTP server binds', default: '127.0.0.1', live: false, parse: host('127.0.0.1') }),
  HOOKS_HTTP_PORT: setting('httpPort', { doc: 'HTTP port; 0 picks a free one', default: '8080', live: false, parse: int(8080, 0, 65535) }),
  HOOKS_ADMIN_PORT: setting('adminPort', {
    doc: 'when set, the ingress serves the management API, the agent door (/mcp, /api/calls), /metrics, /openapi.json and the console on this port and only the door, approval links, probes and the icon (/favicon.ico, also on this port) on HOOKS_HTTP_PORT; 0 picks a free one',
    default: 'one port for all',
    live: false,
    parse: optPort,
  }),
  HOOKS_API_TOKENS: setting('apiTokens', {
    doc: 'management tokens, comma-separated role:token (role reader|operator|admin; a bare token is admin)',
    default: 'generated (embedded default only)',
    live: false,
    secret: 'tokens',
    parse: tokens,
  }),
  HOOKS_NATS_PREFIX: setting('natsPrefix', {
    doc: 'root of NATS subjects (<prefix>.runs.ready.*, <prefix>.ingest.*, <prefix>.events.run.*, <prefix>.discovery.request) and stream names',
    default: 'hooks',
    live: false,
    parse: prefix('hooks', NATS_PREFIX, 'NATS subject tokens (letters, digits, _ and -) joined by dots'),
  }),
  HOOKS_NATS_REPLICAS: setting('natsReplicas', {
    doc: 'replicas of each JetStream stream the platform creates (runs, ingest), 1 to 5',
    default: '1',
    live: false,
    parse: int(1, 1, 5),
  }),
  HOOKS_NATS_STORAGE: setting('natsStorage', {
    doc: 'where the run stream keeps dispatches: file or memory (Redis holds the runs and the sweep re-dispatches any a NATS restart drops); a run stream of the other kind is moved at start, its dispatches carried over',
    default: 'file',
    live: false,
    parse: natsStorage,
  }),
  HOOKS_NATS_DEDUPE_SECONDS: setting('natsDedupeMs', {
    doc: "how long the NATS door remembers a Nats-Msg-Id per topic (the ingest stream's own window is JetStream's shortest, 100 ms: it spans every topic)",
    default: '86400',
    live: false,
    parse: seconds(86400, 1),
  }),
  HOOKS_NATS_INGEST_MAX_BYTES: setting('natsIngestMaxBytes', {
    doc: 'bytes the ingest stream holds at most while the ingress is away; a publish past it is refused (discard new), nothing held is dropped',
    default: '1073741824',
    live: false,
    parse: int(1024 ** 3, 1024),
  }),
  HOOKS_NATS_INBOX_PREFIX: setting('natsInboxPrefix', {
    doc: "inbox prefix of the role's NATS replies; give each role's NATS user subscribe rights on <prefix>.> only",
    default: '_INBOX_<role>',
    live: false,
    parse: (raw: string | undefined, name: string) =>
      raw?.trim() ? prefix('', NATS_PREFIX, 'NATS subject tokens (letters, digits, _ and -) joined by dots')(raw, name) : undefined,
  }),
  HOOKS_KEY_PREFIX: setting('keyPrefix', {
    doc: 'prefix of every Redis key',
    default: 'hookyard',
    live: false,
    parse: prefix('hookyard', /^[A-Za-z0-9_.:-]{1,64}$/, 'up to 64 letters, digits, _, ., : or - (no braces: the store adds its own hash tags)'),
  }),
  HOOKS_RUN_PARTITIONS: setting('partitions', { doc: 'run partitions (Redis Cluster hash tags)', default: '4', live: false, parse: int(4, 1, 1024) }),
  HOOKS_RUN_RETENTION_SECONDS: setting('retentionMs', {
    doc: 'how long finished runs are kept; failed runs never expire',
    default: '604800',
    live: false,
    parse: seconds(604800, 1),
  }),
  HOOKS_UNROUTED_KEEP: setting('unroutedKeep', {
    doc: 'events kept per topic that has no hook (the newest; GET /api/unrouted); 0 keeps none',
    default: '100',
    live: false,
    parse: int(100, 0, 10000),
  }),
  HOOKS_UNROUTED_TOPICS: setting('unroutedTopics', {
    doc: 'distinct topics without a hook whose events are kept; past it the topic seen longest ago is dropped',
    default: '1000',
    live: false,
    parse: int(1000, 1, 100000),
  }),
  HOOKS_UNROUTED_RETENTION_SECONDS: setting('unroutedRetentionMs', {
    doc: 'how long an event on a topic without a hook is kept',
    default: '604800',
    live: false,
    parse: seconds(604800, 1),
  }),
  HOOKS_UNROUTED_MAX_BYTES: setting('unroutedMaxBytes', {
    doc: 'bytes (of their JSON) all events kept on topics without a hook may take together; past it the oldest are dropped, counted',
    default: '16777216',
    live: false,
    parse: int(16 * 1024 * 1024, 1024, 2 ** 40),
  }),
  HOOKS_UNROUTED_EVENT_MAX_BYTES: setting('unroutedEventMaxBytes', {
    doc: 'bytes (of its JSON) one event kept on a topic without a hook may take; a larger one keeps the start of its payload, marked payload_truncated',
    default: '65536',
    live: false,
    parse: int(64 * 1024, 1024, 2 ** 30),
  }),
  HOOKS_AUDIT_RETENTION_DAYS: setting('auditRetentionMs', {
    doc: 'how long audit trail entries (every operator and admin change, GET /api/audit) are kept, in whole days',
    default: '30',
    live: false,
    parse: num({ def: 30, min: 1, max: 3650, integer: true, scale: 86_400_000 }),
  }),
  HOOKS_AUDIT_MAX_ENTRIES: setting('auditMaxEntries', {
    doc: 'most changes the audit trail keeps, whatever their age; past it the oldest change goes (refused attempts are bounded apart)',
    default: '20000',
    live: false,
    parse: int(20000, 100, 1_000_000),
  }),
  HOOKS_AUDIT_MAX_REFUSED: setting('auditMaxRefused', {
    doc: 'most refused attempts (4xx answers) the audit trail keeps, apart from changes; past it the oldest refusal goes, never a change',
    default: '2000',
    live: false,
    parse: int(2000, 10, 1_000_000),
  }),
  HOOKS_RUN_DISPATCH_GRACE_SECONDS: setting('dispatchGraceMs', {
    doc: 'a due run nobody claimed is dispatched again after this',
    default: '15',
    live: false,
    parse: seconds(15, 0.01),
  }),
  HOOKS_BODY_MAX_BYTES: setting('bodyMaxBytes', { doc: 'largest body the public door reads', default: '1048576', live: false, parse: int(1048576, 1) }),
  HOOKS_API_BODY_MAX_BYTES: setting('apiBodyMaxBytes', {
    doc: 'largest management API request body; past it the API answers 413',
    default: '262144',
    live: false,
    parse: int(262144, 1),
  }),
  HOOKS_STATE_MAX_BYTES: setting('stateMaxBytes', {
    doc: 'largest subject state document (its compact JSON); a larger write is refused, 400 from the API, bad_input from a state tool',
    default: '65536',
    live: false,
    parse: int(65536, 16, 16 * 1024 * 1024),
  }),
  HOOKS_QUERY_MAX_BYTES: setting('queryMaxBytes', { doc: 'longest query string the public door accepts', default: '8192', live: false, parse: int(8192, 1) }),
  HOOKS_JQ_TIMEOUT_MS: setting('jqTimeoutMs', { doc: 'time bound of one jq evaluation', default: '1000', live: false, parse: int(1000, 1) }),
  HOOKS_SEARCH_STEP_BUDGET: setting('searchStepBudget', {
    doc: "steps one in-process jq evaluation of a run search (GET /api/hook-runs?where=) may take, past which the search's own jq-wasm worker answers it (a hook condition has 50000)",
    default: '10000',
    live: false,
    parse: int(10000, 100, 50000),
  }),
  HOOKS_DISCOVERY_TIMEOUT_SECONDS: setting('discoveryTimeoutMs', {
    doc: 'how long the ingress waits for an executor to discover a registration or describe the registered tools; past it the API answers 503',
    default: '20',
    live: false,
    parse: seconds(20, 0.01),
  }),
  HOOKS_TOOL_TIMEOUT_SECONDS: setting('toolTimeoutMs', {
    doc: 'default time bound of one tool call; a reload applies to the next call started',
    default: '60',
    live: true,
    parse: seconds(60, 0.001),
  }),
  HOOKS_TOOLS_ALLOW: setting('toolsAllow', {
    doc: 'tools this deployment allows, allowlist grammar; checked at call time',
    default: '*',
    live: true,
    parse: allowlist,
  }),
  HOOKS_LOCAL_FS_ROOT: setting('localFsRoot', {
    doc: 'the root local_fs is confined to and local_shell runs in; local_shell arguments are not path-checked',
    default: 'local_fs off',
    live: false,
    parse: (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined),
  }),
  HOOKS_LOCAL_SHELL_ENABLED: setting('localShellEnabled', { doc: 'turns local_shell on', default: 'false', live: false, parse: bool(false) }),
  HOOKS_LOCAL_SHELL_ALLOW: setting('localShellAllow', { doc: 'commands local_shell may run', default: 'none', live: false, parse: list([]) }),
  HOOKS_MCP_STDIO_ALLOW: setting('mcpStdioAllow', {
    doc: 'commands a registered MCP server of transport stdio may spawn, exact strings',
    default: 'none',
    live: false,
    parse: list([]),
  }),
  HOOKS_OPENAPI_MAX_BYTES: setting('openapiMaxBytes', {
    doc: "largest OpenAPI document a registered openapi tool may serve (GitHub's is 13 MB)",
    default: '67108864',
    live: false,
    parse: int(64 * 1024 * 1024, 1024),
  }),
  HOOKS_PUBLIC_URL: setting('publicUrl', {
    doc: 'the ingress as people reach it (e.g. https://hooks.example.com), the base of approval links and of the full URL of a new trigger link',
    default: 'no links',
    live: false,
    parse: publicUrl,
  }),
  HOOKS_APPROVAL_LINK_SECRET: setting('approvalLinkSecret', {
    doc: 'secret reference (env:NAME or file:/path) of the key approval links are signed with; with HOOKS_PUBLIC_URL, every approval gets signed approve and deny links (shown to operators, handed to the tool of a hook on hooks_approval_requested as extras, never kept in a run)',
    default: 'no links',
    live: false,
    parse: secretRef,
  }),
  HOOKS_APPROVAL_LINK_TTL_SECONDS: setting('approvalLinkTtlMs', {
    doc: "how long a signed approval link works from when it is made (never past its approval's expires_at); a reload applies to the next link made",
    default: '3600',
    live: true,
    parse: seconds(3600, 1),
  }),
  HOOKS_APPROVAL_TIMEOUT_SECONDS: setting('approvalTimeoutMs', {
    doc: 'how long an approval stays open when its rule names no timeout_seconds; a reload applies to the next approval requested',
    default: '3600',
    live: true,
    parse: seconds(3600, 1),
  }),
  HOOKS_AGENT_WAIT_SECONDS: setting('agentWaitMs', {
    doc: "how long an agent's call waits for its outcome before answering that it is still waiting (a request's wait_seconds may only lower it); a reload applies to the next call",
    default: '30',
    live: true,
    parse: num({ def: 30, min: 0, max: 300, scale: 1000 }),
  }),
  HOOKS_AGENT_PROGRESS_SECONDS: setting('agentProgressMs', {
    doc: 'how often /mcp sends a progress notification to a tools/call that sent a progressToken while the call waits (on an approval, an executor or a retry); such a call waits through its approval instead of answering after HOOKS_AGENT_WAIT_SECONDS, so a client that resets its timeout on progress gets the outcome in the same request; a reload applies to the next call',
    default: '15',
    live: true,
    parse: num({ def: 15, min: 0.05, max: 300, scale: 1000 }),
  }),
  HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS: setting('agentProgressMaxWaitMs', {
    doc: "how long at most a /mcp tools/call that sent a progressToken waits for its outcome, told of progress (never less than HOOKS_AGENT_WAIT_SECONDS; a parked call's wait ends at its approval's expiry plus HOOKS_AGENT_WAIT_SECONDS, when the expiry's outcome has come); then it answers that it still waits; a reload applies to the next call",
    default: '3600',
    live: true,
    parse: num({ def: 3600, min: 0, max: 86400, scale: 1000 }),
  }),
  HOOKS_AGENT_ALLOWED_HOSTS: setting('agentAllowedHosts', {
    doc: "host names /mcp accepts in Host and Origin besides loopback and HOOKS_PUBLIC_URL's (comma-separated, e.g. the in-cluster service name); any other is refused (DNS-rebinding protection)",
    default: 'none',
    live: false,
    parse: list([]),
  }),
  HOOKS_OIDC_ISSUER: setting('oidcIssuers', {
    doc: "issuer URLs (comma-separated, each exactly as its tokens' `iss`) whose JWT access tokens the agent door accepts beside hya_ tokens; keys come from each issuer's metadata (RFC 8414 / OIDC discovery); https, or http on loopback only",
    default: 'none (hya_ tokens only)',
    live: false,
    parse: issuers,
  }),
  HOOKS_OIDC_AGENT_AUDIENCE: setting('oidcAgentAudience', {
    doc: 'the audience (RFC 8707 resource) an access token for the agent door must carry; also the `resource` of /.well-known/oauth-protected-resource',
    default: 'HOOKS_PUBLIC_URL + /mcp',
    live: false,
    parse: audience,
  }),
  HOOKS_OIDC_API_AUDIENCE: setting('oidcApiAudience', {
    doc: "the audience an access token for the management API (people: the console, scripts) must carry; set it to let the IdP's people in beside the static role tokens. Never the agent door's audience: a token for one is refused by the other",
    default: 'none (static role tokens only)',
    live: false,
    parse: audience,
  }),
  HOOKS_OIDC_ROLES_CLAIM: setting('oidcRolesClaim', {
    doc: "the claim of a person's access token that holds their role(s): a string or a list; each value reader, operator or admin, or a group mapped by HOOKS_OIDC_ROLE_MAP. The strongest role found wins",
    default: 'roles',
    live: false,
    parse: claimName,
  }),
  HOOKS_OIDC_ROLE_MAP: setting('oidcRoleMap', {
    doc: 'IdP values of the roles claim mapped to roles, `value=role` comma-separated (e.g. `hy-admins=admin,hy-ops=operator`); without it the values must be reader, operator or admin themselves',
    default: 'none',
    live: false,
    parse: roleMap,
  }),
  HOOKS_OIDC_CONSOLE_CLIENT_ID: setting('oidcConsoleClientId', {
    doc: 'the client id of the console at the IdP (a public client: authorization code + PKCE, redirect URI HOOKS_PUBLIC_URL + /console/); shows the console\'s "Sign in with" button',
    default: 'none (the console takes pasted tokens only)',
    live: false,
    parse: (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined),
  }),
  HOOKS_OIDC_CONSOLE_SCOPE: setting('oidcConsoleScope', {
    doc: 'the scopes the console asks the IdP for (space-separated): offline_access for a refresh token, plus whatever scope your IdP needs to issue a token for HOOKS_OIDC_API_AUDIENCE',
    default: 'openid offline_access',
    live: false,
    parse: str('openid offline_access'),
  }),
  HOOKS_WEBHOOK_ALLOW_HOSTS: setting('webhookAllowHosts', {
    doc: 'hosts the webhook tool may call (their addresses must still pass HOOKS_OUTBOUND_ALLOW_NETS)',
    default: 'none',
    live: false,
    parse: list([]),
  }),
  HOOKS_OUTBOUND_ALLOW_NETS: setting('outboundAllowNets', {
    doc: 'address ranges (CIDR, comma-separated) outbound tool calls may reach although not public, e.g. 127.0.0.0/8,::1 on a laptop; loopback, link-local, private and reserved ranges are refused otherwise',
    default: 'none',
    live: false,
    parse: nets,
  }),
  HOOKS_SECRET_ENV_PREFIX: setting('secretEnvPrefix', {
    doc: "env: secret references must name a variable with this prefix; Hookyard's own HOOKS_* settings never",
    default: 'HOOKS_SECRET_',
    live: false,
    parse: envPrefix,
  }),
  HOOKS_SECRET_DIRS: setting('secretDirs', {
    doc: 'file: secret references must lie in one of these directories, comma-separated; the Kubernetes service account never',
    default: '/var/run/secrets/hookyard',
    live: false,
    parse: secretDirs,
  }),
  HOOKS_DOOR_RATE: setting('doorRate', {
    doc: 'public door requests per second per client and per topic, fractions allowed (0.1 = one per 10 s); 0 turns the door limiter off, said at boot',
    default: '200',
    live: true,
    parse: num({ def: 200, min: 0 }),
  }),
  HOOKS_DOOR_BURST: setting('doorBurst', { doc: 'public door burst per client and per topic', default: '400', live: true, parse: int(400, 1) }),
  HOOKS_API_RATE: setting('apiRate', {
    doc: 'management requests per second per client, fractions allowed; 0 turns the API limiter off, said at boot',
    default: '1000',
    live: true,
    parse: num({ def: 1000, min: 0 }),
  }),
  HOOKS_API_BURST: setting('apiBurst', {
    doc: 'management API burst per client',
    default: "one second's worth of HOOKS_API_RATE",
    live: true,
    parse: (raw: string | undefined, name: string) => (raw === undefined || raw.trim() === '' ? undefined : int(1, 1)(raw, name)),
  }),
  HOOKS_AGENT_RATE: setting('agentRate', {
    doc: 'agent door (/mcp) requests per second per agent, fractions allowed; 0 turns the agent limiter off',
    default: '50',
    live: true,
    parse: num({ def: 50, min: 0 }),
  }),
  HOOKS_AGENT_BURST: setting('agentBurst', { doc: 'agent door burst per agent', default: '100', live: true, parse: int(100, 1) }),
  HOOKS_EVENT_STREAMS_MAX: setting('eventStreamsMax', {
    doc: 'GET /api/events streams open at once per ingress; past it a new one is 503',
    default: '200',
    live: true,
    parse: int(200, 2, 100000),
  }),
  HOOKS_EVENT_STREAMS_PER_TOKEN: setting('eventStreamsPerToken', {
    doc: 'GET /api/events streams one token may hold open at once, per ingress; past it a new one is 429. Reader tokens together stop this many short of HOOKS_EVENT_STREAMS_MAX, which is kept for operator and admin tokens',
    default: '8',
    live: true,
    parse: int(8, 1, 1000),
  }),
  HOOKS_TRUSTED_PROXIES: setting('trustedProxies', {
    doc: 'proxies whose X-Forwarded-For is believed, addresses and CIDR ranges',
    default: 'none',
    live: false,
    parse: proxies,
  }),
  HOOKS_LOG_LEVEL: setting('logLevel', { doc: 'fatal|error|warn|info|debug|trace|silent', default: 'info', live: true, parse: logLevel }),
  HOOKS_INSTANCE_ID: setting('instanceId', {
    doc: 'this process in lease owners and logs',
    default: 'host-pid',
    live: false,
    parse: str(`${hostname()}-${process.pid}`),
  }),
  HOOKS_CONFIG_FILE: setting('configFile', {
    doc: 'a YAML or JSON file of settings by the same names (what a Kubernetes ConfigMap mounts); the environment wins on a clash; watched, and re-read on SIGHUP',
    default: 'none',
    live: false,
    parse: (raw: string | undefined) => (raw?.trim() ? raw.trim() : undefined),
  }),
};

type Registry = typeof REGISTRY;
/** A variable name of the registry. */
export type SettingVariable = keyof Registry;
export type Settings = { [V in keyof Registry as Registry[V]['field']]: ReturnType<Registry[V]['parse']> };

/** The registry, keyed by variable name. */
export const SETTINGS_REGISTRY: Readonly<Record<SettingVariable, SettingSpec<string, unknown>>> = REGISTRY;

/** Maps each settings field to its environment variable. */
export const SETTINGS_ENV: { [K in keyof Settings]: string } = Object.fromEntries(
  Object.entries(SETTINGS_REGISTRY).map(([variable, s]) => [s.field, variable]),
) as { [K in keyof Settings]: string };

/** Variables read besides the registry's own (a fallback name). */
const ALIASES = ['TAI_DEFAULT_REDIS_URL'];

/** Every variable Hookyard reads, for deploy checks and `--help`. */
export const SETTINGS_VARIABLES: readonly string[] = [...Object.keys(SETTINGS_REGISTRY), ...ALIASES];

/** The variables a reload re-applies. */
export const LIVE_SETTINGS: readonly string[] = Object.entries(SETTINGS_REGISTRY)
  .filter(([, s]) => s.live)
  .map(([v]) => v);

/** One line per setting, `VARIABLE: what (default X)`, listed by `hookyard settings`. */
export function settingsDocs(): string[] {
  return Object.entries(SETTINGS_REGISTRY).map(([v, s]) => `${v}: ${s.doc} (default ${s.default}${s.live ? '; applies live' : '; needs a restart'})`);
}

/** The secret references these settings allow. */
export function secretScopeOf(settings: Pick<Settings, 'secretEnvPrefix' | 'secretDirs'>): { envPrefix: string; dirs: readonly string[] } {
  return { envPrefix: settings.secretEnvPrefix, dirs: settings.secretDirs };
}

/** Reads and validates every setting. Throws SettingsError naming the first bad variable. */
export function loadSettings(env: Env = process.env, overrides: Partial<Settings> = {}): Settings {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(SETTINGS_REGISTRY)) {
    out[spec.field] = spec.field in overrides ? (overrides as Record<string, unknown>)[spec.field] : spec.parse(env[name], name, env);
  }
  const s = out as Settings;
  if (s.adminPort !== undefined && s.adminPort !== 0 && s.adminPort === s.httpPort) {
    throw new SettingsError('HOOKS_ADMIN_PORT', `must differ from HOOKS_HTTP_PORT (${s.httpPort}): it exists to keep the management API off the public port`);
  }
  checkNatsCredentials(s);
  if (s.eventStreamsPerToken >= s.eventStreamsMax) {
    throw new SettingsError(
      'HOOKS_EVENT_STREAMS_PER_TOKEN',
      `must be less than HOOKS_EVENT_STREAMS_MAX (${s.eventStreamsMax}): that many streams are kept for operator and admin tokens, and readers need at least one`,
    );
  }
  if (s.unroutedEventMaxBytes > s.unroutedMaxBytes) {
    throw new SettingsError(
      'HOOKS_UNROUTED_EVENT_MAX_BYTES',
      `must be <= HOOKS_UNROUTED_MAX_BYTES (${s.unroutedMaxBytes}): one event may not take more than all of them`,
    );
  }
  checkOidc(s);
  if (s.retryCapMs < s.retryBaseMs) {
    throw new SettingsError('HOOKS_RUN_RETRY_CAP_SECONDS', `must be >= HOOKS_RUN_RETRY_BASE_SECONDS (${s.retryBaseMs / 1000})`);
  }
  return s;
}

/**
 * One way to authenticate to NATS at a time (user and password, a token, an
 * NKey seed or a .creds file), each whole, only with a NATS to connect to; a
 * client certificate comes with its key. Anything else is refused naming the
 * variables, rather than guessing which one wins.
 */
function checkNatsCredentials(s: Settings): void {
  const ways = [
    (s.natsUser !== undefined || s.natsPassword !== undefined) && 'HOOKS_NATS_USER/HOOKS_NATS_PASSWORD',
    s.natsToken !== undefined && 'HOOKS_NATS_TOKEN',
    s.natsNkeySeed !== undefined && 'HOOKS_NATS_NKEY_SEED',
    s.natsCreds !== undefined && 'HOOKS_NATS_CREDS',
  ].filter((w): w is string => typeof w === 'string');
  if (s.natsUser !== undefined && s.natsPassword === undefined)
    throw new SettingsError('HOOKS_NATS_PASSWORD', 'must be set with HOOKS_NATS_USER (a secret reference, env:NAME or file:/path)');
  if (s.natsPassword !== undefined && s.natsUser === undefined) throw new SettingsError('HOOKS_NATS_USER', 'must be set with HOOKS_NATS_PASSWORD');
  if (ways.length > 1) throw new SettingsError(ways[1]!.split('/')[0]!, `NATS takes one way to authenticate, got ${ways.join(' and ')}; set only one of them`);
  if ((s.natsTlsCert === undefined) !== (s.natsTlsKey === undefined)) {
    const [set, unset] = s.natsTlsCert !== undefined ? ['HOOKS_NATS_TLS_CERT', 'HOOKS_NATS_TLS_KEY'] : ['HOOKS_NATS_TLS_KEY', 'HOOKS_NATS_TLS_CERT'];
    throw new SettingsError(unset, `must be set with ${set} (a client certificate needs its key)`);
  }
  const tls = [s.natsTlsCa !== undefined && 'HOOKS_NATS_TLS_CA', s.natsTlsCert !== undefined && 'HOOKS_NATS_TLS_CERT'].filter(Boolean);
  const given = [...ways, ...tls];
  if (given.length > 0 && s.natsUrl === undefined) {
    throw new SettingsError(
      String(given[0]).split('/')[0]!,
      `${given.join(', ')} set without HOOKS_NATS_URL: there is no NATS to connect to; set HOOKS_NATS_URL or unset them`,
    );
  }
  if (ways.length > 0 && s.natsUrl !== undefined && natsUrlHasUserInfo(s.natsUrl)) {
    throw new SettingsError('HOOKS_NATS_URL', `carries credentials (user info before @) and ${ways[0]} is set too; keep the credentials in one place`);
  }
}

/**
 * The agent door's OAuth settings make sense together: an audience needs an
 * issuer to trust, and an issuer needs an audience (given, or HOOKS_PUBLIC_URL's
 * /mcp) that tokens are checked against and the resource metadata names.
 */
function checkOidc(s: Settings): void {
  checkOidcPeople(s);
  if (s.oidcIssuers.length === 0) {
    if (s.oidcAgentAudience !== undefined) {
      throw new SettingsError(
        'HOOKS_OIDC_AGENT_AUDIENCE',
        'is set without HOOKS_OIDC_ISSUER: no token could be checked against it; set the issuer or unset the audience',
      );
    }
    return;
  }
  if (s.oidcAgentAudience === undefined && s.publicUrl === undefined) {
    throw new SettingsError(
      'HOOKS_OIDC_ISSUER',
      "is set but neither HOOKS_PUBLIC_URL nor HOOKS_OIDC_AGENT_AUDIENCE is: access tokens need this resource's URL as their audience; set HOOKS_PUBLIC_URL (the audience is then its /mcp URL)",
    );
  }
  if (s.oidcAgentAudience !== undefined && !/^https?:/.test(s.oidcAgentAudience) && s.publicUrl === undefined) {
    throw new SettingsError(
      'HOOKS_OIDC_AGENT_AUDIENCE',
      `${JSON.stringify(s.oidcAgentAudience)} is not an http(s) URL, so the resource metadata has no address to be served from; set HOOKS_PUBLIC_URL too`,
    );
  }
}

/**
 * People through the IdP: an API audience needs an issuer and must differ
 * from the agent door's (else one token would open both doors); the console
 * client and a role mapping mean nothing without the API audience.
 */
function checkOidcPeople(s: Settings): void {
  const people = [
    s.oidcConsoleClientId !== undefined && 'HOOKS_OIDC_CONSOLE_CLIENT_ID',
    Object.keys(s.oidcRoleMap).length > 0 && 'HOOKS_OIDC_ROLE_MAP',
    s.oidcRolesClaim !== 'roles' && 'HOOKS_OIDC_ROLES_CLAIM',
    s.oidcConsoleScope !== 'openid offline_access' && 'HOOKS_OIDC_CONSOLE_SCOPE',
  ].filter((n): n is string => typeof n === 'string');
  if (s.oidcApiAudience === undefined) {
    if (people.length > 0) {
      throw new SettingsError(
        people[0]!,
        'is set without HOOKS_OIDC_API_AUDIENCE: people sign in only with tokens for the API; set the API audience or unset it',
      );
    }
    return;
  }
  if (s.oidcIssuers.length === 0) {
    throw new SettingsError(
      'HOOKS_OIDC_API_AUDIENCE',
      'is set without HOOKS_OIDC_ISSUER: no token could be checked against it; set the issuer or unset the audience',
    );
  }
  const agentAudience = s.oidcAgentAudience ?? (s.publicUrl !== undefined ? `${s.publicUrl}/mcp` : undefined);
  if (s.oidcApiAudience === agentAudience) {
    throw new SettingsError(
      'HOOKS_OIDC_API_AUDIENCE',
      `is the agent door's audience too (${s.oidcApiAudience}): a token for one door would open the other; give the API its own audience (e.g. HOOKS_PUBLIC_URL + /api)`,
    );
  }
}

/** Whether any server of a NATS server list carries user info (`user:pass@`, `token@`). */
function natsUrlHasUserInfo(url: string): boolean {
  return url.split(',').some((entry) => {
    try {
      const u = new URL(entry.trim());
      return u.username !== '' || u.password !== '';
    } catch {
      return false;
    }
  });
}

/** The known setting nearest `variable` in spelling, when one is close enough to be a typo. */
export function nearestSetting(variable: string): string | null {
  return nearestName(variable, SETTINGS_VARIABLES);
}

/**
 * The candidate nearest `word` in spelling, when one is close enough to be a
 * typo (for "did you mean": settings, hook fields, tool names); null otherwise.
 */
export function nearestName(word: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of candidates) {
    const d = distance(word, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== null && bestD <= Math.max(2, Math.floor(word.length / 5)) && bestD < word.length ? best : null;
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
    out.push({ variable, suggestion: nearestSetting(variable) });
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
