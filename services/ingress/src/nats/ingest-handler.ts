import {
  type Clock,
  type HookMetrics,
  PLATFORM_EVENT_TOPICS,
  type Logger,
  SpanKind,
  activeTraceparent,
  nameViolation,
  systemClock,
  toHookyardError,
  traced,
  UNROUTED_TOPIC,
  countUnrouted,
  keptHeaders,
} from '@hookyard/core';
import type { IngestHandler, IngestMessage, IngestVerdict, RunBus, RunEventSink } from '@hookyard/bus';
import type { KeepEventInput, KeptRun, Stores, UnroutedBounds } from '@hookyard/store';
import { parsePayload } from '../door/payload';
import type { DedupeInput, DedupeVerdict } from '../door/dedupe';
import { createAcceptAnnouncer } from '../door/announce';
import { createTopicCache } from '../door/topic-cache';
import { KEEP_SPAN, PUBLISH_SPAN, tracedIngest, tracingOn } from '../door/tracing';

export interface NatsIngestHandlerDeps {
  /** `hooks` for the topics' verifier bindings (a bound topic is refused unless its binding trusts NATS). */
  stores: Pick<Stores, 'runs' | 'hooks'>;
  bus: Pick<RunBus, 'publish'>;
  metrics: HookMetrics;
  logger: Logger;
  clock?: Clock;
  dispatchGraceMs: number;
  /** Largest body kept, as the HTTP door's HOOKS_BODY_MAX_BYTES. */
  bodyMaxBytes: number;
  /** How long a `Nats-Msg-Id` stays claimed per topic (HOOKS_NATS_DEDUPE_SECONDS, default 24 h). */
  dedupeTtlMs?: number;
  /** The Content-Type assumed when a message carries none (default application/json). */
  defaultContentType?: string;
  /**
   * The topic's dedupe key (see createDedupeStep), asked only for a message
   * without `Nats-Msg-Id` (which wins); its expression sees the message's headers
   * (names lower-cased, first value), an empty query and the payload as `body`.
   */
  dedupe?: { keyOf(topic: string, input: () => DedupeInput): Promise<DedupeVerdict> };
  /** Where the kept runs are announced as `accepted` run events (best effort, as at the HTTP door). */
  events?: RunEventSink;
  /**
   * How long a topic's verifier binding (or its absence) is reused before the
   * store is asked again (default 1000 ms, as the HTTP door's).
   */
  verifierCacheMs?: number;
  /** Events on a topic with no hook are kept within these bounds (HOOKS_UNROUTED_*), as at the HTTP door; absent: not kept. */
  unrouted?: UnroutedBounds;
}

/** Longest `Nats-Msg-Id` taken as a delivery id; longer is malformed. */
export const MSG_ID_MAX_LENGTH = 256;
const DEFAULT_DEDUPE_TTL_MS = 24 * 3600 * 1000;

/**
 * Keeps an event that arrived on `<prefix>.ingest.<topic>` the way the HTTP
 * door keeps a body: the same payload parser, the topic checked against the
 * name pattern (never sanitized), one atomic keep that also claims
 * `Nats-Msg-Id` as the delivery id, then the run ids published.
 *
 * Verdicts: 'accepted' (kept, possibly 0 runs), 'duplicate' (the id was
 * already claimed: nothing kept), 'rejected' (malformed: terminated, never
 * redelivered; logged at WARN with the reason and counted in
 * `tai42_hook_runs_ingest_messages_total{verdict="rejected"}`). A store that
 * fails makes it throw, so the message is redelivered later: a keep that did
 * not commit took no claim either (the redelivery keeps), one that did commit
 * (its answer was lost) holds the claim (the redelivery is a duplicate).
 *
 * A topic with a verifier binding is refused here (terminated, counted as
 * `verdict="refused"`, logged at WARN naming the topic) unless its binding
 * says `nats: "trusted"`: HTTP signature schemes cannot be checked on a NATS
 * message, so only the operator's explicit trust in who may publish (NATS
 * permissions) lets it in. Its runs are door `nats` and never `verified`,
 * trusted topic or not: NATS trust is not a signature, so they cannot answer
 * an approval. The claims this door takes (`Nats-Msg-Id`, or the topic's
 * dedupe key) are the NATS door's own (see DeliveryClaim): a message cannot
 * make a signed HTTP delivery with the same id a duplicate.
 */
export function createNatsIngestHandler(deps: NatsIngestHandlerDeps): IngestHandler {
  const clock = deps.clock ?? systemClock;
  const ttlMs = deps.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const { metrics, logger } = deps;
  const announce = deps.events ? createAcceptAnnouncer(deps.events, (n) => logger.debug({ events: n }, 'accepted run events dropped')) : undefined;

  const verdict = (v: IngestVerdict | 'failed' | 'refused') => metrics.ingestMessages.inc({ verdict: v });
  const bindings = createTopicCache(
    (topic) => deps.stores.hooks.getVerifier(topic),
    deps.verifierCacheMs === undefined ? {} : { cacheMs: deps.verifierCacheMs },
  );
  const reject = (msg: IngestMessage, reason: string): IngestVerdict => {
    verdict('rejected');
    logger.warn({ topic: msg.topic, msgId: msg.msgId, bytes: msg.data.length, reason }, 'NATS ingest message rejected; not kept, not redelivered');
    return 'rejected';
  };

  async function handle(msg: IngestMessage): Promise<IngestVerdict> {
    const { topic, msgId } = msg;
    // A dotted subject tail is several tokens: not a topic either.
    const bad = nameViolation('topic', topic);
    if (bad) return reject(msg, bad);
    // Only the platform fires its own events: a forged one would page whoever routes them.
    if (PLATFORM_EVENT_TOPICS.has(topic)) return reject(msg, `topic ${topic} is reserved for platform events`);
    if (msgId !== null && msgId.length > MSG_ID_MAX_LENGTH) return reject(msg, `Nats-Msg-Id is longer than ${MSG_ID_MAX_LENGTH} characters`);
    if (msg.data.length > deps.bodyMaxBytes) return reject(msg, `body is larger than ${deps.bodyMaxBytes} bytes (HOOKS_BODY_MAX_BYTES)`);
    // A store that cannot be read throws: the message is redelivered later.
    const binding = await bindings.get(topic);
    if (binding && binding.nats !== 'trusted') {
      verdict('refused');
      const reason = `topic ${topic} has a ${binding.kind} verifier binding, which a NATS message cannot pass; set nats: "trusted" on the binding to let the NATS door keep it`;
      logger.warn(
        { topic, msgId, kind: binding.kind, reason },
        `NATS ingest message on ${topic} refused: the topic has a verifier binding that does not trust NATS; not kept, not redelivered`,
      );
      return 'rejected';
    }

    const parsed = await parsePayload({
      contentType: msg.headers['content-type'] ?? deps.defaultContentType ?? 'application/json',
      rawBody: Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength),
      query: '',
      maxFieldBytes: deps.bodyMaxBytes,
    });
    if (!parsed.ok) return reject(msg, parsed.body.error);

    let claim: { id: string; ttlMs: number } | null = msgId === null ? null : { id: msgId, ttlMs };
    if (claim === null && deps.dedupe) {
      // A store that cannot be read throws: the message is redelivered later.
      const key = await deps.dedupe.keyOf(topic, () => ({ headers: msg.headers, query: {}, body: parsed.payload }));
      if (!key.ok) return reject(msg, key.reason);
      claim = key.claim;
    }

    const now = clock.now();
    // With tracing on, the runs keep the ingest span's traceparent (see door/tracing.ts).
    // Never verified, a trusted topic's either: NATS trust is who may publish, not a signature.
    const input: KeepEventInput = {
      topic,
      payload: parsed.payload,
      now,
      dispatchGraceMs: deps.dispatchGraceMs,
      traceparent: activeTraceparent(),
      door: 'nats',
      verified: false,
      // The message's allowlisted, secret-free headers (core's KEPT_HEADERS), bounded.
      headers: keptHeaders(msg.headers),
      ...(deps.unrouted ? { unrouted: deps.unrouted } : {}),
    };
    let kept: KeptRun[];
    const c = claim;
    if (c === null) kept = await traced(KEEP_SPAN, () => deps.stores.runs.keepEvent(input));
    else {
      // Parsed before claimed: a refused body never holds a claim that would make its corrected resend a duplicate.
      const result = await traced(KEEP_SPAN, () => deps.stores.runs.keepDelivery(input, c));
      if (result.status === 'duplicate') {
        verdict('duplicate');
        logger.debug({ topic, msgId, deliveryId: c.id }, 'NATS ingest message already kept; acknowledged as duplicate');
        return 'duplicate';
      }
      kept = result.runs;
    }

    verdict('accepted');
    if (kept.length === 0) {
      metrics.accepted.inc({ topic: UNROUTED_TOPIC, hook: '' });
      countUnrouted(metrics, topic);
      logger.info(
        { topic, msgId },
        'NATS ingest: no hook is registered on the topic; accepted as unrouted (kept under GET /api/unrouted unless HOOKS_UNROUTED_KEEP is 0)',
      );
    }
    for (const run of kept) metrics.accepted.inc({ topic, hook: run.hook });
    if (kept.length > 0) {
      announce?.(topic, kept, now);
      const ids = kept.map((k) => k.id);
      try {
        await traced(PUBLISH_SPAN, () => deps.bus.publish(ids, { traceparent: activeTraceparent() }), { kind: SpanKind.PRODUCER });
        metrics.dispatched.inc({ source: 'nats' }, ids.length);
      } catch (err) {
        // Kept is kept: the sweep dispatches what was not published.
        logger.warn({ err, topic, runs: ids }, 'publish of runs kept from NATS failed; the sweep will dispatch them');
      }
    }
    return 'accepted';
  }

  return async (msg) => {
    try {
      return await (tracingOn() ? tracedIngest(msg.topic, msg.headers, () => handle(msg)) : handle(msg));
    } catch (err) {
      verdict('failed');
      const unknown = toHookyardError(err).outcomeUnknown;
      logger.error(
        { err, topic: msg.topic, msgId: msg.msgId },
        unknown
          ? 'NATS ingest sent the keep but got no answer (it may be kept); redelivered later, a duplicate if it was kept'
          : 'NATS ingest could not keep the event; it will be redelivered',
      );
      throw err;
    }
  };
}
