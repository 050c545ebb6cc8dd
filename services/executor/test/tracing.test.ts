import { activeTraceparent, parseTraceparent, type ApprovalRule } from '@hookyard/core';
import { newTraceparent, parentOf, startInMemoryTracing } from '../../../test/support/tracing';
import { harness, hook, tableJq, testTool } from './fixtures';
import { SPAN } from '../src/tracing';

/**
 * The executor's spans with the SDK registered in this process: every
 * attempt of a run joins the run's trace (a parked run resumed later too),
 * the tool runs inside its tool-call span, and the attempt's log lines name
 * the trace.
 */
describe('executor: tracing', () => {
  let tracing: ReturnType<typeof startInMemoryTracing>;
  beforeEach(() => {
    tracing = startInMemoryTracing();
  });
  afterEach(async () => {
    await tracing.stop();
  });

  const byName = (traceId: string) => {
    const spans = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
    return (name: string) => spans.filter((s) => s.name === name);
  };

  function setup(rules: ApprovalRule[] = []) {
    // The tool notes the traceparent it would send on (what an HTTP, gRPC or MCP provider injects).
    const seen: (string | undefined)[] = [];
    const echo = testTool('echo', async ({ args, ctx }) => {
      seen.push(activeTraceparent());
      ctx.logger.info({ run: ctx.runId }, 'inside the tool');
      return args;
    });
    const h = harness({ jq: tableJq({ '.go': (p) => [(p as { go: boolean }).go] }), tools: [echo] });
    return { h, seen, rules };
  }

  it("continues the run's trace: attempt under the door's publish span, claim, condition, tool call and outcome under it", async () => {
    const { h, seen } = setup();
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 't', tool: 'echo', condition: { content: '.go' }, tool_kwargs: { x: 1 } }));
    const door = newTraceparent();
    const [id] = (
      await h.stores.runs.keepEvent({ topic: 't', payload: { go: true }, now: h.clock.now(), dispatchGraceMs: 0, traceparent: door.traceparent })
    ).map((k) => k.id);
    // The message's traceparent: the door's publish span, a child in the same trace.
    const publishSpan = '1111111111111111';
    await h.executor.handle(id!, `00-${door.traceId}-${publishSpan}-01`);
    expect((await h.stores.runs.get(id!))!).toMatchObject({ status: 'succeeded', traceparent: door.traceparent });

    const named = byName(door.traceId);
    const [attempt] = named(SPAN.attempt);
    expect(attempt).toBeDefined();
    expect(parentOf(attempt!)).toBe(publishSpan);
    expect(attempt!.attributes).toMatchObject({ 'hookyard.run.id': id, 'hookyard.hook': 'h', 'hookyard.run.attempt': 1 });
    const attemptId = attempt!.spanContext().spanId;
    for (const name of [SPAN.claim, SPAN.condition, SPAN.toolCall, SPAN.outcome]) {
      const spans = named(name);
      expect({ name, count: spans.length }).toEqual({ name, count: 1 });
      expect({ name, parent: parentOf(spans[0]!) }).toEqual({ name, parent: attemptId });
    }
    expect(named(SPAN.condition)[0]!.attributes['hookyard.condition.matched']).toBe(true);
    expect(named(SPAN.outcome)[0]!.attributes['hookyard.run.outcome']).toBe('succeeded');
    // What the tool would send on: this trace, parent the tool-call span.
    const toolSpan = named(SPAN.toolCall)[0]!;
    expect(toolSpan.attributes).toMatchObject({ 'hookyard.tool': 'echo', 'hookyard.tool.call': 1 });
    expect(parseTraceparent(seen[0])).toMatchObject({ traceId: door.traceId, spanId: toolSpan.spanContext().spanId });
    // Every line logged inside the attempt names the trace (the tool's line, under the tool-call span).
    const line = h.lines.find((l) => l.msg === 'inside the tool');
    expect(line).toMatchObject({ trace_id: door.traceId, span_id: toolSpan.spanContext().spanId });
  });

  it('a run kept without a trace starts one at the attempt; a message from another trace is a link, not the parent', async () => {
    const { h } = setup();
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 't', tool: 'echo', condition: { content: '.go' } }));
    const [plain] = await h.keep('t', { go: false });
    await h.executor.handle(plain!);
    const root = tracing.spans().find((s) => s.name === SPAN.attempt && s.attributes['hookyard.run.id'] === plain);
    expect(root).toBeDefined();
    expect(parentOf(root!)).toBeUndefined();
    expect(byName(root!.spanContext().traceId)(SPAN.condition)[0]!.attributes['hookyard.condition.matched']).toBe(false);

    const own = newTraceparent();
    const other = newTraceparent();
    const [id] = (
      await h.stores.runs.keepEvent({ topic: 't', payload: { go: true }, now: h.clock.now(), dispatchGraceMs: 0, traceparent: own.traceparent })
    ).map((k) => k.id);
    await h.executor.handle(id!, other.traceparent);
    const [attempt] = byName(own.traceId)(SPAN.attempt);
    expect(parentOf(attempt!)).toBe(own.spanId);
    expect(attempt!.links.map((l) => l.context.spanId)).toEqual([other.spanId]);
  });

  it('a parked run resumed after its approval continues the trace it parked in, with the wait recorded', async () => {
    const { h, seen } = setup();
    await h.stores.hooks.putApprovalPolicy([{ tools: ['echo'], action: 'approve', timeout_seconds: 600 }], null, h.clock.now());
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 't', tool: 'echo' }));
    const door = newTraceparent();
    const [id] = (await h.stores.runs.keepEvent({ topic: 't', payload: {}, now: h.clock.now(), dispatchGraceMs: 0, traceparent: door.traceparent })).map(
      (k) => k.id,
    );
    await h.executor.handle(id!);
    expect((await h.stores.runs.get(id!))!.status).toBe('parked');
    expect(byName(door.traceId)(SPAN.outcome)[0]!.attributes['hookyard.run.outcome']).toBe('parked');
    const [i] = (await h.stores.interactions.list({ run: id! }, 10)).interactions;
    h.clock.advance(5000);
    await h.stores.interactions.resolve(i!.id, { status: 'approved', by: 'operator:ada', via: 'api' }, h.clock.now());
    // The woken run's dispatch carries no traceparent (an operator's answer): the run's own trace is the parent.
    await h.executor.handle(id!);
    expect((await h.stores.runs.get(id!))!.status).toBe('succeeded');

    const named = byName(door.traceId);
    const attempts = named(SPAN.attempt);
    expect(attempts.map((a) => a.attributes['hookyard.run.attempt'])).toEqual([1, 2]);
    for (const a of attempts) expect(parentOf(a)).toBe(door.spanId);
    const [wait] = named(SPAN.approvalWait);
    expect(wait).toBeDefined();
    expect(parentOf(wait!)).toBe(attempts[1]!.spanContext().spanId);
    expect(wait!.attributes).toMatchObject({
      'hookyard.interaction.id': i!.id,
      'hookyard.interaction.kind': 'approval',
      'hookyard.interaction.status': 'approved',
      'hookyard.interaction.by': 'operator:ada',
    });
    // From when it parked to when it was answered (the store's clock: 5 s apart).
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(Math.round(ms(wait!.endTime) - ms(wait!.startTime))).toBe(5000);
    expect(parseTraceparent(seen[0])?.traceId).toBe(door.traceId);
  });
});
