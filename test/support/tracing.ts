import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { setTracingOn } from '@hookyard/core';

/**
 * The OpenTelemetry SDK in this process with an in-memory exporter, for
 * in-process tracing tests: registered as the serving CLI does (ALS context,
 * W3C propagator), and taken down again by `stop()` (tracing off, globals
 * cleared) so the next test file starts untraced.
 */
export function startInMemoryTracing(): { spans(): ReadableSpan[]; stop(): Promise<void> } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const cm = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(cm);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true);
  return {
    spans: () => exporter.getFinishedSpans(),
    async stop() {
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** A fresh sampled W3C traceparent of a caller's span. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** A span's parent span id (SDK 2.x: `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
