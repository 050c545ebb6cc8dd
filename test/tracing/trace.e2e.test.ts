/**
 * One trace from the sender to the tool's own server, across processes: an
 * ingress and an executor (separate `hookyard serve` processes on real Redis
 * and JetStream) export OTLP/HTTP (JSON) to a small receiver in this test,
 * and an HTTP tool server here records the traceparent it is sent.
 */
import { randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, startRole, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { startMockServer, text, type MockServer } from '../support/http-recorder';
import { Api } from '../e2e/api';

jest.setTimeout(120_000);

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttr = { key: string; value: OtlpValue };
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttr[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttr[] }[] }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attrs = (list: OtlpAttr[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP receiver: POST /v1/traces with a JSON ExportTraceServiceRequest, as the exporter sends. */
async function startReceiver(): Promise<{ server: MockServer; url: string; spans: ReceivedSpan[]; contentTypes: string[] }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = await startMockServer((req) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') return { status: 404 };
    contentTypes.push(String(req.headers['content-type']));
    const parsed = JSON.parse(text(req)) as OtlpBody;
    for (const rs of parsed.resourceSpans ?? []) {
      const service = String(attrs(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, attributes: attrs(s.attributes) });
        }
      }
    }
    return { body: '{}' };
  });
  return { server, url: server.url, spans, contentTypes };
}

describe('tracing across processes: door -> NATS -> executor -> tool server', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('trace');
  const procs: RoleProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let tool: MockServer;
  // The traceparent of every POST the tool server got, in order.
  const toolCalls: string[] = [];
  let ingress: RoleProcess;
  let executor: RoleProcess;
  let api: Api;

  beforeAll(async () => {
    await requirePlatform();
    receiver = await startReceiver();
    let n = 0;
    tool = await startMockServer((req) => {
      if (req.method !== 'POST') return { status: 404 }; // the schema probe: "no schema"
      toolCalls.push(String(req.headers.traceparent ?? ''));
      n += 1;
      // Every first call of an event fails (503): the tool's own retry policy calls again, in a second tool-call span.
      return n % 2 === 1 ? { status: 503, contentType: 'text/plain', body: 'busy' } : { body: '{"ok":true}' };
    });
    const env = roleEnv(prefix, token, {
      HOOKS_DOOR_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Export each batch within 100 ms instead of 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    ingress = startRole('ingress', 'ingress', env);
    executor = startRole('executor', 'executor', { ...env, HOOKS_LOG_LEVEL: 'debug' });
    procs.push(ingress, executor);
    await Promise.all(procs.map((p) => p.waitListening()));
    api = new Api(ingress.url, token);
    await api.ok('POST', '/api/tools', {
      name: 'traced',
      endpoint: tool.url,
      method: 'POST',
      timeout_ms: 10_000,
      headers: {},
      body_properties: {},
      protocol: 'langserve-direct',
      retry: { max_attempts: 2, base_ms: 10, cap_ms: 10, kinds: ['unavailable'] },
    });
    await api.ok('POST', '/api/hooks', { name: 'traced-hook', topic: 'traced', tool: 'traced', condition: { content: '.go' }, start_expr: { content: '{n}' } });
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await receiver.server.close();
    await tool.close();
    await cleanupPrefix(prefix);
  });

  async function send(payload: unknown, traceparent?: string): Promise<string> {
    const res = await fetch(`${ingress.url}/universal_webhook/traced`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
      body: JSON.stringify(payload),
    });
    const answer = (await res.json()) as { run_ids: string[] };
    expect(res.status).toBe(200);
    return answer.run_ids[0]!;
  }

  const succeeded = (id: string) =>
    eventually(
      async () => {
        const run = await api.ok<{ status: string; traceparent: string | null; history: { event: string; trace_id?: string }[] }>(
          'GET',
          `/api/hook-runs/${id}`,
        );
        return run.status === 'succeeded' ? run : undefined;
      },
      30_000,
      `run ${id} to succeed`,
    );

  /** The spans of a trace once every name in `names` has arrived. */
  const traceSpans = (traceId: string, names: string[]) =>
    eventually(
      async () => {
        const spans = receiver.spans.filter((s) => s.traceId === traceId);
        return names.every((n) => spans.some((s) => s.name === n)) ? spans : undefined;
      },
      30_000,
      `spans ${names.join(', ')} of trace ${traceId}`,
    );

  it("continues the sender's traceparent: one trace has the ingress's and the executor's spans, and the tool server saw a child of the tool-call span", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const id = await send({ go: true, n: 1 }, `00-${traceId}-${callerSpan}-01`);
    const run = await succeeded(id);
    // The run keeps the door span's traceparent (same trace, the door span as parent), shown by the API.
    expect(run.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(run.history.length).toBeGreaterThan(0);
    for (const h of run.history) expect(h.trace_id).toBe(traceId);

    const names = [
      'POST /universal_webhook/{topic}',
      'hookyard.keep',
      'hookyard.publish',
      'hookyard.attempt',
      'hookyard.claim',
      'hookyard.condition',
      'hookyard.tool_call',
      'hookyard.outcome',
    ];
    const spans = await traceSpans(traceId, names);
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect({ name, count: found.length }).toEqual({ name, count: 1 });
      return found[0]!;
    };
    const door = one('POST /universal_webhook/{topic}');
    expect(door).toMatchObject({ service: 'hookyard-ingress', parentSpanId: callerSpan });
    expect(door.attributes).toMatchObject({ 'http.response.status_code': 200, 'hookyard.topic': 'traced' });
    expect(run.traceparent).toBe(`00-${traceId}-${door.spanId}-01`);
    expect(one('hookyard.keep')).toMatchObject({ service: 'hookyard-ingress', parentSpanId: door.spanId });
    const publish = one('hookyard.publish');
    expect(publish).toMatchObject({ service: 'hookyard-ingress', parentSpanId: door.spanId });
    // Over NATS: the executor's attempt is a child of the publish span (the message header).
    const attempt = one('hookyard.attempt');
    expect(attempt).toMatchObject({ service: 'hookyard-executor', parentSpanId: publish.spanId });
    expect(attempt.attributes).toMatchObject({ 'hookyard.run.id': id });
    for (const name of ['hookyard.claim', 'hookyard.condition', 'hookyard.outcome'])
      expect(one(name)).toMatchObject({ service: 'hookyard-executor', parentSpanId: attempt.spanId });
    const toolSpans = spans.filter((s) => s.name === 'hookyard.tool_call');
    expect(toolSpans.map((s) => s.attributes['hookyard.tool.call']).sort()).toEqual([1, 2]);
    for (const s of toolSpans) expect(s).toMatchObject({ service: 'hookyard-executor', parentSpanId: attempt.spanId });

    // The tool server got, on each call, a traceparent of this trace whose parent is that call's span.
    const seen = toolCalls.filter((tp) => tp.includes(traceId));
    expect(seen).toHaveLength(2);
    const byCall = new Map(toolSpans.map((s) => [s.attributes['hookyard.tool.call'], s.spanId]));
    expect(seen).toEqual([`00-${traceId}-${byCall.get(1)}-01`, `00-${traceId}-${byCall.get(2)}-01`]);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));

    // The executor's log lines about this run carry its trace id (the retry line of the tool's policy at least).
    const lines = executor.logs().filter((l) => l.run === id);
    expect(lines.map((l) => l.msg)).toContain('tool call failed; its retry policy calls again');
    for (const l of lines) expect(l.trace_id).toBe(traceId);
  });

  it('starts a trace at the door when the request carries none (or a malformed one)', async () => {
    for (const sent of [undefined, '00-not-a-traceparent-01']) {
      const id = await send({ go: true, n: 2 }, sent);
      const run = await succeeded(id);
      const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(run.traceparent ?? '');
      expect(m).not.toBeNull();
      const spans = await traceSpans(m![1]!, ['POST /universal_webhook/{topic}', 'hookyard.attempt', 'hookyard.tool_call']);
      const door = spans.find((s) => s.name === 'POST /universal_webhook/{topic}')!;
      expect(door).toMatchObject({ spanId: m![2], parentSpanId: '' });
      expect(spans.find((s) => s.name === 'hookyard.attempt')!.service).toBe('hookyard-executor');
    }
  });
});
