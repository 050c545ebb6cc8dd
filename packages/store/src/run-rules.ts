import { RESULT_MAX_BYTES, conflict, httpExchange, isHttpExchange } from '@hookyard/core';
import type { Acted, AgentCallPayload, Door, ErrorInfo, HttpExchange } from '@hookyard/core';
import type { ActInput, KeepEventInput, UnknownOutcomeVerdict } from './types';

/**
 * Rules both stores share, so memory and Redis say the same thing. The Lua
 * scripts receive these strings as arguments instead of building their own.
 */

/** How many history lines a run keeps (the oldest are dropped). Mirrored in history.lua. */
export const HISTORY_MAX = 50;

/** A result as kept: its JSON bounded to RESULT_MAX_BYTES; a larger one becomes a marked preview. */
export function boundResult(result: unknown): unknown {
  const json = JSON.stringify(result ?? null) ?? 'null';
  if (Buffer.byteLength(json) <= RESULT_MAX_BYTES) return JSON.parse(json) as unknown;
  // The preview is escaped again inside the marker, so shrink until the marker fits.
  let bytes = RESULT_MAX_BYTES - 256;
  for (;;) {
    const preview = Buffer.from(json)
      .subarray(0, bytes)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    const marked = { truncated: true, preview, bytes: Buffer.byteLength(json) };
    if (Buffer.byteLength(JSON.stringify(marked)) <= RESULT_MAX_BYTES) return marked;
    bytes = Math.floor(bytes / 2);
  }
}

/** An attempt's HTTP reply as kept: bounded and redacted again (a caller's exchange is not trusted to be); null for none. */
export function keptExchange(http: HttpExchange | null | undefined): HttpExchange | null {
  if (!isHttpExchange(http)) return null;
  return httpExchange(http.status, http.headers, http.body, http.body_bytes);
}

/**
 * Where a history line's detail text ends and its HTTP exchange (JSON) begins,
 * in stores that keep a line as `detail` text only (the Redis history, whose
 * Lua writes {at, attempt, event, detail}): `historyDetail` joins them,
 * `splitHistoryDetail` takes them apart as the run is read.
 */
const HTTP_MARK = '\u0000http:';

export function historyDetail(detail: string, http: HttpExchange | null): string {
  return http ? `${detail}${HTTP_MARK}${JSON.stringify(http)}` : detail;
}

export function splitHistoryDetail(stored: string): { detail: string; http: HttpExchange | null } {
  const at = stored.indexOf(HTTP_MARK);
  if (at < 0) return { detail: stored, http: null };
  let http: unknown;
  try {
    http = JSON.parse(stored.slice(at + HTTP_MARK.length)) as unknown;
  } catch {
    http = null;
  }
  return { detail: stored.slice(0, at), http: isHttpExchange(http) ? http : null };
}

export function errorDetail(error: ErrorInfo): string {
  return `${error.kind}: ${error.message}`;
}

export function claimDetail(owner: string, leaseMs: number): string {
  return `claimed by ${owner} (lease ${leaseMs} ms)`;
}

export function actDetail(act: ActInput): string {
  if (act.acted === 'start') return `started its tool${act.resumable ? ' (crash-resumable)' : ''}`;
  return `committed a ${act.acted} on ${JSON.stringify(act.actedIds ?? [])}`;
}

export function completeDetail(status: string, result: unknown): string {
  if (status === 'skipped') return 'condition was false';
  const bounded = result as { truncated?: unknown } | null;
  return bounded && typeof bounded === 'object' && bounded.truncated === true ? 'result truncated' : 'result kept';
}

export function retryScheduledDetail(error: ErrorInfo, dueAt: number): string {
  return `${errorDetail(error)}; due at ${new Date(dueAt).toISOString()}`;
}

/** Interrupt retries are written by Lua, which cannot format dates: the delay instead of the time. */
export function interruptRetryDetail(error: ErrorInfo, delayMs: number): string {
  return `${errorDetail(error)}; due in ${delayMs} ms`;
}

/** Who retried a run when the caller does not say (a role token names no one). */
export const OPERATOR = 'operator';

export function operatorRetryDetail(lastError: ErrorInfo | null, by = OPERATOR): string {
  return `retried by ${by}${lastError ? `; last error ${errorDetail(lastError)}` : ''}`;
}

/** How a run came in, as its first history line ends: `through the nats door, not verified`. */
export function provenanceDetail(door: Door, verified: boolean, verifiedBy?: string): string {
  return `through the ${door} door, ${verified ? (verifiedBy ? `verified by its ${verifiedBy} binding` : 'verified') : 'not verified'}`;
}

/** The first history line of a kept event's runs (`event on orders through the http door, verified`); failed_event.lua spells the platform's. */
export function keptDetail(input: Pick<KeepEventInput, 'topic' | 'door' | 'verified' | 'verifiedBy' | 'triggerLink'>): string {
  const link = input.triggerLink ? `, by trigger link ${input.triggerLink}` : '';
  return `event on ${input.topic} ${provenanceDetail(input.door ?? DEFAULT_DOOR, input.verified === true, input.verifiedBy)}${link}`;
}

/** The first history line of an agent's call: `call of tool echo by agent ci-bot (id 6f1c…) through the agent door (mcp), idempotency key k1` (no id for a call kept without one). */
export function agentKeptDetail(agent: string, call: AgentCallPayload): string {
  const narrowed = call.tools_allow ? `, runtime allowlist [${call.tools_allow.join(', ')}]` : '';
  const id = call.agent_id !== undefined && call.agent_id !== agent ? ` (id ${call.agent_id})` : '';
  return `call of tool ${call.tool} by agent ${agent}${id} through the agent door (${call.via}), idempotency key ${call.idempotency_key}${narrowed}`;
}

/** The door of a keep that names none: a call on the store's interface itself. */
export const DEFAULT_DOOR: Door = 'api';

/**
 * The history line of a replay's first event. A replay is an operator's act
 * through the API: door `api`, never verified (no signature was checked for
 * it; the source's verification is not copied). An edited payload says so.
 * Passed to replay.lua.
 */
export function replayDetail(sourceId: string, edited = false): string {
  return `replay of run ${sourceId}${edited ? ' with an edited payload' : ''} ${provenanceDetail('api', false)}`;
}

/** Statuses a run leaves on its own: replaying one would run its event twice at once. */
export const REPLAY_REFUSED: ReadonlySet<string> = new Set(['pending', 'running', 'retry_wait', 'parked']);

/** The refusal of `replay` for a run that still runs on its own. */
export function replayRefusal(id: string, status: string): Error {
  return conflict(`run ${id} is ${status}; only a run that has ended (succeeded, skipped, failed, denied, cancelled, discarded) can be replayed`);
}

/** The refusal of `retry` for a run whose hook committed a resume or take. */
export function committedRefusal(id: string, acted: Acted, actedIds: string[]): Error {
  return conflict(`run ${id} committed a ${acted} on ${actedIds.join(', ')}; it cannot be retried, only discarded`);
}

/** The refusal of `resolveUnknown` for a run not held failed with an unknown outcome. */
export function unknownOutcomeRefusal(id: string, status: string, kind: string): Error {
  const what = status === 'failed' ? `failed with ${kind ? `kind ${kind}` : 'no error'}` : status;
  return conflict(
    `run ${id} is ${what}; only a run held failed with an unknown outcome (kind outcome_unknown: its tool may have acted) can be resolved` +
      (status === 'failed' ? '; retry or discard it instead' : ''),
  );
}

/** What an operator's verdict on an unknown outcome writes: the run's status, result and error, and its history line. */
export function verdictFields(v: UnknownOutcomeVerdict): { status: 'succeeded' | 'failed'; result: unknown; error: ErrorInfo | null; detail: string } {
  const note = v.note ? `; note: ${v.note}` : '';
  if (v.outcome === 'succeeded') {
    return { status: 'succeeded', result: boundResult(v.result), error: null, detail: `resolved by ${v.by} as succeeded (the outcome was unknown)${note}` };
  }
  const error: ErrorInfo = { kind: 'operator_failed', message: `${v.by} checked what the tool did and recorded that it failed: ${v.reason}` };
  return { status: 'failed', result: null, error, detail: `resolved by ${v.by} as failed (the outcome was unknown): ${v.reason}${note}` };
}

export function staleTokenError(id: string, token: number, status: string, current: number): Error {
  return conflict(`run ${id}: write with token ${token} refused (run is ${status}, current token ${current})`);
}

/* The interrupt policy's words; interrupt.lua builds the same strings. */
export const lapseReason = (owner: string, attempt: number) => `lease of ${owner} lapsed during attempt ${attempt}`;
export const releaseReason = (owner: string, attempt: number, reason: string) => `attempt ${attempt} was interrupted on ${owner}: ${reason}`;
