import { randomUUID } from 'node:crypto';
import {
  AGENT_CALL_TOPIC,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  HookyardError,
  RUN_ID_PATTERN,
  agentAllowlist,
  agentHookName,
  agentMayCall,
  allows,
  argsHash,
  badInput,
  conflict,
  isCallOf,
  nameViolation,
  notFound,
  toHookyardError,
  type AgentCallPayload,
  type AgentCallVia,
  type AgentClient,
  type Clock,
  type Logger,
  type Run,
  type Settings,
} from '@hookyard/core';
import { acceptedSummaries, type RunBus, type RunEventFeed, type RunEventSink, type RunSummary } from '@hookyard/bus';
import type { Stores } from '@hookyard/store';
import { callViewOf, isSettled, keptView, viewAfterEvent, type CallView, type ParkedOn } from './call-view';
import { waitUntil } from './wait';

export type { CallView } from './call-view';

/** The request header carrying a caller's runtime allowlist (narrows the agent's; grammar `a,b,!c`), on /mcp and POST /api/calls. */
export const TOOLS_ALLOW_HEADER = 'Hookyard-Tools-Allow';

/** The entries of a `Hookyard-Tools-Allow` header value: comma-separated, trimmed, empty ones dropped. */
export function toolsAllowEntries(header: string): string[] {
  return header
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/** An agent's tool call as a door hands it over. */
export interface CallRequest {
  tool: string;
  arguments: Record<string, unknown>;
  /** The client's key (a retry with it attaches to the same run, also after it finished); absent: one is made up. */
  idempotencyKey?: string | null;
  /** The caller's runtime allowlist (narrows only); absent or null: none. */
  runtimeAllow?: string[] | null;
  via: AgentCallVia;
  traceparent?: string | null;
}

/**
 * A new call's events, listened to from before it was dispatched, so the
 * wait that takes them knows the call's state without reading it first.
 */
export interface CallFollow {
  /** The call as kept (pending): what a read would show before its first event. */
  readonly view: CallView;
  /** Hands `wake` the events held since the keep, then each one as it comes; answers the detach (later events are dropped). */
  listen(wake: (summary: RunSummary) => void): () => void;
  /** Stops listening; the caller stops it once it waits no more (also when it never waited). */
  stop(): void;
}

/** Listens to run `id`'s events now, holding them until a wait takes them (CallFollow.listen). */
function followCall(feed: RunEventFeed, view: CallView): CallFollow {
  let held: RunSummary[] | null = [];
  let to: ((s: RunSummary) => void) | null = null;
  const stop = feed.listenCall(view.id, (s) => {
    if (to) to(s);
    else held?.push(s);
  });
  return {
    view,
    listen(wake) {
      const early = held ?? [];
      held = null;
      to = wake;
      for (const s of early) wake(s);
      return () => {
        to = null;
      };
    },
    stop,
  };
}

/** What AgentCalls runs on (the ingress's role deps, narrowed). */
export interface AgentCallsDeps {
  settings: Settings;
  stores: Stores;
  bus: RunBus;
  clock: Clock;
  logger: Logger;
  /** Wakes waiting calls when their run moves; absent, they poll the store. */
  runEvents?: RunEventFeed;
  /** Where the `accepted` event of a kept call is announced (the console's live view); absent: not announced. */
  events?: RunEventSink;
  /** The store poll behind `runEvents` (ms; default fallbackPollMs of the calls waiting, in wait.ts); a test sets it past the wait to show events alone wake a call. */
  slowPollMs?: number;
}

/**
 * The agent door's framework-neutral core: decides what an agent may see and
 * call, keeps each call as a run (door `agent`) before anything runs it, and
 * reads or waits for its outcome. `/mcp` and `POST /api/calls` adapt it.
 */
export class AgentCalls {
  constructor(private readonly deps: AgentCallsDeps) {}

  /** Tools the agent may see (names), by agentAllowlist over the tool catalogue `names`. */
  visible(agent: AgentClient, runtimeAllow: string[] | null, names: readonly string[]): string[] {
    const list = agentAllowlist(this.deps.settings.toolsAllow, agent.tools_allow, runtimeAllow);
    return names.filter((n) => allows(list, n));
  }

  /**
   * Keeps the call as a run and publishes it (a failed publish is logged: the
   * sweep dispatches it). A tool the agent may not call is not_found before
   * anything is kept; a key this agent already used for another tool or other
   * arguments is a conflict naming that run. While an identical call of this
   * agent (same tool, same arguments) is open, this one joins it whatever its
   * key (`joined`): one run, one approval, one tool call. `follow`: a new
   * call's events are listened to before it is dispatched (`follow` in the
   * answer, for `wait`; the caller stops it).
   */
  async submit(
    agent: AgentClient,
    req: CallRequest,
    options: { follow?: boolean } = {},
  ): Promise<{ id: string; created: boolean; joined: boolean; idempotencyKey: string; follow?: CallFollow }> {
    const { settings, stores, clock, logger } = this.deps;
    const tool = checkTool(req.tool);
    const args = checkArguments(req.arguments);
    const key = checkKey(req.idempotencyKey);
    const runtimeAllow = req.runtimeAllow ?? null;
    // The same function lists and calls, read at call time (HOOKS_TOOLS_ALLOW applies live).
    if (!agentMayCall(settings.toolsAllow, agent.tools_allow, runtimeAllow, tool)) {
      throw notFound(`tool '${tool}' is not available to agent '${agent.name}'`);
    }
    const idempotencyKey = key ?? `hy-${randomUUID()}`;
    const call: AgentCallPayload = {
      // The call is the agent's (by id), never a same-named successor's; its key is scoped by it too.
      agent_id: agent.id,
      tool,
      arguments: args,
      args_sha256: argsHash(args),
      tools_allow: runtimeAllow,
      idempotency_key: idempotencyKey,
      via: req.via,
      // Who at the IdP made it, when the agent signed in with an access token: the run names the person or client.
      ...(agent.signed_in ? { signed_in: agent.signed_in } : {}),
    };
    const now = clock.now();
    const kept = await stores.runs
      .keepAgentCall({
        agent: agent.name,
        call,
        traceparent: req.traceparent ?? null,
        now,
        dispatchGraceMs: settings.dispatchGraceMs,
        // The key answers the same run at least as long as the run is kept.
        keyTtlMs: settings.retentionMs,
      })
      .catch((err: unknown) => {
        throw keepFailure(err, tool, idempotencyKey);
      });
    if (!kept.created) {
      await this.checkSameCall(agent, kept.id, idempotencyKey, call);
      if (kept.joined) logger.info({ run: kept.id, agent: agent.name, agent_id: agent.id, tool, via: req.via }, 'agent call joined the identical open call');
      return { id: kept.id, created: false, joined: kept.joined, idempotencyKey };
    }
    logger.info({ run: kept.id, agent: agent.name, agent_id: agent.id, tool, via: req.via }, 'agent call kept');
    // Before the call can move (its accepted event, its dispatch): the wait then starts from what was kept.
    const feed = this.deps.runEvents;
    const follow = options.follow && feed ? followCall(feed, keptView(kept.id, agent, tool)) : undefined;
    for (const summary of acceptedSummaries(AGENT_CALL_TOPIC, [{ id: kept.id, hook: agentHookName(agent.name) }], now)) {
      this.deps.events?.publish(summary).catch((err: unknown) => logger.debug({ run: kept.id, err: String(err) }, 'run event not published'));
    }
    try {
      await this.deps.bus.publish([kept.id]);
    } catch (err) {
      logger.warn({ err, run: kept.id, agent: agent.name }, 'publish of an agent call failed; the sweep will dispatch it');
    }
    return { id: kept.id, created: true, joined: false, idempotencyKey, ...(follow ? { follow } : {}) };
  }

  /** The call's view now; not_found when there is no such run or it is not this agent's (the same message either way). */
  async view(agent: AgentClient, id: string): Promise<CallView> {
    const run = await this.ownRun(agent, id);
    return callViewOf(run, await this.parkedOn(run));
  }

  /**
   * Waits until the call is done or parked, `waitMs` passed, or `signal`
   * aborted, and answers its view then; `onProgress` gets each intermediate
   * view whose status changed (`reportFirst`: the first view read too, when
   * it is not settled). `untilDone`: a parked call is waited on too (the MCP
   * door waits through an approval). Woken by this call's run events
   * when there is a feed (`listenCall`: agent-call events only, routed by run
   * id); the store is polled besides (events can be lost). `follow` (from
   * this call's submit): its events since the keep, and no first read.
   */
  async wait(
    agent: AgentClient,
    id: string,
    waitMs: number,
    options: { signal?: AbortSignal; onProgress?: (v: CallView) => void; untilDone?: boolean; reportFirst?: boolean; follow?: CallFollow } = {},
  ): Promise<CallView> {
    const feed = this.deps.runEvents;
    const follow = options.follow?.view.id === id ? options.follow : undefined;
    return waitUntil<CallView, RunSummary>({
      read: () => this.view(agent, id),
      first: follow?.view,
      settled: options.untilDone ? (v) => v.done : isSettled,
      changed: (a, b) => a.status !== b.status || a.interaction?.id !== b.interaction?.id,
      waitMs,
      signal: options.signal,
      onProgress: options.onProgress,
      reportFirst: options.reportFirst,
      // Only this call's events, routed by run id (one lookup per event, however many calls wait).
      listen: follow ? (wake) => follow.listen(wake) : feed ? (wake) => feed.listenCall(id, wake) : undefined,
      // An event carries the status, not the result nor the approval's question: the view is read again for an
      // outcome, a park or a step back, never for the `accepted` and `started` of a call on its way (viewAfterEvent).
      advance: (v, summary) => viewAfterEvent(v, summary.status),
      slowPollMs: this.deps.slowPollMs,
    });
  }

  /**
   * The run if it is this agent's call (by id: a revoked agent's calls are not
   * its same-named successor's); one not_found for "none" and "someone
   * else's", so ids cannot be probed.
   */
  private async ownRun(agent: AgentClient, id: string): Promise<Run> {
    const missing = () => notFound(`no call ${JSON.stringify(id)} of agent '${agent.name}'`);
    if (typeof id !== 'string' || !RUN_ID_PATTERN.test(id)) throw missing();
    const run = await this.deps.stores.runs.get(id);
    if (!run || !isCallOf(agent, run)) throw missing();
    return run;
  }

  /** A parked run's interaction, and its approval rule's message when the policy that asked is still the kept one. */
  private async parkedOn(run: Run): Promise<ParkedOn | null> {
    if (run.status !== 'parked' || !run.interaction) return null;
    const interaction = await this.deps.stores.interactions.get(run.interaction);
    if (!interaction) return null;
    let message: string | null = null;
    if (interaction.rule && interaction.policy_version !== null) {
      const policy = await this.deps.stores.hooks.getApprovalPolicy();
      if (policy.version === interaction.policy_version) {
        const rule = policy.rules.find((r, i) => (r.name ?? `deployment rule ${i + 1}`) === interaction.rule);
        message = rule?.message ?? null;
      }
    }
    return { interaction, message };
  }

  /** True when the run is this agent's call (tasks/list shows no other). */
  owns(agent: AgentClient, run: Run): boolean {
    return isCallOf(agent, run);
  }

  /** A reused key must be the same call: same tool, same arguments (by their SHA-256). */
  private async checkSameCall(agent: AgentClient, id: string, key: string, call: AgentCallPayload): Promise<void> {
    const run = await this.deps.stores.runs.get(id);
    // Only a name revoked and made again before agents had ids shares a key scope with its predecessor.
    if (run && !isCallOf(agent, run)) {
      throw conflict(`idempotency key ${JSON.stringify(key)} was used by an earlier agent named '${agent.name}'; use a new key for this call`);
    }
    const kept = run?.payload as Partial<AgentCallPayload> | undefined;
    if (!kept) return;
    const sameTool = kept.tool === call.tool;
    if (sameTool && argsHash(kept.arguments ?? {}) === argsHash(call.arguments)) return;
    const what = sameTool ? 'with other arguments' : `of tool '${String(kept.tool)}'`;
    throw conflict(
      `idempotency key ${JSON.stringify(key)} already names call ${id}, ${what}: repeat that call exactly to get its outcome, or use a new key for a different call`,
    );
  }
}

/** A tool name as the catalogue spells them (the executor refuses any other). */
function checkTool(tool: unknown): string {
  const miss = nameViolation('tool', tool);
  if (miss) throw badInput(`${miss}: the name of a tool from the catalogue`);
  return tool as string;
}

function checkArguments(args: unknown): Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw badInput(
      `arguments must be a JSON object of the tool's arguments (${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args} given)`,
    );
  }
  return args as Record<string, unknown>;
}

/**
 * A keep that failed, as the agent is told: "not sent" only when the store
 * says it never sent the keep; a keep sent without an answer may have kept
 * the call (and it may run), so the answer names the key that finds out.
 */
function keepFailure(err: unknown, tool: string, key: string): HookyardError {
  const e = toHookyardError(err);
  if (e.outcomeUnknown) {
    return new HookyardError(
      'unavailable',
      `call of tool '${tool}': outcome unknown, the keep was sent and no answer came (${e.message}); the call may be kept and may run. ` +
        `Make the same call again (same tool, same arguments, or idempotency key ${JSON.stringify(key)}) to attach to it and get its outcome (or keep it, if it was not)`,
      { cause: err, outcomeUnknown: true },
    );
  }
  if (e.notSent)
    return new HookyardError('unavailable', `call of tool '${tool}' not kept: ${e.message}; nothing was kept, send it again`, { cause: err, notSent: true });
  return e;
}

function checkKey(key: unknown): string | null {
  if (key === undefined || key === null) return null;
  if (typeof key !== 'string' || key === '') throw badInput('idempotency key must be a non-empty string');
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) throw badInput(`idempotency key is ${key.length} characters long; at most ${IDEMPOTENCY_KEY_MAX_LENGTH}`);
  return key;
}
