import { IDEMPOTENCY_KEY_MAX_LENGTH, toHookyardError, type AgentClient, type Settings } from '@hookyard/core';
import type { CallView } from './call-view';
import { TOOLS_ALLOW_HEADER, toolsAllowEntries, type AgentCalls, type CallFollow } from './calls';

/**
 * What an MCP `tools/call` becomes: the request's idempotency key and runtime
 * allowlists read from `_meta` and headers, the call kept as a run through
 * AgentCalls (before anything waits, so a dropped connection loses nothing;
 * an identical open call is joined), a bounded wait with progress (through
 * the approval when the client sent a progressToken), and the run's outcome
 * as an MCP result.
 */

/** The parts of AgentCalls the MCP door uses. */
export type McpCalls = Pick<AgentCalls, 'submit' | 'view' | 'visible' | 'wait' | 'owns'>;

/** `_meta` keys a client may set on a request. */
export const META_TOOLS_ALLOW = 'hookyard/tools_allow';
export const META_IDEMPOTENCY_KEY = 'hookyard/idempotency_key';
/** `_meta` key of a result: true when the call joined an identical open call (same tool, same arguments) instead of being kept again. */
export const META_JOINED = 'hookyard/joined';

/** A request's problem the client must fix: a JSON-RPC -32602 naming it. */
export class InvalidParams extends Error {}

type Headers = Record<string, string | string[] | undefined> | undefined;

const headerOf = (headers: Headers, name: string): string | undefined => {
  const v = headers?.[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/**
 * The runtime allowlists the caller attached: the `Hookyard-Tools-Allow`
 * header and `_meta["hookyard/tools_allow"]`, each null when absent. Both
 * apply when both are sent; neither can widen the agent's own.
 */
export function runtimeAllowlists(headers: Headers, meta: Record<string, unknown> | undefined): [string[] | null, string[] | null] {
  // Node keeps header names lower-cased.
  const header = headerOf(headers, TOOLS_ALLOW_HEADER.toLowerCase());
  const fromHeader = header === undefined ? null : toolsAllowEntries(header);
  const m = meta?.[META_TOOLS_ALLOW];
  if (m === undefined || m === null) return [fromHeader, null];
  if (!Array.isArray(m) || !m.every((e) => typeof e === 'string')) {
    throw new InvalidParams(`_meta["${META_TOOLS_ALLOW}"] must be an array of tool names in allowlist grammar ("*", "name", "!name")`);
  }
  return [fromHeader, m];
}

/** The client's idempotency key (`_meta["hookyard/idempotency_key"]`, else the `Idempotency-Key` header), or null. */
export function idempotencyKeyOf(headers: Headers, meta: Record<string, unknown> | undefined): string | null {
  const m = meta?.[META_IDEMPOTENCY_KEY];
  if (m !== undefined && m !== null) {
    if (typeof m !== 'string' || m === '' || m.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      throw new InvalidParams(`_meta["${META_IDEMPOTENCY_KEY}"] must be a string of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
    }
    return m;
  }
  const h = headerOf(headers, 'idempotency-key');
  return h === undefined || h === '' ? null : h;
}

/** A `tools/call` result (the MCP shape). */
export interface McpCallResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta: Record<string, unknown>;
  [k: string]: unknown;
}

/** What waiting needs besides AgentCalls. */
export interface WaitDeps {
  calls: McpCalls;
  settings: Pick<Settings, 'agentWaitMs' | 'agentProgressMs' | 'agentProgressMaxWaitMs'>;
}

/**
 * Waits for the call's outcome (also while it is parked on an approval,
 * unlike a plain read), telling `progress` of the state now and of each
 * change. Without `heartbeat`: up to HOOKS_AGENT_WAIT_SECONDS. With one (the
 * client sent a progressToken, so it can be kept waiting): up to
 * HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS (never less than the plain wait),
 * telling `heartbeat` every HOOKS_AGENT_PROGRESS_SECONDS the call still
 * waits; a parked call is waited on until its approval's expiry and the plain
 * wait past it (the expiry's outcome comes then). `follow`: the call's events
 * since its keep (the plain wait starts from them, without a read).
 */
export async function waitForOutcome(
  deps: WaitDeps,
  agent: AgentClient,
  id: string,
  signal: AbortSignal,
  progress: (v: CallView) => void,
  heartbeat?: (v: CallView) => void,
  follow?: CallFollow,
): Promise<CallView> {
  const { agentWaitMs, agentProgressMs, agentProgressMaxWaitMs } = deps.settings;
  // At most one read to start with (none for a call followed since its keep), reporting the state now as each change.
  if (!heartbeat) return deps.calls.wait(agent, id, agentWaitMs, { signal, onProgress: progress, untilDone: true, reportFirst: true, follow });
  const first = await deps.calls.view(agent, id);
  if (first.done) return first;
  progress(first);
  const deadline = Date.now() + Math.max(agentWaitMs, agentProgressMaxWaitMs);
  let v = first;
  for (;;) {
    const expiry = v.status === 'parked' && v.interaction ? Date.parse(v.interaction.expires_at) + agentWaitMs : Infinity;
    const left = Math.min(deadline, expiry) - Date.now();
    if (left <= 0 || signal.aborted) return v;
    v = await deps.calls.wait(agent, id, Math.min(agentProgressMs, left), { signal, onProgress: progress, untilDone: true });
    if (v.done || signal.aborted) return v;
    heartbeat(v);
  }
}

/** The progress message of a call still waiting: the approval and its rule when parked. */
export function progressMessage(v: CallView): string {
  const i = v.interaction;
  if (v.status === 'parked' && i) {
    const rule = i.rule ? ` (rule '${i.rule}')` : '';
    const why = i.message ? `: ${i.message}` : '';
    return `The call to ${v.tool} waits for approval ${i.id}${rule}${why}; an operator answers it before ${i.expires_at}.`;
  }
  return `The call to ${v.tool} is ${v.status.replace('_', ' ')} (run ${v.id}).`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The run's outcome as an MCP result. Succeeded: the result as text (a string
 * as is, anything else as JSON) and as structuredContent when it is an
 * object. Denied, failed and every other end: isError with the sentence (a
 * result the model reads, never a protocol error ending its turn). Not done
 * yet (parked, or still running past the wait): a plain result saying so,
 * with the run and the approval; the sentence tells the model to make the
 * same call again, which joins this one. `_meta` names the run, its status,
 * the idempotency key and, when this call joined an identical open one,
 * `hookyard/joined`.
 */
export function mcpResult(v: CallView, idempotencyKey: string): McpCallResult {
  const meta: Record<string, unknown> = { 'hookyard/run': v.id, 'hookyard/status': v.status, [META_IDEMPOTENCY_KEY]: idempotencyKey };
  if (v.interaction) meta['hookyard/interaction'] = v.interaction.id;
  if (v.joined) meta[META_JOINED] = true;
  if (v.status === 'succeeded') {
    const text = typeof v.result === 'string' ? v.result : (JSON.stringify(v.result ?? null) ?? 'null');
    return { content: [{ type: 'text', text }], ...(isPlainObject(v.result) ? { structuredContent: v.result } : {}), _meta: meta };
  }
  if (v.done) return { isError: true, content: [{ type: 'text', text: v.sentence }], _meta: meta };
  const approval = v.interaction ? `, approval ${v.interaction.id}` : '';
  return { content: [{ type: 'text', text: `${v.sentence} (run ${v.id}${approval})` }], _meta: meta };
}

/** A refused submit as the door answers it: the kind decides (see mcp-server.ts). */
export function submitErrorKind(err: unknown): { kind: string; message: string } {
  const e = toHookyardError(err);
  return { kind: e.kind, message: e.message };
}
