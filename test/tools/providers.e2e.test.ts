/**
 * Discovered tools driven by real hook runs: memory stores, memory bus, the
 * executor and the composed tool repo (createToolRepo). One hook calls an
 * operation of an OpenAPI service (a node:http mock on 127.0.0.1), one calls
 * a tool of an MCP server spawned over stdio (the SDK-built fixture). Both
 * registrations go through the write validation, both hooks through the
 * management API's hook validation.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { startMockServer, text, type MockServer } from '../support/http-recorder';
import { join } from 'node:path';
import { createMetrics, createSecretResolver, loadSettings, silentLogger, type Run } from '@hookyard/core';
import { createMemoryBus, type RunBus } from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createToolRepo, validateToolRecord, type ClosableToolRepo } from '@hookyard/tools';
import { LOOPBACK_NETS } from '../support/services';
import { startExecutor, type ExecutorHandle } from '../../services/executor/src/start';
import { validateHook } from '../../services/ingress/src/hooks/validate-hook';
import { SchemaChecker } from '../../services/ingress/src/hooks/schema-checker';

const FINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);
const MCP_FIXTURE = join(__dirname, '..', '..', 'packages', 'tools', 'test', 'fixtures', 'mcp-server.js');

const DOC = {
  openapi: '3.0.3',
  info: { title: 'orders', version: '1' },
  paths: {
    '/orders/{orderId}/refunds': {
      post: {
        operationId: 'refundOrder',
        parameters: [
          { name: 'orderId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' }, reason: { type: 'string' } } } },
          },
        },
        responses: { '201': { description: 'refunded' } },
      },
    },
  },
};

interface Seen {
  method: string;
  url: string;
  body: string;
  headers: IncomingHttpHeaders;
}

let server: MockServer;
let base = '';
const seen: Seen[] = [];
let stores: Stores;
let bus: RunBus;
let tools: ClosableToolRepo;
let executor: ExecutorHandle;
let jq: Awaited<ReturnType<typeof createJqEngine>>;

beforeAll(async () => {
  server = await startMockServer((req) => {
    if (req.url === '/svc/openapi.json') return { body: JSON.stringify(DOC) };
    const body = text(req);
    seen.push({ method: req.method, url: req.url, body, headers: req.headers });
    return { status: 201, body: JSON.stringify({ refunded: JSON.parse(body).amount, order: req.url.split('/')[3] }) };
  });
  base = server.url;

  const settings = loadSettings(
    {},
    { outboundAllowNets: LOOPBACK_NETS, maxWorkers: 2, retryBaseMs: 10, retryCapMs: 50, toolTimeoutMs: 10_000, mcpStdioAllow: [process.execPath] },
  );
  const logger = silentLogger();
  stores = createMemoryStores();
  bus = createMemoryBus();
  jq = await createJqEngine();
  // The records reference their credentials; the executor resolves them per call from its environment.
  const secrets = createSecretResolver({ env: { HOOKS_SECRET_ORDERS_API_KEY: 'k-orders', HOOKS_SECRET_FIXTURE_API_KEY: 'k-secret' } });
  tools = createToolRepo({ settings, toolStore: stores.tools, logger, secrets });
  executor = await startExecutor({ settings, stores, bus, jq, tools, metrics: createMetrics({ defaultMetrics: false }), logger });
});

afterAll(async () => {
  await executor.stop(1000);
  await tools.close();
  await bus.close();
  await jq.close();
  await server.close();
});

async function registerTool(input: Record<string, unknown>): Promise<void> {
  const v = validateToolRecord(input, new Date(), { mcpStdioAllow: [process.execPath] });
  if (!v.ok) throw new Error(v.errors.join('; '));
  await stores.tools.putTool(v.record);
}

/** Registers the hook through the API's validation; sends one event on its topic; waits for the run to end. */
async function runHook(hookInput: Record<string, unknown>, payload: Record<string, unknown>): Promise<Run> {
  const checked = await validateHook(hookInput, {
    tools,
    jq,
    schemas: new SchemaChecker(),
    getTemplate: async () => null,
    toolsAllow: ['*'],
    now: Date.now(),
  });
  if (!checked.ok) throw new Error(checked.errors.join('; '));
  await stores.hooks.putHook(checked.hook);
  const kept = await stores.runs.keepEvent({ topic: checked.hook.topic, payload, now: Date.now(), dispatchGraceMs: 60_000 });
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

describe('hook runs call discovered tools', () => {
  it('an OpenAPI operation: arguments from the event land in path and body, the injected credential in its header', async () => {
    await registerTool({ name: 'orders', kind: 'openapi', endpoint: `${base}/svc`, injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_ORDERS_API_KEY' } } });
    expect(await tools.schema('orders__refund_order')).toEqual({
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' }, reason: { type: 'string' } },
      required: ['orderId', 'amount'],
    });
    const run = await runHook(
      {
        name: 'refund',
        topic: 'refunds',
        tool: 'orders__refund_order',
        tool_kwargs: { reason: 'late' },
        start_expr: { content: '{orderId: .order, amount: .amount}' },
      },
      { order: 'o/42', amount: 12.5 },
    );
    expect(run.status).toBe('succeeded');
    expect(run.result).toEqual({ refunded: 12.5, order: 'o%2F42' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/svc/orders/o%2F42/refunds' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ reason: 'late', amount: 12.5 });
    expect(seen[0]!.headers['x-api-key']).toBe('k-orders');
    expect(seen[0]!.headers['idempotency-key']).toBe(run.id);
  });

  it('an MCP tool over stdio: the injected argument applied, the text content is the result', async () => {
    await registerTool({
      name: 'fixture',
      kind: 'mcp',
      transport: 'stdio',
      command: process.execPath,
      args: [MCP_FIXTURE],
      injected: { api_key: { secret: 'env:HOOKS_SECRET_FIXTURE_API_KEY' } },
    });
    const run = await runHook({ name: 'greeter', topic: 'greetings', tool: 'fixture__greet', start_expr: { content: '{name: .who}' } }, { who: 'ada' });
    expect(run.status).toBe('succeeded');
    expect(run.result).toBe('hello ada');
  });

  it('an MCP tool that reports an error fails the run with its content quoted', async () => {
    const run = await runHook({ name: 'failer', topic: 'failures', tool: 'fixture__fail' }, {});
    expect(run.status).toBe('failed');
    expect(run.error?.kind).toBe('bad_input');
    expect(run.error?.message).toContain('the fixture failed on purpose');
  });
});
