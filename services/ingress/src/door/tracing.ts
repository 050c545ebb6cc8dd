import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  SPAN_ATTR,
  SpanKind,
  contextOfHeaders,
  contextOfTraceparent,
  endSpanWithError,
  startSpan,
  traceparentOf,
  tracingOn,
  withSpan,
  type Span,
} from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';

/**
 * The door's spans, kept out of the door's code: with tracing off
 * (`tracingOn()` false) the door calls none of this and builds no span.
 *
 * `POST /universal_webhook/{topic}` (SERVER) continues the request's W3C
 * `traceparent` (or starts a trace); the runs it keeps carry that span's
 * traceparent; `hookyard.keep` covers the store's atomic write, and
 * `hookyard.publish` the dispatch of the kept run ids, whose message carries
 * the publish span's traceparent to the executor.
 */
export const DOOR_SPAN = 'POST /universal_webhook/{topic}';
export const KEEP_SPAN = 'hookyard.keep';
export const PUBLISH_SPAN = 'hookyard.publish';
/** The NATS door's span for one ingest message (CONSUMER), continuing the message's `traceparent` header. */
export const INGEST_SPAN = 'hookyard.ingest';

/** Runs one NATS ingest message inside its span (parent: the message's traceparent header, if any), ended with the verdict. */
export function tracedIngest<V extends string>(topic: string, headers: Record<string, string>, handle: () => Promise<V>): Promise<V> {
  const span = startSpan(INGEST_SPAN, { kind: SpanKind.CONSUMER, attributes: { [SPAN_ATTR.topic]: topic } }, contextOfHeaders(headers));
  return withSpan(span, handle).then(
    (verdict) => {
      span.setAttribute('hookyard.ingest.verdict', verdict);
      span.end();
      return verdict;
    },
    (err: unknown) => {
      endSpanWithError(span, err);
      throw err;
    },
  );
}

/** Runs one delivery inside its door span (started from the request's headers), ended with the answer's status. */
export function tracedDelivery(req: IncomingMessage, res: ServerResponse, topic: string, handle: () => Promise<void>): Promise<void> {
  const span = startSpan(
    DOOR_SPAN,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'http.route': '/universal_webhook/{topic}', [SPAN_ATTR.topic]: topic } },
    contextOfHeaders(req.headers),
  );
  return withSpan(span, handle).then(
    () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      span.end();
    },
    (err: unknown) => {
      endSpanWithError(span, err);
      throw err;
    },
  );
}

/**
 * Publishes a batch of run ids whose deliveries were traced: one bus publish
 * per trace (ids of one delivery stay together), each in a `hookyard.publish`
 * span under its delivery's span, its traceparent on the message. Ids kept
 * without a trace go out in one publish as before.
 */
export function publishTraced(bus: RunBus, ids: readonly string[], traces: readonly (string | undefined)[]): Promise<void> {
  const groups = new Map<string, string[]>();
  for (let i = 0; i < ids.length; i += 1) {
    const key = traces[i] ?? '';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(ids[i]!);
  }
  return Promise.all(
    [...groups].map(([tp, group]) => {
      if (tp === '') return bus.publish(group);
      const span: Span = startSpan(PUBLISH_SPAN, { kind: SpanKind.PRODUCER, attributes: { 'hookyard.runs': group.length } }, contextOfTraceparent(tp));
      return bus.publish(group, { traceparent: traceparentOf(span) }).then(
        () => span.end(),
        (err: unknown) => {
          endSpanWithError(span, err);
          throw err;
        },
      );
    }),
  ).then(() => undefined);
}

export { tracingOn };
