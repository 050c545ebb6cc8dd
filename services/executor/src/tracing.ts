import {
  SPAN_ATTR,
  SpanKind,
  contextOfTraceparent,
  endSpanWithError,
  linkOf,
  parseTraceparent,
  startSpan,
  tracingOn,
  withSpan,
  type Interaction,
  type Run,
  type Span,
  type SpanOptions,
} from '@hookyard/core';

/**
 * The executor's spans, kept out of the attempt's code: each function here is
 * called only when `tracingOn()`, so with tracing off an attempt builds no
 * span and switches no context.
 *
 * An attempt's spans join the run's own trace (`run.traceparent`, the door's
 * request span), so every attempt of a run, one resumed after an approval
 * too, lands in the trace its event started. The message's traceparent (the
 * door's publish span) is the parent when it is of that trace, else a link.
 */

/** Span names (documented in docs/operations.md, Tracing). */
export const SPAN = {
  attempt: 'hookyard.attempt',
  claim: 'hookyard.claim',
  condition: 'hookyard.condition',
  approvalWait: 'hookyard.approval_wait',
  toolCall: 'hookyard.tool_call',
  outcome: 'hookyard.outcome',
} as const;

/** One attempt's span: the parent of its claim, condition, tool call and outcome spans. */
export interface AttemptTrace {
  /** Runs `fn` inside the attempt's span (its log lines carry the trace id). */
  within<T>(fn: () => T): T;
  end(err?: unknown): void;
}

/** Starts the attempt's span after its claim landed, with the claim recorded from `claimStartedAt` (epoch ms). */
export function beginAttempt(run: Run, messageTraceparent: string | undefined, claimStartedAt: number): AttemptTrace {
  const own = parseTraceparent(run.traceparent);
  const msg = parseTraceparent(messageTraceparent);
  const sameTrace = own !== null && msg !== null && own.traceId === msg.traceId;
  const parentTp = sameTrace || own === null ? (messageTraceparent ?? null) : run.traceparent;
  const links = !sameTrace && own !== null && msg !== null ? linkOf(messageTraceparent) : [];
  const attrs = { 'hookyard.run.id': run.id, 'hookyard.hook': run.hook, [SPAN_ATTR.topic]: run.topic, 'hookyard.run.attempt': run.attempts };
  const span = startSpan(SPAN.attempt, { kind: SpanKind.CONSUMER, attributes: attrs, links, startTime: claimStartedAt }, contextOfTraceparent(parentTp));
  withSpan(span, () => startSpan(SPAN.claim, { startTime: claimStartedAt, attributes: { 'hookyard.run.attempt': run.attempts } }).end());
  return {
    within: (fn) => withSpan(span, fn),
    end: (err) => (err === undefined ? span.end() : endSpanWithError(span, err)),
  };
}

/**
 * The wait of a run woken from interaction `i`, recorded after the fact
 * (from when it parked to its answer) in the attempt's trace, which is the
 * trace the run parked in.
 */
export function recordWait(i: Interaction): void {
  const end = Date.parse(i.resolution?.at ?? '') || Date.now();
  const attributes = {
    'hookyard.interaction.id': i.id,
    'hookyard.interaction.kind': i.kind,
    'hookyard.interaction.status': i.status,
    ...(i.resolution ? { 'hookyard.interaction.by': i.resolution.by, 'hookyard.interaction.via': i.resolution.via } : {}),
  };
  startSpan(SPAN.approvalWait, { startTime: Date.parse(i.created_at), attributes }).end(end);
}

/** The span of one tool call (a CLIENT span: HTTP, gRPC and MCP calls inside it carry its traceparent). */
export function startToolCall(tool: string, call: number): Span {
  const options: SpanOptions = { kind: SpanKind.CLIENT, attributes: { [SPAN_ATTR.tool]: tool, 'hookyard.tool.call': call } };
  return startSpan(SPAN.toolCall, options);
}

/** Ends a tool call's span: an error sets its status and kind. */
export function endToolCall(span: Span, err?: unknown): void {
  if (err === undefined) span.end();
  else endSpanWithError(span, err);
}

export { tracingOn, withSpan };
