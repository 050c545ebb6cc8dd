import { context, trace } from '@opentelemetry/api';
import { newTraceparent, parentOf, startInMemoryTracing } from '../../../test/support/tracing';
import { createLogger } from './logger';
import {
  activeTraceparent,
  contextOfHeaders,
  contextOfTraceparent,
  injectTrace,
  parseTraceparent,
  startSpan,
  traceLogFields,
  traced,
  traceparentOf,
  tracingOn,
  withSpan,
} from './tracing';

function capture(traceIds?: boolean) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) }, traceIds });
  return { logger, lines };
}

describe('traceparent', () => {
  it('parses the W3C version-00 layout and refuses what is not one', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      flags: 1,
    });
    for (const bad of [
      undefined,
      '',
      'garbage',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // all-zero trace id
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // all-zero span id
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', // forbidden version
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', // upper case
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', // short trace id
    ]) {
      expect({ bad, parsed: parseTraceparent(bad) }).toEqual({ bad, parsed: null });
    }
  });
});

describe('tracing off (the default)', () => {
  it('builds no span: traced() runs the function bare, nothing is injected, log lines carry no trace id', async () => {
    expect(tracingOn()).toBe(false);
    // Even with a provider registered, the branches stay off until tracing is turned on.
    const sdk = startInMemoryTracing();
    const { setTracingOn } = await import('./tracing');
    setTracingOn(false);
    try {
      const { logger, lines } = capture();
      let got: unknown = 'unset';
      await traced('x', async (span) => {
        got = span;
        logger.info('inside');
        expect(activeTraceparent()).toBeUndefined();
      });
      expect(got).toBeUndefined();
      const headers = new Headers();
      injectTrace(headers);
      expect([...headers.keys()]).toEqual([]);
      expect(traceLogFields()).toEqual({});
      expect(lines[0]).not.toHaveProperty('trace_id');
      expect(sdk.spans()).toEqual([]);
    } finally {
      await sdk.stop();
    }
  });
});

describe('tracing on', () => {
  let sdk: ReturnType<typeof startInMemoryTracing>;
  beforeEach(() => {
    sdk = startInMemoryTracing();
  });
  afterEach(async () => {
    await sdk.stop();
  });

  it("continues a request's traceparent (through the W3C propagator), or starts a trace without one", () => {
    const caller = newTraceparent();
    const continued = startSpan('door', {}, contextOfHeaders({ traceparent: caller.traceparent, 'content-type': 'application/json' }));
    continued.end();
    expect(continued.spanContext().traceId).toBe(caller.traceId);
    expect(parentOf(sdk.spans()[0]!)).toBe(caller.spanId);

    for (const headers of [{}, { traceparent: 'not-one' }]) {
      const started = startSpan('door', {}, contextOfHeaders(headers));
      started.end();
      expect(started.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(started.spanContext().traceId).not.toBe(caller.traceId);
      expect(parentOf(sdk.spans().at(-1)!)).toBeUndefined();
    }
    // A kept traceparent is a remote parent as well (the executor's side).
    const resumed = startSpan('attempt', {}, contextOfTraceparent(caller.traceparent));
    expect(resumed.spanContext().traceId).toBe(caller.traceId);
    expect(traceparentOf(resumed)).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    resumed.end();
  });

  it('puts trace_id and span_id on every log line inside a span, and none outside', async () => {
    const { logger, lines } = capture();
    logger.info('before');
    const span = startSpan('attempt');
    await withSpan(span, async () => {
      logger.info('inside');
      await new Promise((r) => setImmediate(r));
      logger.child({ run: 'r1' }).warn('after an await, from a child logger');
    });
    span.end();
    logger.info('after');
    const sc = span.spanContext();
    expect(lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ['before', undefined, undefined],
      ['inside', sc.traceId, sc.spanId],
      ['after an await, from a child logger', sc.traceId, sc.spanId],
      ['after', undefined, undefined],
    ]);
  });

  it('a logger made with traceIds false adds nothing even inside a span', () => {
    const { logger, lines } = capture(false);
    withSpan(startSpan('x'), () => logger.info('inside'));
    expect(lines[0]).not.toHaveProperty('trace_id');
  });

  it('traced() makes a child of the active span, ends it, and marks an error with its kind', async () => {
    const parent = startSpan('parent');
    await withSpan(parent, () => traced('child', async () => 1));
    await expect(
      withSpan(parent, () => traced('failing', async () => Promise.reject(Object.assign(new Error('nope'), { kind: 'unavailable' })))),
    ).rejects.toThrow('nope');
    parent.end();
    const [child, failing] = sdk.spans();
    expect(child!.name).toBe('child');
    expect(parentOf(child!)).toBe(parent.spanContext().spanId);
    expect(failing!.status).toEqual({ code: 2, message: 'nope' });
    expect(failing!.attributes['hookyard.error.kind']).toBe('unavailable');
  });

  it("injects the active span's traceparent into Headers, gRPC-like metadata and plain objects, over what the caller set", () => {
    const span = startSpan('tool call');
    const want = traceparentOf(span);
    withSpan(span, () => {
      const headers = new Headers({ traceparent: '00-11111111111111111111111111111111-1111111111111111-01' });
      injectTrace(headers);
      expect(headers.get('traceparent')).toBe(want);
      const md = new Map<string, string>();
      injectTrace(md);
      expect(md.get('traceparent')).toBe(want);
      const meta: Record<string, string> = {};
      injectTrace(meta);
      expect(meta).toEqual({ traceparent: want });
      expect(activeTraceparent()).toBe(want);
    });
    // Outside any span: nothing to send.
    const outside: Record<string, string> = {};
    context.with(trace.deleteSpan(context.active()), () => injectTrace(outside));
    expect(outside).toEqual({});
    span.end();
  });
});
