import type { AuditBounds, AuditEntry, AuditFilter, AuditPage, AuditRecorded } from './audit-rules';
import type { MinuteStats, PlainCounts } from './stats-rules';
import type {
  Acted,
  AgentCallPayload,
  AgentClient,
  AgentIdentity,
  ApprovalPolicy,
  ApprovalRule,
  ErrorInfo,
  ErrorKind,
  Hook,
  HttpExchange,
  Interaction,
  InteractionKind,
  InteractionStatus,
  JqTemplate,
  KeptOutcome,
  ResolutionVia,
  ResolvedStatus,
  Run,
  RunHead,
  RunStatus,
  SubjectKey,
  TriggerLink,
  TriggerLinkUse,
  VerifierBinding,
  DedupeBinding,
  Door,
  StateStore,
  StateDeclarationStore,
  ToolStore,
} from '@hookyard/core';

/**
 * The stores speak domain verbs; no Redis type crosses this boundary.
 * Every run state change is atomic (one Lua script in Redis, one synchronous
 * step in memory). `now` is passed in (epoch ms) so tests control time.
 */

/** Hooks, verifier bindings and stored jq templates. */
export interface HookStore {
  /**
   * Registers or replaces a hook atomically (a changed topic moves it). A hook
   * with a subject has its binding checked in the same step: an undeclared
   * state is `not_found` (with or without attach), an attach path
   * overlapping another hook's binding `conflict`; either stores nothing.
   */
  putHook(hook: Hook): Promise<{ created: boolean; previous: Hook | null }>;
  getHook(name: string): Promise<Hook | null>;
  /**
   * The hook and its revision (`hookRevision` of the kept record), read in one
   * step: the revision a claim answers is this one until the hook changes.
   */
  getHookRevision(name: string): Promise<{ hook: Hook; revision: string } | null>;
  removeHook(name: string): Promise<boolean>;
  listHooks(): Promise<Hook[]>;
  hooksOnTopic(topic: string): Promise<Hook[]>;

  putVerifier(binding: VerifierBinding): Promise<{ created: boolean }>;
  getVerifier(topic: string): Promise<VerifierBinding | null>;
  removeVerifier(topic: string): Promise<boolean>;
  listVerifiers(): Promise<VerifierBinding[]>;

  /** A topic's dedupe key (already validated and compiled by the caller). */
  putDedupe(binding: DedupeBinding): Promise<{ created: boolean }>;
  getDedupe(topic: string): Promise<DedupeBinding | null>;
  removeDedupe(topic: string): Promise<boolean>;

  putTemplate(template: JqTemplate): Promise<void>;
  getTemplate(id: string): Promise<JqTemplate | null>;
  removeTemplate(id: string): Promise<boolean>;
  listTemplates(): Promise<JqTemplate[]>;

  /** The deployment's approval policy; version 0 with no rules when never set. */
  getApprovalPolicy(): Promise<ApprovalPolicy>;
  /**
   * Replaces the approval rules (already validated) and bumps the version by
   * one, atomically. With `expectedVersion` the change applies only if the
   * kept version is that one, else `conflict` naming the kept version.
   */
  putApprovalPolicy(rules: ApprovalRule[], expectedVersion: number | null, now: number): Promise<ApprovalPolicy>;

  /**
   * Keeps a new trigger link of `link.hook`; its token only as `tokenHash`
   * (SHA-256, hex), the key `useTriggerLink` finds it by. `not_found` when the
   * hook is not registered (checked in the same step). Removing the hook
   * removes its links in the step that removes it.
   */
  putTriggerLink(link: TriggerLink, tokenHash: string): Promise<void>;
  /** The links of one hook (never a token), oldest first; [] for none. */
  listTriggerLinks(hook: string): Promise<TriggerLink[]>;
  /** Revokes link `id` of `hook` at once (again: no change); the link, or null when the hook has no such link. */
  revokeTriggerLink(hook: string, id: string): Promise<TriggerLink | null>;
  /**
   * Finds the link by `tokenHash` (one lookup) and takes one use of it, the
   * check (revoked, expired at `now`, used up) and the count in one atomic
   * step: a link at `max_uses` refuses the next use however many come at once.
   */
  useTriggerLink(tokenHash: string, now: number): Promise<TriggerLinkUse>;
  /** Gives back one use of link `id` (its run could not be kept); nothing when the link is gone. */
  returnTriggerLinkUse(id: string): Promise<void>;
}

export interface KeepEventInput {
  topic: string;
  payload: unknown;
  /**
   * The payload already serialised, when the caller holds it (the door's JSON
   * object body): a store that keeps JSON text keeps this instead of
   * stringifying `payload` again. It must parse to a value equal to `payload`.
   */
  payloadJson?: string;
  /** The W3C `traceparent` the runs keep (the door's span when tracing is on); absent or null for none. */
  traceparent?: string | null;
  deliveryId?: string | null;
  /**
   * The door the event came through, kept on every run and told in its first
   * history line. Absent: `api` (a keep through this interface directly). It
   * also names the namespace of `keepDelivery`'s claim.
   */
  door?: Door;
  /**
   * True only when a verifier binding checked the event as it came in (the
   * HTTP door's verifier step). Absent: false.
   */
  verified?: boolean;
  /** The verifying binding's kind (e.g. `github`), for the run's first history line only. */
  verifiedBy?: string;
  /**
   * When set and the topic has no hook, the event is kept as unrouted (see
   * UnroutedBounds) instead of being dropped. The doors set it; a replay and
   * the platform's own events do not.
   */
  unrouted?: UnroutedBounds;
  /** The trigger link whose use kept the run (`keepHookRun`, door `trigger`): kept as the run's `trigger_link`. */
  triggerLink?: string;
  /**
   * The request headers kept with every run of the event (Run.headers): the
   * door passes keptHeaders(...) of core (allowlisted, bounded, secret-free);
   * the store keeps them as given, in the keep's own step. Absent or null:
   * none kept (the run's `headers` reads null).
   */
  headers?: Record<string, string> | null;
  now: number;
  /**
   * The first dispatch is the door's publish; the sweep dispatches again only
   * if nobody claimed the run within this grace.
   */
  dispatchGraceMs: number;
}

/** How much of the events on topics with no hook a store keeps (HOOKS_UNROUTED_*). */
export interface UnroutedBounds {
  /** The newest this many per topic (HOOKS_UNROUTED_KEEP); 0 keeps none. */
  keep: number;
  /** At most this many topics; past it the topic last seen longest ago goes with its events (HOOKS_UNROUTED_TOPICS). */
  topics: number;
  /** An event older than this (from its `received_at`) is dropped (HOOKS_UNROUTED_RETENTION_SECONDS). */
  retentionMs: number;
  /**
   * The bytes (of their JSON) all kept events may take together, across
   * topics; past it the oldest events go first (HOOKS_UNROUTED_MAX_BYTES).
   */
  maxBytes: number;
  /**
   * The bytes (of its JSON) one kept event may take; a larger event keeps the
   * start of its payload's JSON text, as a string, marked `payload_truncated`
   * (HOOKS_UNROUTED_EVENT_MAX_BYTES).
   */
  eventMaxBytes: number;
  /** Told after a keep that dropped older events to stay within `maxBytes` (how many), so the door can log it. */
  onDropped?: (events: number, now: number) => void;
}

/** What the kept unrouted events take now (GET /api/unrouted `usage`). */
export interface UnroutedUsage {
  /** Events kept, on every topic. */
  events: number;
  /** Bytes of their JSON, at most UnroutedBounds.maxBytes. */
  bytes: number;
  /** Events dropped to stay within the byte budget (oldest first), since the store last held none. */
  dropped: number;
}

/** One event kept on a topic that had no hook when it came in. */
export interface UnroutedEvent {
  /** Time-sortable (as run ids are). */
  id: string;
  topic: string;
  /** The event as the door parsed it; when `payload_truncated`, the start of its JSON text (a string). */
  payload: unknown;
  /** True when the event was larger than HOOKS_UNROUTED_EVENT_MAX_BYTES: the payload is not the event, and a replay skips it. */
  payload_truncated: boolean;
  door: Door;
  verified: boolean;
  delivery_id: string | null;
  received_at: string;
}

/** A topic with unrouted events kept (GET /api/unrouted). */
export interface UnroutedTopic {
  topic: string;
  /** Events kept now (at most the keep bound). */
  kept: number;
  /** Events received since `first_seen` (kept or already dropped by the per-topic bound). */
  received: number;
  first_seen: string;
  last_seen: string;
  /** The newest kept event (its payload is what the API samples). */
  newest: UnroutedEvent | null;
}

export interface UnroutedPage {
  events: UnroutedEvent[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  next_cursor: string | null;
}

export interface KeptRun {
  id: string;
  hook: string;
}

/**
 * The claim `keepDelivery` takes with the keep: a delivery id (or dedupe key)
 * per topic and per door. Claims of different doors never collide: a NATS
 * message whose `Nats-Msg-Id` equals a sender's delivery id cannot make the
 * HTTP door's signed delivery a duplicate, nor the reverse.
 */
export interface DeliveryClaim {
  /** The sender's delivery id or the topic's dedupe key value; also kept as the runs' `delivery_id`. */
  id: string;
  /** How long the claim holds (from `now`): a repeat within it is a duplicate. */
  ttlMs: number;
}

/**
 * What `keepDelivery` did: `kept` (the claim is now held and the runs kept,
 * possibly none) or `duplicate` (the claim was already held: nothing written).
 */
export type KeepDeliveryResult = { status: 'kept'; runs: KeptRun[] } | { status: 'duplicate' };

export interface Claimed {
  run: Run;
  /** Fencing token of this attempt: every later write of the attempt carries it. */
  token: number;
  /**
   * The current revision of the run's hook (`getHookRevision`), read in the
   * claim's step; null when the hook is gone or its revision is not known (a
   * hook written before revisions, until the store's start-up step records it).
   */
  hookRevision: string | null;
}

/**
 * A plan the executor made before claiming, from the payload its dispatch
 * message carried: `claimPlanned` applies its first write in the claim's own
 * step while it still holds (a fresh run whose hook is still at `revision`).
 */
export interface PlannedClaim {
  /** The hook's revision the plan was made with (the store's `getHookRevision`). */
  revision: string;
  /** The approval policy's version the plan's decision was made with (`getApprovalPolicy`). */
  policyVersion: number;
  /** The topic the plan was decided for (the policy sees it, the tool gets it): the run's own, or the plan does not apply. */
  topic: string;
  /**
   * Unique per call. The Redis client re-sends a script whose answer a dropped
   * connection cut off; a re-send of this call answers the claim it already
   * made (its token) instead of "not claimable", so a claim that recorded a
   * start is never left without the attempt that owns it.
   */
  nonce: string;
  /**
   * The payload text the plan was made from (the dispatch message's hint,
   * which anyone publishing on the run subject can write): the plan applies
   * only if the run keeps this very payload.
   */
  payloadJson: string;
  /** start: claim and record the tool's start with this input; skip: claim and end the run skipped with this result. */
  plan: { start: { input: Record<string, unknown>; resumable: boolean; note?: { event: string; detail: string } } } | { skip: { result: unknown } };
}

/**
 * What `claimPlanned` did: `start` (the run is running, its start recorded) or
 * `skipped` (the run ended) with the run's head in `run` (no payload, input,
 * result or history); `claimed`: the plan did not hold, the run was claimed
 * as `claim` claims it (`run` whole) and is planned again.
 */
export type ClaimedPlanned = (Omit<Claimed, 'run'> & { applied: 'start' | 'skipped'; run: RunHead }) | (Claimed & { applied: 'claimed' });

export interface ActInput {
  acted: Exclude<Acted, ''>;
  actedIds?: string[];
  /** For `start`: the tool's input, kept so a resumable start replays it. */
  input?: Record<string, unknown>;
  /** For `start`: the tool declares it can be replayed after a crash. */
  resumable?: boolean;
}

export interface RunFilter {
  status?: RunStatus;
  hook?: string;
  topic?: string;
  /** Only the runs of the delivery with this id (checked on each run: no index). */
  deliveryId?: string;
  /** Only runs created at or after this time (epoch ms). */
  since?: number;
  /** Only runs created at or before this time (epoch ms). */
  until?: number;
  /** Only runs whose error is of this kind (checked on each run: no index). */
  errorKind?: ErrorKind;
  /** Only runs whose error message has this `failureFingerprint` (checked on each run: no index). */
  fingerprint?: string;
}

export interface RunPage {
  runs: Run[];
  /**
   * Pass back as `cursor` for the next (older) page. Null on the last page.
   * Any run id is a cursor too (the runs older than it): a scan that stops
   * inside a page continues after the last run it read.
   */
  nextCursor: string | null;
}

/** What the lapsed-lease sweep did with one run. */
export interface LapsedOutcome {
  id: string;
  hook: string;
  /** `retry`: due again (dispatch it); `replay`: due again to replay its start; `failed`: held. */
  outcome: 'retry' | 'replay' | 'failed';
  error: ErrorInfo;
  attempts: number;
}

/** Policy the store applies when an attempt is interrupted (lapsed lease or shutdown hand-back). */
export interface InterruptPolicy {
  maxAttempts: number;
  /** Delay before an interrupted attempt that had not acted is due again. */
  retryDelayMs: number;
}

export interface RunCounts {
  pending: number;
  running: number;
  retry_wait: number;
  parked: number;
  failed: number;
}

/** An agent's tool call to keep as a run (door `agent`): see RunStore.keepAgentCall. */
export interface KeepAgentCallInput {
  /** The agent's name (the run's hook slot is `agent:<name>`). */
  agent: string;
  /**
   * The call; its `agent_id` (the agent's immutable id) scopes the idempotency
   * key, so a same-named agent made later never finds this agent's keys. A
   * call without one, as kept before agents had ids, is scoped by the name.
   */
  call: AgentCallPayload;
  /** The W3C `traceparent` the run keeps; absent or null for none. */
  traceparent?: string | null;
  now: number;
  /** As KeepEventInput.dispatchGraceMs: the door publishes, the sweep dispatches again after this. */
  dispatchGraceMs: number;
  /** How long the idempotency key answers the same run (at least the run's retention). */
  keyTtlMs: number;
}

/** What keepAgentCall did: kept a new run, found the run this agent's (by id) key already names, or joined an identical open call. */
export interface KeptAgentCall {
  id: string;
  /** True when this call kept the run; false when the key named an existing one or it joined an open one (the call is not kept again). */
  created: boolean;
  /** True when an identical call (same agent, tool and argument hash) was open and this one joined it; its key now names that run. */
  joined: boolean;
}

/**
 * Agent principals (`POST /api/agents`). The token is never kept: only its
 * SHA-256 (hex), by which a request's bearer token is looked up. Names follow
 * the hook name pattern.
 */
/** What `AgentStore.update` changes: each field given replaces the kept one. */
export interface AgentChange {
  description?: string | null;
  tools_allow?: string[];
}

export interface AgentStore {
  /** Keeps a new agent under a new id (AgentClient.id); `conflict` naming it when the name is taken. */
  create(
    input: { name: string; description: string | null; tools_allow: string[]; tokenHash: string; identities?: AgentIdentity[] },
    now: number,
  ): Promise<AgentClient>;
  get(name: string): Promise<AgentClient | null>;
  /** Every agent, by name. */
  list(): Promise<AgentClient[]>;
  /** Removes the agent and its token at once, answering the agent removed (its id names what was its); null when there was none. */
  remove(name: string): Promise<AgentClient | null>;
  /** Replaces the agent's token (the old one stops working at once); null when there is no such agent. */
  rotate(name: string, tokenHash: string, now: number): Promise<AgentClient | null>;
  /**
   * Replaces the given fields of the agent (description, tools_allow; absent: kept) and its `updated_at`;
   * its id and token stay. Null when there is no such agent.
   */
  update(name: string, change: AgentChange, now: number): Promise<AgentClient | null>;
  /** The agent whose token has this SHA-256 (hex), or null. */
  byTokenHash(tokenHash: string): Promise<AgentClient | null>;
}

/** The statuses `complete` ends a run in: a result, not a failure. */
export type CompletedStatus = 'succeeded' | 'skipped' | 'denied' | 'cancelled';

/** What an operator verified about a run held with an unknown outcome (`RunStore.resolveUnknown`). */
export type UnknownOutcomeVerdict =
  { outcome: 'succeeded'; result: unknown; note: string | null; by: string } | { outcome: 'failed'; reason: string; note: string | null; by: string };

/** An operator's edited payload for a replay (already bounded and checked by the caller). */
export interface ReplayEdit {
  payload: unknown;
}

export interface RunStore {
  /**
   * Keeps one run per hook registered on the topic, in one atomic write, reading
   * the topic's hooks inside the same step. A topic with no hooks keeps nothing.
   */
  keepEvent(input: KeepEventInput): Promise<KeptRun[]>;
  /**
   * `keepEvent` and the delivery claim in one atomic step: either the claim is
   * taken and the runs are kept, or (the claim is held) nothing is written. So
   * a keep that did not commit leaves no claim, and the sender's retry keeps;
   * one that did makes the retry a duplicate. `input.deliveryId` is ignored
   * (the runs carry `claim.id`). A keep whose outcome is unknown (the write
   * was sent, no answer came) rejects with a HookyardError whose
   * `outcomeUnknown` is set.
   */
  keepDelivery(input: KeepEventInput, claim: DeliveryClaim): Promise<KeepDeliveryResult>;

  /**
   * The topics with unrouted events kept (see KeepEventInput.unrouted), the
   * one seen last first; events received before `notBefore` (epoch ms: now
   * minus the retention) count as gone.
   */
  listUnroutedTopics(notBefore: number): Promise<UnroutedTopic[]>;
  /** One topic's unrouted events, newest first; `cursor` is a page's `next_cursor`. */
  listUnrouted(topic: string, notBefore: number, limit: number, cursor?: string | null): Promise<UnroutedPage>;
  /** Removes the topic's unrouted events with these ids (all of them when `ids` is absent); answers how many went. */
  removeUnrouted(topic: string, ids?: readonly string[]): Promise<number>;
  /** What the kept unrouted events take now, and how many were dropped for space. */
  unroutedUsage(): Promise<UnroutedUsage>;
  /**
   * Keeps one run of hook `hook` alone (not the other hooks on the topic),
   * when it is registered on `input.topic`, read in the same step; [] when it
   * is not (removed or moved meanwhile). A trigger link's keep.
   */
  keepHookRun(input: KeepEventInput, hook: string): Promise<KeptRun[]>;
  /**
   * Keeps an agent's tool call as one pending run (door `agent`, hook
   * `agent:<name>`, topic `tools/call`, the call as its payload), unless the
   * same agent's (same `call.agent_id`) idempotency key already names a run kept within `keyTtlMs`:
   * then that run's id, `created: false`, and nothing written. Else, when the
   * same agent's identical call (same tool and `args_sha256`) is open (a run
   * in JOINABLE_STATUSES, or failed with an unknown outcome: isJoinable), this
   * call joins it whatever its key: that run's id, `joined: true`, and the key
   * now names that run. The checks and the keep are one atomic step, so two
   * calls with one key, or two identical calls, keep one run.
   */
  keepAgentCall(input: KeepAgentCallInput): Promise<KeptAgentCall>;

  get(id: string): Promise<Run | null>;

  /**
   * Takes the lease with a compare-and-set: only a `pending`/`retry_wait` run due
   * at `now`. Bumps `attempts` and the fencing token. Null when not claimable.
   */
  claim(id: string, owner: string, leaseMs: number, now: number): Promise<Claimed | null>;
  /**
   * `claim` with the planned first write in the same atomic step: applied when
   * the run is fresh (never claimed, not acted, no interaction or claim intent,
   * not an agent's call), keeps the planned payload, its hook is at
   * `planned.revision` and the approval policy at `planned.policyVersion`;
   * otherwise a plain claim (`applied: 'claimed'`). Null when not claimable.
   */
  claimPlanned(id: string, owner: string, leaseMs: number, now: number, planned: PlannedClaim): Promise<ClaimedPlanned | null>;

  /** The writes of one attempt. A stale token throws HookyardError `conflict`. */
  renew(id: string, token: number, leaseMs: number, now: number): Promise<void>;
  setClaimIntent(id: string, token: number, intent: string, now: number): Promise<void>;
  act(id: string, token: number, act: ActInput, now: number): Promise<void>;
  /**
   * The attempt's tool start never left (the call failed before any byte was
   * sent): the run is not acted after all (acted, input and resumable cleared,
   * a `not_sent` history line), so its failure gets the platform's backoff.
   * A committed cancel/resume/take is `conflict`; a run not acted is left as is.
   */
  withdrawStart(id: string, token: number, detail: string, now: number): Promise<void>;
  /**
   * Ends the run `succeeded`, `skipped`, `denied` or `cancelled`, with a bounded
   * result. A run re-dispatched by its interaction's resume or approval keeps
   * this outcome on the interaction in the same step, for a later `take`.
   * Answers the run's head (no payload, input, result or history: `get` reads them).
   * `http` (complete, fail, scheduleRetry): the reply of the attempt's HTTP
   * call, kept on the history line the write adds (bounded again here).
   */
  complete(id: string, token: number, status: CompletedStatus, result: unknown, now: number, http?: HttpExchange | null): Promise<RunHead>;
  /**
   * Adds a line to the run's history during an attempt (e.g. the condition's
   * result), so an operator can explain the run. A stale token is `conflict`.
   */
  note(id: string, token: number, event: string, detail: string, now: number): Promise<void>;
  /**
   * After a takeover: attempt `token` could not write its outcome before its
   * lease was taken over. While the run is as that lapse left it (not claimed
   * again), its error message gets `detail` in front and its history a line;
   * otherwise `conflict`.
   */
  noteLostOutcome(id: string, token: number, detail: string, now: number): Promise<Run>;
  /** Holds the run as failed (it never expires on its own). Answers the run's head, as `complete`. */
  fail(id: string, token: number, error: ErrorInfo, now: number, http?: HttpExchange | null): Promise<RunHead>;
  /** Back to `retry_wait`, due at `dueAt`. Answers the run's head, as `complete`. */
  scheduleRetry(id: string, token: number, error: ErrorInfo, dueAt: number, now: number, http?: HttpExchange | null): Promise<RunHead>;
  /** Shutdown hand-back of an attempt in flight: the interrupt policy decides (as for a lapsed lease). */
  release(id: string, token: number, reason: string, policy: InterruptPolicy, now: number): Promise<LapsedOutcome>;

  /** Ids due for dispatch at `now`; their next dispatch moves to `now + graceMs`. */
  sweepDue(now: number, limit: number, graceMs: number): Promise<string[]>;
  /** Runs whose lease lapsed: the attempt counts, then the interrupt policy decides. */
  sweepLapsed(now: number, limit: number, policy: InterruptPolicy): Promise<LapsedOutcome[]>;
  /** Deletes finished runs older than `retentionMs`; failed runs are never expired. */
  sweepExpired(now: number, retentionMs: number, limit: number): Promise<number>;

  /** Newest first; filters combine with AND. */
  list(filter: RunFilter, limit: number, cursor?: string | null): Promise<RunPage>;
  /**
   * A failed run runs again as a fresh run. A started run keeps its start and
   * input but drops the interaction it parked on (an approval covers one
   * acted call). `conflict` when its hook committed a resume or take. `by`
   * names who retried it in the history line (default `operator`).
   */
  retry(id: string, now: number, by?: string): Promise<Run>;
  /**
   * A new pending run of a run's event (its payload) for `hook` as registered
   * now, with `replay_of` naming the source; the source is left as it is.
   * `conflict` while the source still runs on its own (pending, running,
   * retry_wait, parked); `not_found` for no such run. With `edit`, the new
   * run carries `edit.payload` instead of the source's (an operator's "replay
   * with this payload"); its first history line says the payload was edited.
   */
  replay(id: string, hook: { name: string; topic: string }, now: number, dispatchGraceMs: number, edit?: ReplayEdit): Promise<Run>;
  /** Marks a run discarded (kept for retention). `conflict` while it is running. */
  discard(id: string, now: number): Promise<Run>;
  /**
   * An operator's verdict on a run held failed with an unknown outcome (its
   * non-resumable tool started and the attempt was interrupted): the run ends
   * `succeeded` with the verdict's result, or stays `failed` with an
   * `operator_failed` error naming the reason; a `resolved` history line names
   * who and the note. `conflict` for any other run; `not_found` for none.
   */
  resolveUnknown(id: string, verdict: UnknownOutcomeVerdict, now: number): Promise<Run>;
  counts(): Promise<RunCounts>;
  /**
   * The per-minute counters (stats-rules.ts) of minutes `fromMinute` to
   * `toMinute` (floor(ms / 60000), inclusive), summed over partitions; minutes
   * without a count are left out. Kept by the transitions in their own step.
   */
  minuteStats(fromMinute: number, toMinute: number): Promise<MinuteStats[]>;
  /**
   * The plain counts (no histograms) of minutes `fromMinute` to `toMinute`,
   * summed per hook, of the hooks whose name starts with `hookPrefix` (e.g.
   * `agent:`): what `minuteStats` gives for those hooks, summed in the store
   * (one small answer per partition on Redis, not every minute's hash).
   */
  hookTotals(fromMinute: number, toMinute: number, hookPrefix: string): Promise<Map<string, PlainCounts>>;
}

/** What a run asks for when it parks (see `InteractionStore.park`). */
export interface ParkInput {
  run: string;
  /** The live attempt's fencing token: parking ends that attempt. */
  token: number;
  kind: InteractionKind;
  tool: string;
  /** `argsHash` of the exact arguments. */
  argsHash: string;
  rule?: string | null;
  /** approval: the rule's message, kept for the approver. */
  message?: string | null;
  policyVersion?: number | null;
  answerHooks?: string[];
  /** approval: `caller` when the agent's own user may answer it (MCP elicitation). */
  approver?: 'caller' | null;
  subject?: SubjectKey | null;
  onTimeout?: string | null;
  expiresAt: number;
  now: number;
}

export interface ResolveInput {
  status: ResolvedStatus;
  by: string;
  via: ResolutionVia;
  reason?: string;
  payload?: unknown;
  extras?: Record<string, unknown> | null;
}

export interface InteractionFilter {
  status?: InteractionStatus;
  kind?: InteractionKind;
  run?: string;
  hook?: string;
}

export interface InteractionPage {
  interactions: Interaction[];
  /**
   * Pass back as `cursor` for the next (older) page. Null on the last page.
   * Any run id is a cursor too (the runs older than it): a scan that stops
   * inside a page continues after the last run it read.
   */
  nextCursor: string | null;
}

/**
 * Interactions: what parked runs wait on. An interaction lives beside its run
 * (same Redis slot), so parking and every resolution move the interaction and
 * its run in one atomic step. Resolving makes the parked run due again (the
 * caller publishes its id; the sweep covers a lost publish), except `cancelled`,
 * which ends the run `cancelled`. Errors: `not_found` (no such interaction),
 * `conflict` naming who resolved it first, `unavailable` (store out of reach).
 */
export interface InteractionStore {
  /**
   * Creates an open interaction bound to the run and parks the run: its
   * attempt ends, it holds no lease, it is not due, and retention never
   * expires it. A stale token is `conflict`.
   */
  park(input: ParkInput): Promise<{ interaction: Interaction; run: Run }>;
  get(id: string): Promise<Interaction | null>;
  /** Resolves an open interaction once; its parked run is made due (or ends `cancelled`). */
  resolve(id: string, input: ResolveInput, now: number): Promise<{ interaction: Interaction; run: Run | null }>;
  /**
   * Consumes the outcome a resumed run kept on its interaction, once: the
   * interaction becomes `taken`. `unavailable` while the resumed run has not
   * finished yet; `conflict` when already taken (naming by whom), still open,
   * or its run ended without an outcome to keep.
   */
  take(id: string, by: string, now: number): Promise<{ interaction: Interaction; outcome: KeptOutcome }>;
  /** Newest first; filters combine with AND. */
  list(filter: InteractionFilter, limit: number, cursor?: string | null): Promise<InteractionPage>;
  /** The open interactions on a subject (same scope, kind and key), oldest first. */
  openOnSubject(subject: SubjectKey, limit: number): Promise<Interaction[]>;
  /** Resolves open interactions whose `expires_at` passed as `expired` (via expiry); answers them. */
  expireDue(now: number, limit: number): Promise<Interaction[]>;
}

/** The stores behind one handle, with a lifecycle. */
/** A token bucket's shape: `burst` requests at once, refilled at `rate` requests a second. */
export interface BucketLimit {
  /** Tokens a second; finite and above 0 (an unlimited bucket is the caller's to skip). */
  rate: number;
  /** The bucket's size: a whole number >= 1. */
  burst: number;
}

/** What a take answers: the token was taken, or how long until one request would pass. */
export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * What a take for several requests answers: the first `granted` of them passed;
 * `retryAfterMs` is 0 when all did, else the wait (>= 1) until one more would.
 */
export interface TakeManyResult {
  granted: number;
  retryAfterMs: number;
}

/**
 * Token buckets for the flood limiter, kept where every process of the
 * deployment sees them (one Redis, so replicas share a bucket). A bucket is
 * named (`door-client`, `door-topic`, `api`) and keyed (a client address, a
 * topic); it refills continuously (GCRA), and one that has refilled is gone.
 */
export interface BucketStore {
  /**
   * Takes one token from bucket `bucket` of `key` under `limit` at `now`
   * (epoch ms): `{ok: true}`, or `{ok: false, retryAfterMs}` (>= 1) when it is
   * empty. The limit travels with each call, so a new rate applies from the
   * next take; a bucket's state carries over the change. A bucket name that
   * is not `^[a-z0-9][a-z0-9_-]*$`, an empty key or a bad limit is `bad_input`;
   * an unreachable store is `unavailable`, without waiting for it.
   */
  take(bucket: string, key: string, limit: BucketLimit, now: number): Promise<TakeResult>;
  /**
   * Takes for `count` requests at once (a whole number >= 1), deciding exactly
   * as `count` takes one after another at `now` would: each granted request
   * costs one token, the first refused one and all after it are refused with
   * the same wait. One store call (one script on Redis), so the limiter can
   * answer the concurrent checks of one bucket and key together.
   */
  takeMany(bucket: string, key: string, limit: BucketLimit, now: number, count: number): Promise<TakeManyResult>;
}

/**
 * The audit trail: one entry per operator or admin change or refused attempt,
 * kept within a retention time and a count bound per list (changes, refused
 * attempts: AuditBounds), listed together newest first.
 */
export interface AuditStore {
  /**
   * Keeps `entry` (its JSON within AUDIT_ENTRY_MAX_BYTES) in its list
   * (auditListOf) and drops entries past the bounds, in one step: those past
   * the retention from either list, and the oldest of the entry's own list
   * past that list's count bound (answered as `dropped`).
   */
  record(entry: AuditEntry, bounds: AuditBounds): Promise<AuditRecorded>;
  /**
   * Entries matching `filter`, newest first, none older than `notBefore`
   * (ms: now minus the retention); `cursor` is a page's `next_cursor`. Scans
   * at most the kept entries, which the cap bounds.
   */
  list(filter: AuditFilter, limit: number, notBefore: number, cursor?: string | null): Promise<AuditPage>;
}

export interface Stores {
  hooks: HookStore;
  runs: RunStore;
  tools: ToolStore;
  interactions: InteractionStore;
  states: StateStore;
  /** Declared states and the hooks' bindings of them (kept beside the hooks: putHook checks a binding in its own step). */
  declarations: StateDeclarationStore;
  /** The flood limiter's token buckets, on the same connection as the rest. */
  buckets: BucketStore;
  /** Agent principals of the agent door. */
  agents: AgentStore;
  /** The audit trail of operator and admin changes. */
  audit: AuditStore;
  /** `memory` or `redis`. */
  kind: string;
  /** Cheap liveness check for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
