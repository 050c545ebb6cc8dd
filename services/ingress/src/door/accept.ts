import type { IncomingHttpHeaders } from 'node:http';
import {
  PLATFORM_EVENT_TOPICS,
  UNROUTED_TOPIC,
  countUnrouted,
  keptHeaders,
  toHookyardError,
  traced,
  type Clock,
  type HookMetrics,
  type Logger,
} from '@hookyard/core';
import type { RunBus, RunEventSink } from '@hookyard/bus';
import { KEEP_SPAN } from './tracing';
import type { KeepEventInput, KeptRun, Stores, UnroutedBounds } from '@hookyard/store';
import { unroutedMessage } from './unrouted';
import { parsePayload } from './payload';
import { parseQuery } from './fields';
import type { DedupeVerdict, DedupeInput } from './dedupe';

/** A delivery as the door read it: the raw bytes, before anything parsed them. */
export interface Delivery {
  topic: string;
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Raw query string without `?`. */
  query: string;
  /** The door span's W3C traceparent, kept on every run (tracing on); absent when off. */
  traceparent?: string;
}

/** What the door answers. `body` is the JSON text. */
export interface DoorAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * The verification step of a topic (wired from the verifier module): not
 * bound -> `{ok: true, deliveryId: null, bound: false}`. A delivery id comes
 * with how long its claim is kept; `bound` (the binding checked the delivery
 * and it passed) makes the runs `verified`, `kind` names the binding's kind.
 */
export type VerifyStep = (
  delivery: Delivery,
  now: number,
) => Promise<{ ok: true; deliveryId: string | null; claimTtlMs: number; bound: boolean; kind?: string } | { ok: false; answer: DoorAnswer }>;

export interface AcceptDeps {
  stores: Stores;
  bus: RunBus;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  dispatchGraceMs: number;
  bodyMaxBytes: number;
  verify?: VerifyStep;
  /** The topic's dedupe key (see createDedupeStep): used when the verifier gave no delivery id. */
  dedupe?: { keyOf(topic: string, input: () => DedupeInput): Promise<DedupeVerdict> };
  /** Where the door announces the runs it kept (`accepted` run events, after the answer; best effort). */
  events?: RunEventSink;
  /** Counts one kept run (default: metrics.accepted with its labels); see createAcceptedCounter. */
  countAccepted?: (topic: string, hook: string) => void;
  /** Events on a topic with no hook are kept within these bounds (HOOKS_UNROUTED_*); absent: not kept. */
  unrouted?: UnroutedBounds;
}

export const ANSWERS = {
  acceptFailed: { status: 500, body: '{"error":"accept failed"}' },
  outcomeUnknown: { status: 503, body: '{"error":"accept outcome unknown"}' },
  verificationError: { status: 500, body: '{"error":"webhook verification error"}' },
  duplicate: { status: 200, body: '{"status":"duplicate"}' },
} satisfies Record<string, DoorAnswer>;

/** The answer on a platform event topic without a verifier binding (one fixed body per topic). */
const RESERVED: ReadonlyMap<string, DoorAnswer> = new Map(
  [...PLATFORM_EVENT_TOPICS].map((t) => [
    t,
    { status: 403, body: `{"error":"topic ${t} is reserved for platform events; bind a verifier to accept it here"}` },
  ]),
);

/**
 * The door's framework-neutral core, after the body was read within its caps:
 * verify the raw bytes -> parse -> keep the runs, with the delivery id's claim
 * in the same atomic write -> answer. A keep that failed keeps nothing and
 * claims nothing (500 `accept failed`: the sender's retry keeps); one whose
 * outcome is unknown (sent, no answer) is 503 `accept outcome unknown`: the
 * retry of a claimed delivery is then a duplicate if it was kept and a keep
 * if not. Publishing happens after the answer (see `createPublishBatcher`),
 * so a slow or failing bus never delays or fails an accepted event: the
 * scheduler's sweep dispatches whatever was not published.
 */
export async function acceptDelivery(
  deps: AcceptDeps,
  delivery: Delivery,
): Promise<{ answer: DoorAnswer; kept: KeptRun[]; keptAt?: number; payloadJson?: string }> {
  const now = deps.clock.now();
  let claim: { id: string; ttlMs: number } | null = null;
  // Only the platform fires its own events, unless an operator bound a verifier to the topic.
  let bound = false;
  let verifiedBy: string | undefined;
  if (deps.verify) {
    const verdict = await deps.verify(delivery, now);
    if (!verdict.ok) return { answer: verdict.answer, kept: [] };
    bound = verdict.bound;
    verifiedBy = verdict.kind;
    if (verdict.deliveryId !== null) claim = { id: verdict.deliveryId, ttlMs: verdict.claimTtlMs };
  }

  const reserved = bound ? undefined : RESERVED.get(delivery.topic);
  if (reserved) return { answer: reserved, kept: [] };

  const parsed = await parsePayload({
    contentType: delivery.headers['content-type'],
    rawBody: delivery.rawBody,
    query: delivery.query,
    maxFieldBytes: deps.bodyMaxBytes,
    keepJsonText: true,
  });
  // A refused body keeps nothing and claims nothing: a corrected resend is not "duplicate".
  if (!parsed.ok) return { answer: { status: parsed.status, body: JSON.stringify(parsed.body) }, kept: [] };

  // The verifier's delivery id wins: the dedupe key is asked only when there is none.
  if (claim === null && deps.dedupe) {
    let verdict: DedupeVerdict;
    try {
      verdict = await deps.dedupe.keyOf(delivery.topic, () => ({ headers: delivery.headers, query: parseQuery(delivery.query) ?? {}, body: parsed.payload }));
    } catch (err) {
      deps.logger.error({ err, topic: delivery.topic }, 'dedupe key could not be read or evaluated; nothing kept');
      return { answer: ANSWERS.acceptFailed, kept: [] };
    }
    if (!verdict.ok) return { answer: { status: 400, body: JSON.stringify({ status: 'rejected', error: verdict.reason }) }, kept: [] };
    claim = verdict.claim;
  }

  const json = parsed.json;
  // Verified only here, where the binding checked these bytes: the one place a run gets `verified`.
  const provenance = {
    door: 'http' as const,
    verified: bound,
    // Only the allowlisted, secret-free request headers (core's KEPT_HEADERS), bounded.
    headers: keptHeaders(delivery.headers),
    ...(bound && verifiedBy ? { verifiedBy } : {}),
    ...(deps.unrouted ? { unrouted: deps.unrouted } : {}),
  };
  const input: KeepEventInput =
    json === undefined
      ? { topic: delivery.topic, payload: parsed.payload, now, dispatchGraceMs: deps.dispatchGraceMs, traceparent: delivery.traceparent, ...provenance }
      : {
          topic: delivery.topic,
          ...provenance,
          // Read only by a store that does not keep the JSON text (the text parses to the same value).
          get payload() {
            return parsed.payload;
          },
          payloadJson: json,
          now,
          dispatchGraceMs: deps.dispatchGraceMs,
          traceparent: delivery.traceparent,
        };
  let kept: KeptRun[];
  try {
    const c = claim;
    if (c === null) kept = await traced(KEEP_SPAN, () => deps.stores.runs.keepEvent(input));
    else {
      const result = await traced(KEEP_SPAN, () => deps.stores.runs.keepDelivery(input, c));
      if (result.status === 'duplicate') return { answer: ANSWERS.duplicate, kept: [] };
      kept = result.runs;
    }
  } catch (err) {
    const e = toHookyardError(err);
    const where = { err, topic: delivery.topic, deliveryId: claim?.id ?? null };
    if (e.outcomeUnknown) {
      deps.logger.error(where, 'door sent the keep but got no answer: the event may or may not be kept (answered 503 accept outcome unknown)');
      return { answer: ANSWERS.outcomeUnknown, kept: [] };
    }
    deps.logger.error(where, 'door could not keep the event; nothing kept');
    return { answer: ANSWERS.acceptFailed, kept: [] };
  }

  if (kept.length === 0) {
    deps.metrics.accepted.inc({ topic: UNROUTED_TOPIC, hook: '' });
    countUnrouted(deps.metrics, delivery.topic);
    deps.logger.info(
      { topic: delivery.topic, deliveryId: claim?.id ?? null },
      'door: no hook is registered on the topic; answered 200 unrouted (kept under GET /api/unrouted unless HOOKS_UNROUTED_KEEP is 0)',
    );
    return { answer: { status: 200, body: acceptedBody(kept, unroutedMessage(delivery.topic, deps.unrouted)) }, kept, keptAt: now };
  }
  for (const run of kept) (deps.countAccepted ?? ((topic, hook) => deps.metrics.accepted.inc({ topic, hook })))(delivery.topic, run.hook);
  // keptAt: the runs' created_at, for the door's `accepted` run events; payloadJson: the kept text, for the plan hints.
  return { answer: { status: 200, body: acceptedBody(kept) }, kept, keptAt: now, ...(json === undefined ? {} : { payloadJson: json }) };
}

/** Run ids are the event's id (24 chars: time, sequence, randomness, partition) and the run's index within it. */
const EVENT_ID_LENGTH = 24;

/**
 * The door's 200: how many runs it kept, their ids (so a sender's log line
 * leads to them: `GET /api/hook-runs/{id}`) and the event id every one of them
 * starts with; `event_id` is null when the topic has no hooks (no run kept):
 * then `unrouted: true` and `message` say so (see unroutedMessage).
 */
export function acceptedBody(kept: readonly KeptRun[], unrouted?: string): string {
  const eventId = kept.length > 0 ? kept[0]!.id.slice(0, EVENT_ID_LENGTH) : null;
  const body = { status: 'accepted', runs: kept.length, run_ids: kept.map((k) => k.id), event_id: eventId };
  return JSON.stringify(unrouted === undefined ? body : { ...body, unrouted: true, message: unrouted });
}

/**
 * Counts a kept run under accepted{topic,hook}, keeping the label children
 * (bounded by registered hooks) so the hot path does not hash labels per run.
 */
export function createAcceptedCounter(metrics: HookMetrics): (topic: string, hook: string) => void {
  const byKey = new Map<string, { inc(): void }>();
  return (topic, hook) => {
    const key = `${topic}\u0000${hook}`;
    let child = byKey.get(key);
    if (!child) {
      if (byKey.size >= 10_000) byKey.clear();
      byKey.set(key, (child = metrics.accepted.labels(topic, hook)));
    }
    child.inc();
  };
}
