'use strict';
/**
 * The agent section's direct side: the official MCP SDK serving one `echo`
 * tool over streamable HTTP, nothing else. It is set up as Hookyard's /mcp
 * door sets up the SDK (the low-level Server, one StreamableHTTPServerTransport
 * and Server per session, session ids from randomUUID, SSE answers to POST),
 * so whatever Hookyard adds on top of the SDK is what the section measures.
 * The tool answers its arguments as JSON text and as structuredContent, as a
 * Hookyard run of the `echo` tool comes back through the door.
 *
 * Env: BENCH_MCP_PORT (default 0: any free port).
 * Logs one JSON line {"msg":"mcp echo listening","url":...}.
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { requireFrom } = require('./lib/common');

const sdk = (p) => requireFrom('services/ingress', `@modelcontextprotocol/sdk/${p}`);
const { Server } = sdk('server/index.js');
const { StreamableHTTPServerTransport } = sdk('server/streamableHttp.js');
const types = sdk('types.js');

const ECHO = {
  name: 'echo',
  description: 'Returns its arguments as its result.',
  inputSchema: { type: 'object', additionalProperties: true },
};

function createServer() {
  const server = new Server({ name: 'bench-echo', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: [ECHO] }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request) => {
    if (request.params.name !== 'echo') throw Object.assign(new Error(`Unknown tool: ${request.params.name}`), { code: -32602 });
    const args = request.params.arguments ?? {};
    return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args };
  });
  return server;
}

const sessions = new Map();

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    req.on('error', (err) => reject(err instanceof Error ? err : new Error(String(err))));
  });
}

function refuse(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function handle(req, res) {
  if (!req.url.startsWith('/mcp')) return refuse(res, 404, 'Not found');
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  const sid = req.headers['mcp-session-id'];
  if (typeof sid === 'string') {
    const transport = sessions.get(sid);
    if (!transport) return refuse(res, 404, 'Session not found');
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
  if (!transport.sessionId) await server.close().catch(() => undefined);
}

const httpServer = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    if (!res.headersSent) refuse(res, 500, String(err && err.message));
    else res.end();
  });
});
httpServer.listen(Number(process.env.BENCH_MCP_PORT || 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'mcp echo listening', url: `http://127.0.0.1:${httpServer.address().port}` }) + '\n');
});
process.on('SIGTERM', () => {
  for (const t of sessions.values()) t.close().catch(() => undefined);
  httpServer.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
});
