import type { Door } from '@hookyard/core';

/**
 * Key layout (prefix P, N partitions). Redis Cluster: every script's keys share
 * one hash tag, so each script runs in one slot (no CROSSSLOT):
 *
 *   {P}:meta                  hash   partitions (HOOKS_RUN_PARTITIONS recorded on first start),
 *                                    hook_copies (1 once the per-partition hook copies exist),
 *                                    hook_revisions (1 once the per-partition hook revisions exist)
 *                                    states_declared (1 once free-form subject state was upgraded, migrate-states.ts)
 *                                    list_indexes (2 once the combined run list indexes were removed, setup.ts)
 *   {P}:hooks                 hash   hook name -> hook JSON
 *   {P}:topic:<topic>         zset   score 0, hook names on the topic (sorted by name)
 *   {P}:verifiers             hash   topic -> verifier binding JSON
 *   {P}:dedupes               hash   topic -> dedupe key binding JSON
 *   {P}:templates             hash   template id -> JSON
 *   {P}:tools                 hash   tool name -> record JSON
 *   {P}:discovery-ok          hash   tool name -> {at, tools} of its last successful discovery
 *   {P}:discovery-err         hash   tool name -> {at, kind, message} of its last failed discovery
 *   {P}:pending-tool:<id>     string a registration being discovered before it is stored (JSON), PX its short life
 *   {P}:approval-policy       hash   version, rules (JSON), updated_at: the deployment's approval policy
 *   {P}:trigger-link:<id>     hash   a trigger link: id, hook, label, created (ms), created_by, expires (ms or ''),
 *                                    uses, max_uses ('' none), revoked (0/1), token (its SHA-256, hex)
 *   {P}:trigger-tokens        hash   token SHA-256 -> link id (the one lookup a use makes)
 *   {P}:hook-trigger-links:<h> set   the link ids of hook h (removed with the hook, remove_hook.lua)
 *   {P}:agents                hash   agent name -> agent JSON (with its id and token_hash: the token's SHA-256, never
 *                                    the token; one kept before agents had ids is read with its name as id)
 *   {P}:agent-tokens          hash   agent token SHA-256 -> agent name
 *   {P}:state-decls           hash   "scope/kind" -> declared state JSON (schema, description, templates, version)
 *   {P}:state-binds           hash   "scope/kind" -> JSON {hook: "*" | "-<attach path>"}: who binds which part
 *                                    (in the hooks' slot: put_hook checks a binding in the step that keeps the hook)
 *
 *   {P:p<n>}:run:<id>         hash   one run (fields: see run-hash.ts)
 *   {P:p<n>}:due              zset   pending/retry_wait runs by next dispatch time (ms)
 *   {P:p<n>}:lease            zset   running runs by lease expiry (ms)
 *   {P:p<n>}:done             zset   succeeded/skipped/discarded runs by finish time (retention)
 *   {P:p<n>}:topic-hooks:<t>  zset   score 0, copy of {P}:topic:<t> in the partition's slot (keep_event reads it)
 *   {P:p<n>}:hook-revs        hash   hook name -> revision of its record (hook-revision.ts), copied into the
 *                                    partition's slot so the claim answers it (executors reuse a record they read);
 *                                    field POLICY_VERSION_FIELD: the approval policy's version (a planned claim checks it)
 *   {P:p<n>}:delivery:<t>:<id> string delivery claim "<until ms> <id base>" (keep_event, PX cleanup);
 *                                    n = deliveryPartition(t, id): the claim and the runs it kept share a slot.
 *                                    The HTTP door's; another door's is {P:p<n>}:<door>-delivery:<t>:<id>
 *   {P:p<n>}:agent-call:<a>:<k> string "<answers until ms> <run id>": the run an agent's idempotency key kept (keep_agent_call);
 *                                    a = agent id (the name for a call kept before agents had ids), k = SHA-256 (hex)
 *                                    of the key, n = deliveryPartition('agent:' + agent name, a) (a key kept before
 *                                    issue 34 is in n = deliveryPartition('agent:' + agent name, k), read only)
 *   {P:p<n>}:agent-open:<a>:<c> string the run id of the agent's latest call with identity c (callIdentity: SHA-256 of
 *                                    tool and arguments' hash), joined by an identical call while open; same a and n
 *   {P:p<n>}:ix:all           zset   score 0, every run, ordered by id (= creation time)
 *   {P:p<n>}:ix:h:<hook> / :ix:t:<topic> / :ix:s:<status>
 *                                    the same for one hook, topic, status; a filter on several reads the
 *                                    smallest and checks ids against the others (list.ts). Versions before
 *                                    issue 36 also kept :ix:sh:<status>:<hook> and :ix:st:<status>:<topic>:
 *                                    removed once at start (setup.ts, {P}:meta list_indexes). An older
 *                                    replica still running in a rolling upgrade keeps writing s/h/t/all as
 *                                    this version does (nothing it writes is lost), but its own status+hook
 *                                    and status+topic lists read the combined keys: they miss the runs newer
 *                                    replicas kept or moved. Combined keys it writes after the removal are
 *                                    never read here; they go when the removal runs again (delete the meta field).
 *   {P:p<n>}:int:<id> ...     interactions of the partition's runs (see lua/interaction.lua)
 *   {P:p<n>}:stats:<minute>   hash   the partition's run counters of one minute (floor(ms / 60000), the callers'
 *                                    clock), kept by the run transitions (lua/stats.lua, stats-rules.ts); expires
 *                                    25 h after it is made; at most 100 hooks counted one by one, the rest as `*` (read_stats.lua; read_hook_totals.lua sums a prefix's hooks)
 *
 *   {P:st:<scope>:<kind>}:doc:<key>   hash  a subject's state: version, document (JSON), created_at,
 *                                           updated_at, updated_by (JSON attribution)
 *   {P:st:<scope>:<kind>}:hist:<key>  list  its write history, JSON lines, oldest first (STATE_HISTORY_MAX)
 *   {P:st:<scope>:<kind>}:ix          zset  score 0, the keys of that scope and kind (ZRANGEBYLEX pages)
 *   Scope and kind match the name pattern (no braces), so a kind's subjects share one slot.
 *
 *   {P:unrouted}:topics          zset   topic -> last seen ms: topics with events but no hook (HOOKS_UNROUTED_TOPICS bound)
 *   {P:unrouted}:ev:<topic>      zset   event id -> received ms (HOOKS_UNROUTED_KEEP newest, HOOKS_UNROUTED_RETENTION_SECONDS)
 *   {P:unrouted}:data:<topic>    hash   event id -> event JSON; #received, #first (ms) of the topic
 *   {P:unrouted}:all             zset   event id -> received ms, every topic's: the oldest go first past the byte budget
 *   {P:unrouted}:owner           hash   event id -> "<bytes> <topic>" (its JSON's size, where it is kept)
 *   {P:unrouted}:usage           hash   bytes (of every kept event's JSON, HOOKS_UNROUTED_MAX_BYTES), dropped (for space)
 *   One slot for every unrouted event: keep_unrouted runs after keep_event found no hook
 *   (another slot), see redis-unrouted.ts.
 *
 *   {P:audit}:ix                 zset   score 0, every audit entry id (time-sortable: ZRANGEBYLEX pages newest first)
 *   {P:audit}:entries            hash   audit entry id -> entry JSON; bounded by HOOKS_AUDIT_RETENTION_DAYS
 *   {P:audit}:changes            zset   score 0, the ids of changes: at most HOOKS_AUDIT_MAX_ENTRIES
 *   {P:audit}:refused            zset   score 0, the ids of refused attempts (4xx): at most HOOKS_AUDIT_MAX_REFUSED
 *                                       (record_audit drops the oldest of the entry's own list past its bound)
 *
 *   {P:lim:<bucket>:<key>}:tat        string  a flood limiter bucket's theoretical arrival time (ms),
 *                                             PX until it is past (take_token); one slot per bucket and key,
 *                                             so a flood of many clients spreads over the cluster
 *
 * A run id carries its partition (run-ids.ts), so its keys derive from the id;
 * all runs of one event go to one partition: chosen from a hash of topic and
 * delivery id for a claimed delivery (so claim and runs are one atomic
 * script), at random otherwise.
 *
 * The hook records live in the {P} slot; keep_event, which runs in a
 * partition's slot, reads that partition's copy of the topic's hook index.
 * putHook/removeHook keep the copies in step, one atomic step per slot (see
 * redis-hooks.ts for the order). Scripts name some keys themselves (list
 * indexes, runs of a sweep, topic indexes of a moved hook): always from the
 * hash tag they are passed, which every declared key carries (slot.lua checks).
 */
export class KeyLayout {
  constructor(readonly prefix: string) {}

  /** Hash tag of the hook records; `put_hook` builds topic index keys from it. */
  get hookTag(): string {
    return `{${this.prefix}}`;
  }
  get hooks(): string {
    return `${this.hookTag}:hooks`;
  }
  topic(topic: string): string {
    return `${this.hookTag}:topic:${topic}`;
  }
  get verifiers(): string {
    return `${this.hookTag}:verifiers`;
  }
  get dedupes(): string {
    return `${this.hookTag}:dedupes`;
  }
  get templates(): string {
    return `${this.hookTag}:templates`;
  }
  get tools(): string {
    return `${this.hookTag}:tools`;
  }
  get discoveryOk(): string {
    return `${this.hookTag}:discovery-ok`;
  }
  get discoveryErr(): string {
    return `${this.hookTag}:discovery-err`;
  }
  /** A registration being discovered before it is stored (ToolStore.putPendingTool). */
  pendingTool(id: string): string {
    return `${this.hookTag}:pending-tool:${id}`;
  }
  /** A trigger link's hash (links live in the hooks' slot: removed with their hook in one step). */
  triggerLink(id: string): string {
    return `${this.hookTag}:trigger-link:${id}`;
  }
  get triggerTokens(): string {
    return `${this.hookTag}:trigger-tokens`;
  }
  hookTriggerLinks(hook: string): string {
    return `${this.hookTag}:hook-trigger-links:${hook}`;
  }
  /** Agent principals: name -> JSON (with the token's SHA-256, never the token). */
  get agents(): string {
    return `${this.hookTag}:agents`;
  }
  /** Agent token SHA-256 (hex) -> agent name: the one lookup an agent request makes. */
  get agentTokens(): string {
    return `${this.hookTag}:agent-tokens`;
  }
  /** Declared states (StateDeclarationStore). */
  get stateDeclarations(): string {
    return `${this.hookTag}:state-decls`;
  }
  /** The hooks' bindings of declared states. */
  get stateBindings(): string {
    return `${this.hookTag}:state-binds`;
  }
  get approvalPolicy(): string {
    return `${this.hookTag}:approval-policy`;
  }
  get meta(): string {
    return `${this.hookTag}:meta`;
  }

  tag(partition: number): string {
    return `{${this.prefix}:p${partition}}`;
  }
  run(partition: number, id: string): string {
    return `${this.tag(partition)}:run:${id}`;
  }
  due(partition: number): string {
    return `${this.tag(partition)}:due`;
  }
  lease(partition: number): string {
    return `${this.tag(partition)}:lease`;
  }
  done(partition: number): string {
    return `${this.tag(partition)}:done`;
  }
  /** Partition `partition`'s copy of the hook index of `topic`. */
  topicHooks(partition: number, topic: string): string {
    return `${this.tag(partition)}:topic-hooks:${topic}`;
  }
  /** Partition `partition`'s copy of every hook's revision (claim.lua reads it). */
  hookRevisions(partition: number): string {
    return `${this.tag(partition)}:hook-revs`;
  }
  /**
   * The claim on delivery `deliveryId` of `topic` by `door`, in partition
   * `partition` (see deliveryPartition). The HTTP door's claims keep the key
   * they always had; another door's are `<door>-delivery:`, so no id can make
   * one door's claim collide with another's (a topic has no colon).
   */
  delivery(partition: number, topic: string, deliveryId: string, door: Door = 'http'): string {
    return `${this.tag(partition)}:${door === 'http' ? '' : `${door}-`}delivery:${topic}:${deliveryId}`;
  }
  /** The run an agent's idempotency key kept; `keyHash` is the key's SHA-256 (hex). */
  agentCall(partition: number, agent: string, keyHash: string): string {
    return `${this.tag(partition)}:agent-call:${agent}:${keyHash}`;
  }
  /** The latest kept call of an agent with this identity (callIdentity: tool and arguments' hash): joined while open. */
  agentOpenCall(partition: number, agent: string, identity: string): string {
    return `${this.tag(partition)}:agent-open:${agent}:${identity}`;
  }
  /** Partition `partition`'s run counters of `minute` (stats.lua names the same key from the tag). */
  stats(partition: number, minute: number): string {
    return `${this.tag(partition)}:stats:${minute}`;
  }
  /** A list index; `suffix` is one of the ix:* names above without the `ix:`. */
  index(partition: number, suffix: string): string {
    return `${this.tag(partition)}:ix:${suffix}`;
  }
  interaction(partition: number, id: string): string {
    return `${this.tag(partition)}:int:${id}`;
  }
  /** An interaction list index: all, s:<status>, k:<kind>, h:<hook>, r:<run>. */
  interactionIndex(partition: number, suffix: string): string {
    return `${this.tag(partition)}:int:ix:${suffix}`;
  }
  /** The open interactions on one subject (its text: interaction-rules.ts subjectText). */
  interactionsOpenOn(partition: number, subjectText: string): string {
    return `${this.tag(partition)}:int:open:${subjectText}`;
  }
  interactionExpiry(partition: number): string {
    return `${this.tag(partition)}:int:expiry`;
  }
  /** Hash tag of one scope and kind's subject states. */
  stateTag(scope: string, kind: string): string {
    return `{${this.prefix}:st:${scope}:${kind}}`;
  }
  /** KEYS of a state script: state hash, history list, kind index. */
  stateScriptKeys(scope: string, kind: string, key: string): string[] {
    const tag = this.stateTag(scope, kind);
    return [`${tag}:doc:${key}`, `${tag}:hist:${key}`, `${tag}:ix`];
  }
  /** Hash tag of one flood limiter bucket (`bucket` per `key`: a client address, a topic). */
  bucketTag(bucket: string, key: string): string {
    return `{${this.prefix}:lim:${bucket}:${key}}`;
  }
  /** The key of that bucket (take_token). */
  bucket(bucket: string, key: string): string {
    return `${this.bucketTag(bucket, key)}:tat`;
  }
  /** Hash tag of the events kept on topics with no hook. */
  get unroutedTag(): string {
    return `{${this.prefix}:unrouted}`;
  }
  /**
   * KEYS of an unrouted script: the topic index, the topic's event zset and
   * its event hash, the index of every event, their sizes and owners, the usage.
   */
  unroutedKeys(topic: string): string[] {
    const tag = this.unroutedTag;
    return [`${tag}:topics`, `${tag}:ev:${topic}`, `${tag}:data:${topic}`, `${tag}:all`, `${tag}:owner`, `${tag}:usage`];
  }
  /** Hash tag of the audit trail. */
  get auditTag(): string {
    return `{${this.prefix}:audit}`;
  }
  /** KEYS of record_audit: the entry index (zset of ids, score 0), the entries (hash id -> JSON), the changes' and the refusals' ids. */
  auditKeys(): string[] {
    const tag = this.auditTag;
    return [`${tag}:ix`, `${tag}:entries`, `${tag}:changes`, `${tag}:refused`];
  }
  /** KEYS of a per-run script: run, due, lease, done. */
  runScriptKeys(partition: number, id: string): string[] {
    return [this.run(partition, id), this.due(partition), this.lease(partition), this.done(partition)];
  }
}

/** The field of {P:p<n>}:hook-revs holding the approval policy's version: no hook name starts with a colon. */
export const POLICY_VERSION_FIELD = ':approval-policy';
