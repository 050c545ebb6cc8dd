import type { IncomingMessage, ServerResponse } from 'node:http';
import { NAME_MAX_LENGTH, NAME_PATTERN, NAME_PATTERN_SOURCE, activeTraceparent } from '@hookyard/core';
import { sendJson } from '../http/headers';
import { acceptDelivery, createAcceptedCounter, type AcceptDeps, type DoorAnswer } from './accept';
import { createPublishBatcher } from './publish-batch';
import { createAcceptAnnouncer } from './announce';
import { drainRefusedBody, readBody } from './read-body';
import { tooManyBody } from './too-many';
import { tracedDelivery, tracingOn } from './tracing';

/** The flood limiter's verdict for one delivery (wired from the limiter module). */
export type LimitStep = (req: IncomingMessage, topic: string) => Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;

export interface DoorOptions extends AcceptDeps {
  queryMaxBytes: number;
  /** How long a client may take to send its body before a 408 (default 10 s). */
  readTimeoutMs: number;
  limit?: LimitStep;
  /** True when the topic's verifier lets a GET through (a verification handshake). */
  allowsGet?: (topic: string) => Promise<boolean>;
}

/** A topic is a name: an upper-case letter or a dot is a sender's typo, said as such (not a bare 404). */
const BAD_TOPIC = JSON.stringify({ status: 'rejected', error: `topic must match ${NAME_PATTERN_SOURCE} (at most ${NAME_MAX_LENGTH} characters)` });
const METHOD_NOT_ALLOWED = '{"error":"method not allowed"}';
const TIMEOUT = '{"error":"request body not received in time"}';
const INTERNAL = '{"error":"internal error"}';
/** How long a refused (413, 408) body is still read and discarded, so the client can read the answer. */
const DRAIN_MS = 5000;

/**
 * `POST /universal_webhook/{topic}` on node's own request/response: no body
 * parser, no express helpers, one writeHead per answer. Order: topic -> method
 * -> query cap -> flood limiter -> body cap and read timeout -> accept
 * (verify, claim, parse, keep) -> answer -> publish (and announce the kept runs).
 */
export function createDoorHandler(options: DoorOptions): (req: IncomingMessage, res: ServerResponse, topic: string) => void {
  const opts: DoorOptions = { ...options, countAccepted: options.countAccepted ?? createAcceptedCounter(options.metrics) };
  // Fixed per door: the limit and the setting that raises it.
  const QUERY_TOO_LONG = JSON.stringify({ error: `query string too long: the limit is ${opts.queryMaxBytes} bytes (HOOKS_QUERY_MAX_BYTES)` });
  const BODY_TOO_LARGE = JSON.stringify({ error: `body too large: the limit is ${opts.bodyMaxBytes} bytes (HOOKS_BODY_MAX_BYTES)` });
  const publish = createPublishBatcher(opts);
  const announce = opts.events ? createAcceptAnnouncer(opts.events, (n) => opts.logger.debug({ events: n }, 'accepted run events dropped')) : undefined;
  // Label children are looked up once per status code, not hashed per request.
  const byCode = new Map<number, { inc(): void }>();
  const answer = (res: ServerResponse, status: number, body: string, extra?: Record<string, string>, close = false) => {
    let counter = byCode.get(status);
    if (!counter) byCode.set(status, (counter = opts.metrics.doorRequests.labels(String(status))));
    counter.inc();
    sendJson(res, status, body, extra, close);
  };

  async function handle(req: IncomingMessage, res: ServerResponse, topic: string): Promise<void> {
    // A refusal before the body was read drops the connection when a body is on its way, so it is never read.
    const pendingBody = hasBody(req);
    if (topic.length > NAME_MAX_LENGTH || !NAME_PATTERN.test(topic)) return answer(res, 400, BAD_TOPIC, undefined, pendingBody);
    if (req.method !== 'POST' && !(req.method === 'GET' && opts.allowsGet && (await opts.allowsGet(topic)))) {
      return answer(res, 405, METHOD_NOT_ALLOWED, { Allow: 'POST' }, pendingBody);
    }
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query = q < 0 ? '' : url.slice(q + 1);
    if (Buffer.byteLength(query) > opts.queryMaxBytes) return answer(res, 414, QUERY_TOO_LONG, undefined, pendingBody);
    if (opts.limit) {
      const verdict = await opts.limit(req, topic);
      if (!verdict.ok) {
        const retry = Math.max(1, Math.ceil(verdict.retryAfterSeconds));
        return answer(res, 429, tooManyBody('topic', retry), { 'Retry-After': String(retry) }, pendingBody);
      }
    }

    const read = await readBody(req, opts.bodyMaxBytes, opts.readTimeoutMs);
    if (!read.ok) {
      if (read.status === 0) return; // the client went away: nothing to answer, nothing kept
      // Too large or too slow, the rest of the body is still on its way: answer, then read and
      // discard it (bounded) so the client reads the answer instead of a reset.
      drainRefusedBody(req, { maxBytes: Math.min(64 * 1024 * 1024, Math.max(1024 * 1024, 4 * opts.bodyMaxBytes)), maxMs: DRAIN_MS });
      return answer(res, read.status, read.status === 413 ? BODY_TOO_LARGE : TIMEOUT, undefined, true);
    }

    const {
      answer: a,
      kept,
      keptAt,
      payloadJson,
    } = await acceptDelivery(opts, {
      topic,
      method: req.method ?? 'POST',
      headers: req.headers,
      rawBody: read.body,
      query,
      traceparent: activeTraceparent(),
    });
    respond(res, a);
    if (kept.length) {
      // Announced first: in one process (the embedded default) `accepted` then leaves before the executor's `started`.
      announce?.(topic, kept, keptAt!);
      const traceparent = activeTraceparent();
      // Untraced JSON deliveries carry their payload to the executor, which plans before it claims (run-hints).
      const hints = payloadJson !== undefined && traceparent === undefined ? kept.map((k) => ({ hook: k.hook, topic, payloadJson })) : undefined;
      publish(
        kept.map((k) => k.id),
        traceparent,
        hints,
      );
    }
  }

  const respond = (res: ServerResponse, a: DoorAnswer) => answer(res, a.status, a.body, a.headers);

  return (req, res, topic) => {
    // Tracing on: the delivery runs inside its door span (see tracing.ts); off: nothing is built.
    (tracingOn() ? tracedDelivery(req, res, topic, () => handle(req, res, topic)) : handle(req, res, topic)).catch((err: unknown) => {
      opts.logger.error({ err, topic }, 'door failed unexpectedly');
      answer(res, 500, INTERNAL, undefined, true);
    });
  };
}

function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}
