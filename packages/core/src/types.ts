import type { ErrorInfo } from './errors';
import type { ApprovalRule } from './approval';
import type { StringOrSecret } from './secrets';
import type { HttpExchange } from './http-exchange';

/** A jq field: inline `{content}` or a stored template `{id, kwargs}`. */
export type JqField = { content: string } | { id: string; kwargs?: Record<string, unknown> };

export interface HookSubject {
  scope: string;
  kind: string;
  key_expr: JqField;
  /**
   * The part of the declared state's document this hook writes (a JSON
   * pointer, "" for all of it), held against every other binding. Absent: a
   * subject as before declared states, writing the whole document beside other
   * such hooks.
   */
  attach?: string;
  /** Names of the declaration's templates attached to this hook at registration (their jq fills the hook's fields). */
  templates?: string[];
  /** The declaration version the attached templates were copied from. */
  declaration_version?: number;
}

/** A hook as registered: binds a topic to a tool. Field names are the wire names. */
export interface Hook {
  name: string;
  topic: string;
  tool: string;
  tool_kwargs: Record<string, unknown>;
  condition?: JqField;
  start_expr?: JqField;
  cancel_expr?: JqField;
  resume_expr?: JqField;
  extras_expr?: JqField;
  subject?: HookSubject;
  /** Tools this hook may reach (allowlist grammar); intersected with the deployment's. */
  tools_allow?: string[];
  /** The hook's own approval rules: they can only make a call stricter than the deployment's policy. */
  approval?: ApprovalRule[];
  description?: string;
  created_at: string;
  updated_at: string;
}

export const JQ_FIELDS = ['condition', 'start_expr', 'cancel_expr', 'resume_expr', 'extras_expr'] as const;
export type JqFieldName = (typeof JQ_FIELDS)[number];

export const RUN_STATUSES = ['pending', 'running', 'retry_wait', 'parked', 'succeeded', 'skipped', 'denied', 'cancelled', 'failed', 'discarded'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * What a run event says happened (the `event` of a RunSummary on
 * `<prefix>.events.run.<status>.<hook>` and `GET /api/events`): kept by a door
 * or an operator's replay (`accepted`), claimed by an executor (`started`),
 * parked on an interaction (`parked`), an attempt failed and another is due
 * (`retry_scheduled`), an outcome (`finished`), an operator's retry
 * (`retried`) or discard (`discarded`), its interaction was answered, resumed
 * by a hook or expired, so it is due again (`woken`).
 */
export const RUN_EVENT_TYPES = ['accepted', 'started', 'parked', 'retry_scheduled', 'finished', 'retried', 'discarded', 'woken'] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** States a run does not leave on its own. */
export const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(['succeeded', 'skipped', 'denied', 'cancelled', 'discarded']);

export type Acted = '' | 'cancel' | 'resume' | 'take' | 'start';

export interface Lease {
  owner: string;
  /** Epoch ms after which the lease has lapsed. */
  until: number;
  /** Fencing token: bumped by every claim; a write with an older token is refused. */
  token: number;
}

/** One line of a run's history: what an attempt did and how it ended. */
export interface RunEvent {
  at: string;
  attempt: number;
  event: string;
  detail?: string;
  /** The reply of an HTTP-based tool's call, on the line that ended the attempt (succeeded, failed, retry_scheduled). */
  http?: HttpExchange;
}

/**
 * The way a run's event came in: the public webhook door (`http`), a NATS
 * ingest subject (`nats`), an operator's call through the management API
 * (`api`: a replay), the platform itself (`platform`: hooks_run_failed,
 * hooks_approval_requested), a trigger link (`trigger`: `POST /trigger/{token}`,
 * never verified), an agent's tool call (`agent`: `/mcp` or `POST /api/calls`).
 */
export const DOORS = ['http', 'nats', 'api', 'platform', 'agent', 'trigger'] as const;
export type Door = (typeof DOORS)[number];

/** A kept run. Timestamps are ISO strings on the wire. */
export interface Run {
  id: string;
  hook: string;
  topic: string;
  status: RunStatus;
  payload: unknown;
  /**
   * The request headers its delivery came with, as the door kept them: only
   * the allowlisted, secret-free names of KEPT_HEADERS, each value bounded
   * (keptHeaders). Every run of one delivery keeps the same. Null when none
   * were kept: a run kept before the doors kept headers, or by a door that
   * has none (api: a replay, platform, agent).
   */
  headers: Record<string, string> | null;
  attempts: number;
  acted: Acted;
  acted_ids: string[];
  claim_intent: string;
  error: ErrorInfo | null;
  result: unknown;
  /** The arguments the tool was started with (kept so a crash-resumable start replays the same input). */
  input: Record<string, unknown> | null;
  lease: Lease | null;
  /** When the run is next eligible to be claimed (ISO), null once finished. */
  due_at: string | null;
  delivery_id: string | null;
  /** The door the run's event came through (see DOORS). A run kept before doors were recorded reads `http`. */
  door: Door;
  /**
   * True only when the event passed a verifier binding's check at the HTTP
   * door as it was kept. Never copied: a replay, a NATS message (even on a
   * trusted topic) and a platform event are not verified. Only a verified run
   * may answer an approval.
   */
  verified: boolean;
  /** Set when the tool declared it can be replayed after a crash (same idempotency key). */
  resumable: boolean;
  /** The latest interaction this run parked on (kept after it is resolved, so the next attempt reads its answer). */
  interaction: string | null;
  /** The open interactions the run waits on: `[interaction]` while `parked`, else `[]`. */
  parked_on: string[];
  /** The run whose event this run replays (`POST /api/hook-runs/{id}/replay`), or null. */
  replay_of: string | null;
  /** The trigger link whose use kept this run (door `trigger`), or null. */
  trigger_link: string | null;
  /**
   * The W3C `traceparent` this run's spans continue: the door's request span
   * when tracing is on (every attempt, a resumed one too, joins that trace);
   * null when the run was kept with tracing off or by the platform.
   */
  traceparent: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  history: RunEvent[];
}

/**
 * A run without its bulky fields (payload, headers, input, result, history): what an
 * outcome write answers, and all that reporting a transition needs.
 */
export type RunHead = Omit<Run, 'payload' | 'headers' | 'input' | 'result' | 'history'>;

/** Bound on the JSON size of a kept result; larger results are truncated with a marker. */
export const RESULT_MAX_BYTES = 64 * 1024;

/** The tool extra carrying the run's idempotency key (compat name). */
export const TOOL_EXTRA_IDEMPOTENCY_KEY = 'tai42/idempotency_key';
/** The tool extra carrying the rendered subject `{scope, kind, key}` of a hook that declares one. */
export const TOOL_EXTRA_SUBJECT = 'tai42/subject';
/**
 * The idempotency key a run's tool call gets (in the extra
 * TOOL_EXTRA_IDEMPOTENCY_KEY): the run id, the same across its attempts, an
 * operator's retry and a crash-resumable replay of its start.
 */
export function idempotencyKeyOf(run: Pick<Run, 'id'>): string {
  return run.id;
}
/** The platform event topic fired for every run held as failed (compat name). */
export const HOOKS_RUN_FAILED_TOPIC = 'hooks_run_failed';
/**
 * Topics only the platform fires (hooks_run_failed, hooks_approval_requested):
 * both doors refuse them unless an operator bound a verifier (HTTP) — the NATS
 * door always — so nobody outside can forge an alert or an approval request.
 */
export const PLATFORM_EVENT_TOPICS: ReadonlySet<string> = new Set([HOOKS_RUN_FAILED_TOPIC, 'hooks_approval_requested']);

/** Wire protocols of a registered HTTP tool service. `langserve` is an alias of `langserve-direct`. */
export const REMOTE_PROTOCOLS = ['openai', 'openai-object', 'ollama', 'langserve-openai', 'langserve-direct'] as const;
export type RemoteProtocol = (typeof REMOTE_PROTOCOLS)[number];

/** A tool's own retry policy: applies after the tool has started (the platform adds none). */
export interface ToolRetryPolicy {
  max_attempts: number;
  base_ms: number;
  cap_ms: number;
  /** Error kinds worth another call. */
  kinds: string[];
}

/** Transports of a registered MCP server. */
export const MCP_TRANSPORTS = ['stdio', 'sse', 'streamable-http'] as const;
export type McpTransportKind = (typeof MCP_TRANSPORTS)[number];

/**
 * A registered remote tool (HTTP service), as kept in the store. Secrets never
 * appear here: a header, injected or metadata value is a literal (never for a
 * credential-looking name) or a reference `{"secret": "env:NAME"}` resolved at
 * call time.
 */
export interface RemoteToolRecord {
  name: string;
  /** `http` for the five wire protocols; `openapi`, `mcp`, `grpc` for discovered tools. */
  kind: 'http' | 'openapi' | 'mcp' | 'grpc';
  /** The service URL; empty for an MCP server spawned over stdio. */
  endpoint: string;
  /** kind `http` only (always set there). */
  method?: string;
  timeout_ms: number;
  /** Header values: literal strings or secret references. */
  headers: Record<string, StringOrSecret>;
  /** kind `http` only (always set there). */
  body_properties?: Record<string, unknown>;
  /** kind `http` only (always set there). */
  protocol?: RemoteProtocol;
  /** openapi, mcp: argument values (or secret references) the runtime applies to every call; hidden from the schemas the model sees. */
  injected?: Record<string, unknown>;
  /** openapi, mcp: which operations/tools to expose (allowlist grammar over their names after `<provider>__`); default all. */
  operations?: string[];
  /** mcp: how the server is reached. */
  transport?: McpTransportKind;
  /** mcp stdio: the command to spawn (must be listed in HOOKS_MCP_STDIO_ALLOW). */
  command?: string;
  /** mcp stdio: the command's arguments. */
  args?: string[];
  /** grpc: the text of a .proto file used instead of server reflection. */
  proto?: string;
  /** grpc: fully-qualified service names to expose; default all. */
  services?: string[];
  /** grpc: text metadata (literal strings or secret references) sent with every call. */
  metadata?: Record<string, StringOrSecret>;
  description?: string;
  retry?: ToolRetryPolicy;
  crash_resumable?: boolean;
  created_at: string;
  updated_at: string;
}

/** A topic's verifier binding. Secrets are referenced (`env:NAME` or `file:/path`), never stored. */
export interface VerifierBinding {
  topic: string;
  kind: 'shared_secret' | 'hmac' | 'github' | 'stripe' | 'slack' | 'standard-webhooks';
  /** Kind-specific settings (header names, algorithm, encoding, prefix, tolerance_seconds, …). */
  settings: Record<string, unknown>;
  /** One or more secret references; several during rotation. */
  secrets: string[];
  /**
   * `trusted`: the NATS door keeps messages on this topic (who may publish is
   * then up to NATS permissions; such runs are still not verified). Absent:
   * the NATS door refuses the topic.
   */
  nats?: 'trusted';
  created_at: string;
  updated_at: string;
}

/**
 * An open topic's dedupe key: a jq expression over `{headers, query, body}`
 * whose string (or number) answer is the event's delivery id, claimed for
 * `horizon_seconds` in the same write that keeps the runs.
 */
export interface DedupeBinding {
  topic: string;
  expr: string;
  horizon_seconds: number;
  created_at: string;
  updated_at: string;
}

/** A stored jq template, referenced by a hook's jq field as `{id, kwargs}`; kwargs bind as `$name`. */
export interface JqTemplate {
  id: string;
  content: string;
  description?: string;
}
