/**
 * Every provider passes the active span's W3C trace context on to the
 * service it calls (tracing on), and adds nothing (tracing off): HTTP
 * services, OpenAPI operations and the webhook tool as a `traceparent`
 * header, gRPC as metadata, MCP as `_meta` on tools/call. Real servers on
 * 127.0.0.1; the SDK with an in-memory exporter in this process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecretResolver, silentLogger, startSpan, traceparentOf, withSpan, type Span } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { webhookTool } from '../src/local/webhook';
import { McpProvider } from '../src/mcp/mcp-provider';
import { OpenApiProvider } from '../src/openapi/openapi-provider';
import { createOutboundGuard } from '../src/outbound';
import { ProviderRepo } from '../src/provider/provider-repo';
import { RemoteRepo } from '../src/remote/remote-repo';
import { startInMemoryTracing } from '../../../test/support/tracing';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';
import { memoryToolStore } from './support/tool-store';
import { grpcRecord, grpcRepo } from './grpc/records';
import { startCatalogServer, type TestServer } from './grpc/server';

const DOC = {
  openapi: '3.0.3',
  info: { title: 'svc', version: '1' },
  paths: { '/ping': { post: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
};

let mock: MockServer;
let grpcServer: TestServer;
let grpc: ProviderRepo;
let mcpHttp: Server;
/** The `_meta` of every tools/call the MCP server got. */
const mcpMeta: unknown[] = [];
const guard = createOutboundGuard({ allowNets: ['127.0.0.0/8', '::1'] });
const secrets = createSecretResolver({ env: {} });
let remote: RemoteRepo;
let openapi: ProviderRepo;
let mcp: ProviderRepo;

beforeAll(async () => {
  mock = await startMockServer();
  mock.respond = (req) => (req.url === '/api/openapi.json' ? { status: 200, body: JSON.stringify(DOC) } : { status: 200, body: '{"ok":true}' });
  grpcServer = await startCatalogServer();
  grpc = grpcRepo([grpcRecord('shop', grpcServer.endpoint)]);

  mcpHttp = createServer((req, res) => {
    void (async () => {
      const server = new McpServer({ name: 'meta', version: '1.0.0' });
      server.registerTool('meta', { description: 'Notes the request _meta', inputSchema: {} }, async (_args, extra) => {
        mcpMeta.push(extra._meta ?? null);
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => mcpHttp.listen(0, '127.0.0.1', resolve));

  const stores = createMemoryStores();
  await stores.tools.putTool({
    name: 'svc',
    kind: 'http',
    endpoint: `${mock.url}/tools/svc`,
    method: 'POST',
    timeout_ms: 5000,
    headers: {},
    body_properties: {},
    protocol: 'langserve-direct',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });
  remote = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger(), fetch: guard.fetch });
  const o = memoryToolStore();
  await o.register({ name: 'api', kind: 'openapi', endpoint: `${mock.url}/api` });
  openapi = new ProviderRepo({
    toolStore: o.store,
    logger: silentLogger(),
    providers: [new OpenApiProvider({ logger: silentLogger(), fetch: guard.fetch, secrets })],
    secrets,
  });
  const m = memoryToolStore();
  await m.register({ name: 'fx', kind: 'mcp', transport: 'streamable-http', endpoint: `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}/mcp` });
  mcp = new ProviderRepo({
    toolStore: m.store,
    logger: silentLogger(),
    providers: [new McpProvider({ logger: silentLogger(), stdioAllow: [], secrets, fetch: guard.fetch })],
    secrets,
  });
});

afterAll(async () => {
  await Promise.all([grpc.close(), mcp.close(), openapi.close()]);
  await grpcServer.close();
  mcpHttp.closeAllConnections();
  await new Promise<void>((r) => mcpHttp.close(() => r()));
  await mock.close();
  await guard.close();
});

/** One call through every provider; returns the traceparent each service saw (undefined: none). */
async function callEach(): Promise<Record<string, string | undefined>> {
  mock.seen.length = 0;
  mcpMeta.length = 0;
  const ctx = testContext();
  await remote.exec('svc', { a: 1 }, ctx);
  await openapi.exec('api__ping', {}, ctx);
  await webhookTool({ allowHosts: [], timeoutMs: 5000, guard }).run({ url: `${mock.url}/hook`, body: {} }, ctx);
  await grpc.exec('shop__create_item', { item: { name: 'lamp' } }, ctx);
  await mcp.exec('fx__meta', {}, ctx);
  const header = (url: string) => {
    const v = mock.seen.find((s) => s.url === url)?.headers.traceparent;
    return typeof v === 'string' ? v : undefined;
  };
  return {
    http: header('/tools/svc'),
    openapi: header('/api/ping'),
    webhook: header('/hook'),
    grpc: (grpcServer.lastMetadata?.get('traceparent')[0] as string | undefined) ?? undefined,
    mcp: (mcpMeta[0] as { traceparent?: string } | null)?.traceparent,
  };
}

describe('trace context on outbound tool calls', () => {
  it('tracing off: no provider sends a traceparent', async () => {
    expect(await callEach()).toEqual({ http: undefined, openapi: undefined, webhook: undefined, grpc: undefined, mcp: undefined });
    // The services were reached: the absence is not a call that never happened.
    expect(
      mock.seen
        .map((s) => s.url)
        .filter((u) => u !== '/api/openapi.json')
        .sort(),
    ).toEqual(['/api/ping', '/hook', '/tools/svc']);
    expect(grpcServer.lastMetadata).toBeDefined();
    expect(mcpMeta).toHaveLength(1);
  });

  it("tracing on: every provider sends the active span's traceparent (header, gRPC metadata, MCP _meta)", async () => {
    const sdk = startInMemoryTracing();
    try {
      const span: Span = startSpan('hookyard.tool_call');
      const want = traceparentOf(span);
      const seen = await withSpan(span, callEach);
      span.end();
      expect(seen).toEqual({ http: want, openapi: want, webhook: want, grpc: want, mcp: want });
    } finally {
      await sdk.stop();
    }
  });
});
