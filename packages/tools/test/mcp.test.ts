/**
 * The MCP provider against a real MCP server built with the SDK's server
 * classes: spawned over stdio (test/fixtures/mcp-server.js), and in-process
 * over streamable HTTP and SSE on 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookyardError, createSecretResolver, silentLogger } from '@hookyard/core';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpProvider } from '../src/mcp/mcp-provider';
import { ProviderRepo } from '../src/provider/provider-repo';
import { testContext } from './support/context';
import { memoryToolStore } from './support/tool-store';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildServer } = require('./fixtures/mcp-server.js') as { buildServer(): { connect(t: unknown): Promise<void>; close(): Promise<void> } };

const FIXTURE = join(__dirname, 'fixtures', 'mcp-server.js');
const NODE = process.execPath;

async function rejection(p: Promise<unknown>): Promise<HookyardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HookyardError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The secrets the records reference; resolved by the repo at call (and connection) time. */
const secrets = createSecretResolver({ env: { HOOKS_SECRET_MCP_API_KEY: 'k-secret', HOOKS_SECRET_MCP_HEADER_KEY: 'h-1' } });
const API_KEY = { secret: 'env:HOOKS_SECRET_MCP_API_KEY' };

function repoWith(store: ReturnType<typeof memoryToolStore>['store'], stdioAllow: string[] = [NODE]) {
  const provider = new McpProvider({ logger: silentLogger(), stdioAllow, secrets });
  return new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [provider], secrets });
}

describe('MCP over stdio', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookyard-mcp-'));
  const pidFile = join(dir, 'pid');
  const { store, register } = memoryToolStore();
  const repo = repoWith(store);

  beforeAll(async () => {
    await register({ name: 'fx', kind: 'mcp', transport: 'stdio', command: NODE, args: [FIXTURE, '--pid-file', pidFile], injected: { api_key: API_KEY } });
  });
  afterAll(async () => {
    await repo.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists one tool per MCP tool, named <registration>__<tool>', async () => {
    expect(await repo.names()).toEqual(['fx__add', 'fx__exit', 'fx__fail', 'fx__greet']);
    const infos = await repo.tools('fx');
    expect(infos.map((t) => t.name).sort()).toEqual(['fx__add', 'fx__exit', 'fx__fail', 'fx__greet']);
    expect(infos.every((t) => t.provider === 'mcp')).toBe(true);
    expect((await repo.tools('fx__add')).map((t) => [t.name, t.description])).toEqual([['fx__add', 'Adds two numbers']]);
  });

  it('the injected argument is gone from the schema the model sees (properties and required)', async () => {
    const schema = (await repo.schema('fx__greet')) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['name']);
    expect(schema.required).toEqual(['name']);
    expect(await repo.schema('fx__add')).toMatchObject({ type: 'object', required: ['a', 'b'] });
  });

  it('returns the structured content of a call', async () => {
    expect(await repo.exec('fx__add', { a: 2, b: 3 }, testContext())).toEqual({ sum: 5 });
  });

  it('applies the injected argument at call time, over anything the caller sent', async () => {
    expect(await repo.exec('fx__greet', { name: 'ada' }, testContext())).toBe('hello ada');
    expect(await repo.exec('fx__greet', { name: 'bob', api_key: 'forged' }, testContext())).toBe('hello bob');
  });

  it('an isError result is a bad_input error quoting the content', async () => {
    const err = await rejection(repo.exec('fx__fail', {}, testContext()));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain('tool \'fx__fail\' (MCP tool "fail")');
    expect(err.message).toContain('"the fixture failed on purpose"');
  });

  it('arguments the server refuses are bad_input', async () => {
    const err = await rejection(repo.exec('fx__add', { a: 'two', b: 3 }, testContext()));
    expect(err.kind).toBe('bad_input');
  });

  it('a name the server does not list is not_found', async () => {
    expect((await rejection(repo.exec('fx__nope', {}, testContext()))).kind).toBe('not_found');
  });

  it('a server process that exits is spawned again on the next use', async () => {
    const first = readFileSync(pidFile, 'utf8');
    expect(await repo.exec('fx__exit', {}, testContext())).toBe('bye');
    // Bounded wait for the old process to be gone (not a speed assertion).
    for (let i = 0; i < 250 && alive(Number(first)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(Number(first))).toBe(false);
    // The next call may still meet the closed connection (unavailable) before it spawns a new one.
    let result: unknown;
    for (let i = 0; i < 100 && result === undefined; i++) {
      try {
        result = await repo.exec('fx__add', { a: 1, b: 1 }, testContext());
      } catch (err) {
        expect((err as HookyardError).kind).toBe('unavailable');
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    expect(result).toEqual({ sum: 2 });
    expect(readFileSync(pidFile, 'utf8')).not.toBe(first);
  });

  it('close() ends the spawned server process', async () => {
    await repo.exec('fx__add', { a: 1, b: 2 }, testContext());
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await repo.close();
    expect(alive(pid)).toBe(false);
  });
});

describe('MCP stdio allowlist', () => {
  it('a command outside HOOKS_MCP_STDIO_ALLOW is never spawned: unauthorized, and left out of listings', async () => {
    const { store, register } = memoryToolStore();
    const repo = repoWith(store, []);
    await register({ name: 'fx', kind: 'mcp', transport: 'stdio', command: NODE, args: [FIXTURE] });
    const err = await rejection(repo.exec('fx__add', { a: 1, b: 2 }, testContext()));
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain('HOOKS_MCP_STDIO_ALLOW');
    expect(await repo.names()).toEqual([]);
    await repo.close();
  });
});

describe('MCP over HTTP transports', () => {
  let server: Server;
  let base = '';
  const seenHeaders: IncomingHttpHeaders[] = [];
  const sse = new Map<string, SSEServerTransport>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      seenHeaders.push(req.headers);
      const url = new URL(req.url ?? '/', 'http://x');
      void (async () => {
        if (url.pathname === '/mcp') {
          // Stateless: a server and a transport per request.
          const mcp = buildServer();
          const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
          res.on('close', () => {
            void transport.close();
            void mcp.close();
          });
          await mcp.connect(transport);
          await transport.handleRequest(req, res);
        } else if (url.pathname === '/sse' && req.method === 'GET') {
          const transport = new SSEServerTransport('/messages', res);
          sse.set(transport.sessionId, transport);
          res.on('close', () => sse.delete(transport.sessionId));
          await buildServer().connect(transport);
        } else if (url.pathname === '/messages' && req.method === 'POST') {
          const transport = sse.get(url.searchParams.get('sessionId') ?? '');
          if (transport) await transport.handlePostMessage(req, res);
          else res.writeHead(404).end('no session');
        } else {
          res.writeHead(404).end();
        }
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('streamable HTTP: lists and calls, sends the stored headers, applies injected arguments, honours operations', async () => {
    const { store, register } = memoryToolStore();
    const repo = repoWith(store);
    await register({
      name: 'web',
      kind: 'mcp',
      transport: 'streamable-http',
      endpoint: `${base}/mcp`,
      headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_MCP_HEADER_KEY' } },
      injected: { api_key: API_KEY },
      operations: ['add', 'greet'],
    });
    try {
      expect(await repo.names()).toEqual(['web__add', 'web__greet']);
      expect(await repo.exec('web__add', { a: 20, b: 22 }, testContext())).toEqual({ sum: 42 });
      expect(await repo.exec('web__greet', { name: 'eve' }, testContext())).toBe('hello eve');
      expect((await rejection(repo.exec('web__fail', {}, testContext()))).kind).toBe('not_found');
      const mcpCalls = seenHeaders.filter((h) => h['mcp-protocol-version'] !== undefined || h['content-type'] === 'application/json');
      expect(mcpCalls.length).toBeGreaterThan(0);
      expect(mcpCalls.every((h) => h['x-api-key'] === 'h-1')).toBe(true);
    } finally {
      await repo.close();
    }
  });

  it("tells every call the secrets it uses: the connection's header (on every call over it) and the injected argument", async () => {
    const { store, register } = memoryToolStore();
    const repo = repoWith(store);
    await register({
      name: 'told',
      kind: 'mcp',
      transport: 'streamable-http',
      endpoint: `${base}/mcp`,
      headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_MCP_HEADER_KEY' } },
      injected: { api_key: API_KEY },
    });
    try {
      await repo.names();
      for (const tool of ['told__greet', 'told__add']) {
        const told: string[] = [];
        await repo.exec(tool, tool === 'told__add' ? { a: 1, b: 2 } : { name: 'eve' }, testContext({ onSecret: (v) => told.push(v) }));
        expect(new Set(told)).toEqual(new Set(['h-1', 'k-secret']));
      }
    } finally {
      await repo.close();
    }
  });

  it('a header reference that is not set: listing and calls fail internal quoting the reference, nothing is sent', async () => {
    const { store, register } = memoryToolStore();
    const repo = repoWith(store);
    await register({
      name: 'nokey',
      kind: 'mcp',
      transport: 'streamable-http',
      endpoint: `${base}/mcp`,
      headers: { Authorization: { secret: 'env:HOOKS_SECRET_MCP_MISSING' } },
    });
    const before = seenHeaders.length;
    try {
      const err = await rejection(repo.exec('nokey__add', { a: 1, b: 2 }, testContext()));
      expect(err.kind).toBe('internal');
      expect(err.message).toBe("MCP tool 'nokey': headers.Authorization: secret reference env:HOOKS_SECRET_MCP_MISSING is not set");
      expect(await repo.names()).toEqual([]);
      expect(seenHeaders.length).toBe(before);
    } finally {
      await repo.close();
    }
  });

  it('SSE: lists and calls', async () => {
    const { store, register } = memoryToolStore();
    const repo = repoWith(store);
    await register({ name: 'old', kind: 'mcp', transport: 'sse', endpoint: `${base}/sse`, injected: { api_key: API_KEY } });
    try {
      expect(await repo.names()).toEqual(['old__add', 'old__fail', 'old__greet']);
      expect(await repo.exec('old__greet', { name: 'sam' }, testContext())).toBe('hello sam');
    } finally {
      await repo.close();
    }
  });

  it('a server that cannot be reached is unavailable, and left out of listings', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { store, register } = memoryToolStore();
    const repo = repoWith(store);
    await register({ name: 'gone', kind: 'mcp', transport: 'streamable-http', endpoint: `http://127.0.0.1:${port}/mcp` });
    const err = await rejection(repo.exec('gone__add', {}, testContext()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain("MCP tool 'gone'");
    expect(await repo.names()).toEqual([]);
    await repo.close();
  });
});
