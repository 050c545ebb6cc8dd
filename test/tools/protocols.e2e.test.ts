/**
 * Registered HTTP tools driven by real hook runs: memory stores, memory bus,
 * the executor and the composed tool repo, against a mock service on
 * 127.0.0.1 that records the exact bytes each protocol put on the wire.
 */
import { startMockServer, text, type MockServer } from '../support/http-recorder';
import { createMetrics, createSecretResolver, loadSettings, silentLogger, type Run } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createToolRepo, validateToolRecord } from '@hookyard/tools';
import type { RunBus } from '@hookyard/bus';
import { LOOPBACK_NETS } from '../support/services';
import { startExecutor, type ExecutorHandle } from '../../services/executor/src/start';

interface Seen {
  url: string;
  body: string;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  apiKey: string | undefined;
}

const FINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);

let server: MockServer;
let base = '';
const seen: Seen[] = [];
/** Per path: the replies to give, in order; the last one repeats. */
const replies = new Map<string, { status: number; body: string }[]>();

let stores: Stores;
let bus: RunBus;
let executor: ExecutorHandle;
let jq: Awaited<ReturnType<typeof createJqEngine>>;

beforeAll(async () => {
  server = await startMockServer((req) => {
    const url = req.url;
    if (url.endsWith('/schema')) return { status: 404 };
    seen.push({
      url,
      body: text(req),
      contentType: req.headers['content-type'],
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      apiKey: req.headers['x-api-key'] as string | undefined,
    });
    const queue = replies.get(url) ?? [{ status: 500, body: 'no reply set' }];
    return queue.length > 1 ? queue.shift()! : queue[0]!;
  });
  base = server.url;

  const settings = loadSettings({}, { outboundAllowNets: LOOPBACK_NETS, maxWorkers: 4, retryBaseMs: 10, retryCapMs: 50, toolTimeoutMs: 5000 });
  const logger = silentLogger();
  stores = createMemoryStores();
  bus = createMemoryBus();
  jq = await createJqEngine();
  executor = await startExecutor({
    settings,
    stores,
    bus,
    jq,
    // The records reference their credential; the executor resolves it per call from its environment.
    tools: createToolRepo({ settings, toolStore: stores.tools, logger, secrets: createSecretResolver({ env: { HOOKS_SECRET_P_TOOLS_API_KEY: 'k-1' } }) }),
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
  });
});

afterAll(async () => {
  await executor.stop(1000);
  await bus.close();
  await jq.close();
  await server.close();
});

/** Registers a tool (through the write validation) and a hook on its own topic; sends one event; waits for the run to end. */
async function runThrough(name: string, registration: Record<string, unknown>, kwargs: Record<string, unknown>): Promise<Run> {
  const v = validateToolRecord(
    { name, endpoint: `${base}/svc/${name}`, headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_P_TOOLS_API_KEY' } }, ...registration },
    new Date(),
  );
  if (!v.ok) throw new Error(v.errors.join('; '));
  await stores.tools.putTool(v.record);
  const now = new Date().toISOString();
  await stores.hooks.putHook({ name: `hook-${name}`, topic: `topic-${name}`, tool: name, tool_kwargs: kwargs, created_at: now, updated_at: now });
  const kept = await stores.runs.keepEvent({ topic: `topic-${name}`, payload: { n: 1 }, now: Date.now(), dispatchGraceMs: 60_000 });
  expect(kept).toHaveLength(1);
  const id = kept[0]!.id;
  await bus.publish([id]);
  // Bounded wait for the run to end (not a speed assertion: the bound only stops a hung test).
  for (let i = 0; i < 500; i++) {
    const run = await stores.runs.get(id);
    if (run && FINAL.has(run.status)) return run;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run ${id} did not end: ${JSON.stringify(await stores.runs.get(id))}`);
}

const callsTo = (name: string) => seen.filter((s) => s.url === `/svc/${name}`);

describe('a hook run calls a registered HTTP tool on each protocol', () => {
  const KWARGS = { q: 'weather', opts: { units: 'metric', days: 2 } };
  const SORTED = '{"a":1,"opts":{"days":2,"units":"metric"},"q":"weather"}';
  const OBJECT = '{"a":1,"q":"weather","opts":{"units":"metric","days":2}}';

  it.each([
    ['p-openai', 'openai', `{"name":"p-openai","arguments":${JSON.stringify(SORTED)}}`, '{"temp":21}', { temp: 21 }],
    ['p-object', 'openai-object', `{"name":"p-object","arguments":${OBJECT}}`, '{"temp":22}', { temp: 22 }],
    ['p-ollama', 'ollama', `{"name":"p-ollama","arguments":${OBJECT}}`, '{"message":{"role":"assistant","content":"sunny"}}', 'sunny'],
    ['p-lsopenai', 'langserve-openai', `{"name":"p-lsopenai","arguments":${JSON.stringify(SORTED)}}`, '{"output":{"temp":23}}', { temp: 23 }],
    ['p-langserve', 'langserve', OBJECT, '{"temp":24}', { temp: 24 }],
  ])('%s (%s): exact bytes on the wire, the unwrapped reply is the run result', async (name, protocol, wire, reply, result) => {
    replies.set(`/svc/${name}`, [{ status: 200, body: reply }]);
    const run = await runThrough(name, { protocol, body_properties: { a: 1, q: 'stored' } }, KWARGS);
    expect(run.status).toBe('succeeded');
    expect(run.result).toEqual(result);
    const calls = callsTo(name);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual({ url: `/svc/${name}`, body: wire, contentType: 'application/json', idempotencyKey: run.id, apiKey: 'k-1' });
  });

  it('a header reference that is not set fails the run internal, quoting the reference; nothing is sent', async () => {
    const run = await runThrough('p-unset', { protocol: 'openai', headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_P_TOOLS_UNSET' } } }, {});
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ kind: 'internal', message: "tool 'p-unset': headers.X-Api-Key: secret reference env:HOOKS_SECRET_P_TOOLS_UNSET is not set" });
    expect(callsTo('p-unset')).toHaveLength(0);
  });

  it('a reply missing the unwrapped field fails the run with the body quoted', async () => {
    replies.set('/svc/p-missing', [{ status: 200, body: '{"message":{"role":"assistant"}}' }]);
    const run = await runThrough('p-missing', { protocol: 'ollama' }, {});
    expect(run.status).toBe('failed');
    expect(run.error?.kind).toBe('bad_input');
    expect(run.error?.message).toContain(JSON.stringify('{"message":{"role":"assistant"}}'));
  });
});

describe("retry after the tool started follows the tool's own policy", () => {
  const FLAKY = [
    { status: 503, body: '{"error":"busy"}' },
    { status: 503, body: '{"error":"busy"}' },
    { status: 200, body: '{"done":true}' },
  ];

  it('503, 503, 200 with a retry policy: succeeded after three calls', async () => {
    replies.set(
      '/svc/flaky-retry',
      FLAKY.map((r) => ({ ...r })),
    );
    const run = await runThrough('flaky-retry', { protocol: 'openai-object', retry: { max_attempts: 3, base_ms: 5, cap_ms: 20, kinds: ['unavailable'] } }, {});
    expect(run.status).toBe('succeeded');
    expect(run.result).toEqual({ done: true });
    const calls = callsTo('flaky-retry');
    expect(calls).toHaveLength(3);
    // Every call of the run carries the same idempotency key.
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([run.id]));
  });

  it('503 with no policy: failed after one call, the status and body in the error', async () => {
    replies.set(
      '/svc/flaky-none',
      FLAKY.map((r) => ({ ...r })),
    );
    const run = await runThrough('flaky-none', { protocol: 'openai-object' }, {});
    expect(run.status).toBe('failed');
    expect(run.error?.kind).toBe('unavailable');
    expect(run.error?.message).toContain('HTTP 503');
    expect(run.error?.message).toContain(JSON.stringify('{"error":"busy"}'));
    expect(callsTo('flaky-none')).toHaveLength(1);
  });
});
