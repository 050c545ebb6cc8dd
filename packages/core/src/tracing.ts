import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

/**
 * Tracing helpers over the OpenTelemetry API. The SDK (exporter, context
 * manager, W3C propagator) is set up by the CLI when the `OTEL_*` variables
 * turn an exporter on (see Tracing in docs/operations.md); until then
 * `tracingOn()` is false and every caller skips its tracing branch, so no
 * span object is built and no context is switched on the hot path.
 */

/** The instrumentation scope every Hookyard span is made under. */
export const TRACER_NAME = 'hookyard';
/** Span attributes more than one role sets (the ingress's door and agent spans, the executor's run and tool spans), named once. */
export const SPAN_ATTR = { topic: 'hookyard.topic', tool: 'hookyard.tool' } as const;

let enabled = false;

/** Turns the tracing branches on (the CLI does, after it registered the SDK). Default off. */
export function setTracingOn(on: boolean): void {
  enabled = on;
}

/** True when an exporter is set up: only then are spans made and trace context passed on. */
export function tracingOn(): boolean {
  return enabled;
}

export { SpanKind, SpanStatusCode };
export type { Span, Context as TraceContext };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = '0'.repeat(32);
const INVALID_SPAN = '0'.repeat(16);

/** The parts of a W3C `traceparent` (version 00 layout), or null when it is not one. */
export function parseTraceparent(value: string | undefined | null): { traceId: string; spanId: string; flags: number } | null {
  if (typeof value !== 'string') return null;
  const m = TRACEPARENT.exec(value.trim());
  if (!m || m[1] === 'ff' || m[2] === INVALID_TRACE || m[3] === INVALID_SPAN) return null;
  return { traceId: m[2]!, spanId: m[3]!, flags: parseInt(m[4]!, 16) };
}

/** The `traceparent` naming `span` as the parent of what comes next. */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A context whose (remote) parent is the given `traceparent`; the root context when it is not one. */
export function contextOfTraceparent(value: string | null | undefined): Context {
  const p = parseTraceparent(value);
  if (!p) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: p.traceId, spanId: p.spanId, traceFlags: p.flags & 1, isRemote: true });
}

/** The trace context carried by headers (`traceparent`, `tracestate`), through the registered W3C propagator. */
export function contextOfHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** A link to the span a `traceparent` names (for a message that belongs to another trace), or none. */
export function linkOf(value: string | null | undefined): Link[] {
  const p = parseTraceparent(value);
  return p ? [{ context: { traceId: p.traceId, spanId: p.spanId, traceFlags: p.flags & 1, isRemote: true } }] : [];
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** Epoch ms; default now (a span recorded after the fact, e.g. the claim or an approval wait). */
  startTime?: number;
}

/** Starts a span under `parent` (default: the active context). Only call it when `tracingOn()`. */
export function startSpan(name: string, options: SpanOptions = {}, parent: Context = context.active()): Span {
  return trace.getTracer(TRACER_NAME).startSpan(name, options, parent);
}

/** Runs `fn` with `span` as the active span (log lines and outbound calls inside it carry its trace). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Ends a span with an error status naming the error's kind and message. */
export function endSpanWithError(span: Span, err: unknown): void {
  const kind = (err as { kind?: unknown } | null)?.kind;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof kind === 'string') span.setAttribute('hookyard.error.kind', kind);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/**
 * `fn` inside a child span of the active context, ended when it settles (an
 * error sets the span's status). When tracing is off it is just `fn()`.
 */
export function traced<T>(name: string, fn: (span: Span | undefined) => Promise<T>, options?: SpanOptions): Promise<T> {
  if (!enabled) return fn(undefined);
  const span = startSpan(name, options);
  return withSpan(span, () => fn(span)).then(
    (v) => {
      span.end();
      return v;
    },
    (err: unknown) => {
      endSpanWithError(span, err);
      throw err;
    },
  );
}

/** The active span's `traceparent`, when tracing is on and a span is active; else undefined. */
export function activeTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getSpan(context.active());
  return span && span.spanContext().traceId !== INVALID_TRACE ? traceparentOf(span) : undefined;
}

/**
 * Sets `traceparent` (and `tracestate`) of the active span on an outbound
 * call's headers: a `Headers`, a plain object, or anything with `set`. A
 * no-op when tracing is off or no span is active. Set after the caller's own
 * headers, so the tool-call span is always the parent the callee sees.
 */
export function injectTrace(carrier: Headers | Record<string, string> | { set(key: string, value: string): unknown }): void {
  if (!enabled) return;
  const setter =
    typeof (carrier as { set?: unknown }).set === 'function'
      ? { set: (c: typeof carrier, k: string, v: string) => void (c as { set(key: string, value: string): unknown }).set(k, v) }
      : { set: (c: typeof carrier, k: string, v: string) => void ((c as Record<string, string>)[k] = v) };
  propagation.inject(context.active(), carrier, setter);
}

/** The fields a log line gets from the active span (pino mixin): `trace_id`, `span_id`; none outside a span. */
export function traceLogFields(): Record<string, string> {
  if (!enabled) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const sc = span.spanContext();
  if (sc.traceId === INVALID_TRACE) return {};
  return { trace_id: sc.traceId, span_id: sc.spanId };
}
