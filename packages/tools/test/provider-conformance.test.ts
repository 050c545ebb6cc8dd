/**
 * One conformance suite for the tool providers behind ProviderRepo (OpenAPI,
 * MCP, gRPC), each against a real server: a node:http server serving an
 * OpenAPI 3 document, the SDK-built MCP fixture spawned over stdio, and a
 * grpc-js server with server reflection. The same cases run for every kind:
 * discovery with schemas, the shared naming, the `operations` filter,
 * injected values (hidden from the schema, reaching the server), a call's
 * answer and what the server received, a server-side error's kind, an
 * unreachable service, the discovery cache against an injected clock, and
 * what close() releases.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookyardError, NAME_PATTERN, TOOL_NAME_MAX_LENGTH, silentLogger, type ErrorKind, type RemoteToolRecord } from '@hookyard/core';
import { status } from '@grpc/grpc-js';
import { createGrpcProvider } from '../src/grpc';
import { McpProvider } from '../src/mcp/mcp-provider';
import { OpenApiProvider } from '../src/openapi/openapi-provider';
import { discoveredToolName } from '../src/provider/naming';
import { ProviderRepo } from '../src/provider/provider-repo';
import type { ToolProvider } from '../src/provider/types';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';
import { memoryToolStore } from './support/tool-store';
import { LOOPBACK_GUARD } from './grpc/records';
import { deadEndpoint, startCatalogServer, startRelay, type Relay, type TestServer } from './grpc/server';

/** The registration every case makes: its tools are `cf__<operation>`. */
const NAME = 'cf';
/** The discovery TTL every provider is built with; the clock is the test's. */
const TTL_MS = 1_000;

/** One provider kind and the real server it is tested against. */
interface Subject {
  kind: RemoteToolRecord['kind'];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The registration input (validated as the API does) for the running server. */
  registration(extra?: Record<string, unknown>): Record<string, unknown>;
  /** A registration of this kind whose service nothing listens on. */
  unreachable(): Promise<Record<string, unknown>>;
  /** The provider under test, with discovery TTL_MS and the clock `now`. */
  provider(now: () => number): ToolProvider;
  /** Every tool name the server's tools take. */
  names: string[];
  /** Times the server was asked to describe itself (document fetch, tools/list, reflection stream). */
  discoveries(): number;
  /** A tool that answers what it was sent; `inject` is one of its top-level arguments. */
  echo: {
    key: string;
    name: string;
    /** The model's arguments carrying `payload`, the injected field set to `inject.forged`. */
    args(payload: string): Record<string, unknown>;
    inject: { field: string; value: unknown; forged: unknown };
    /** What the server received in the last echo call. */
    received(): { payload: unknown; injected: unknown };
    /** The payload as the server's answer carries it. */
    answered(out: unknown): unknown;
  };
  /** A call the server answers with an error, and the kind it maps to. */
  failure: { name: string; args: Record<string, unknown>; kind: ErrorKind };
  /**
   * After `repo.close()`, or after the registration was removed and a lookup
   * followed: checks (waiting where it takes time) that what the provider held
   * for it is released. `restore` puts the removed record back as it was.
   */
  released(repo: ProviderRepo, after: 'close' | 'removal', restore: () => Promise<void>): Promise<void>;
}

/** Waits for a condition (checked every 10 ms), failing with `what` if it never holds. */
async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function rejection(p: Promise<unknown>): Promise<HookyardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof HookyardError) return err;
  throw new Error(`expected a HookyardError, got ${String(err)}`);
}

async function deadHttpPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function openApiSubject(): Subject {
  let mock: MockServer;
  const document = {
    openapi: '3.0.3',
    info: { title: 'conformance', version: '1' },
    paths: {
      '/items': {
        post: {
          operationId: 'createItem',
          parameters: [{ name: 'tenant', in: 'query', schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } } },
          },
          responses: { '201': { description: 'made' } },
        },
      },
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'the item' } },
        },
      },
    },
  };
  const echoes = () => mock.seen.filter((s) => s.method === 'POST' && s.url.startsWith('/api/items'));
  let dead = 0;
  return {
    kind: 'openapi',
    async start() {
      mock = await startMockServer();
      dead = await deadHttpPort();
      mock.respond = (req) => {
        if (req.url === '/api/openapi.json') return { body: JSON.stringify(document) };
        if (req.method === 'POST' && req.url.startsWith('/api/items')) {
          const body = JSON.parse(req.body.toString('utf8')) as { text: string };
          return { status: 201, body: JSON.stringify({ id: `item-${body.text}`, text: body.text }) };
        }
        return { status: 404, body: '{"error":"no such item"}' };
      };
    },
    stop: () => mock.close(),
    registration: (extra = {}) => ({ name: NAME, kind: 'openapi', endpoint: `${mock.url}/api`, ...extra }),
    unreachable: async () => ({ name: NAME, kind: 'openapi', endpoint: `http://127.0.0.1:${dead}/api` }),
    provider: (now) => new OpenApiProvider({ logger: silentLogger(), documentTtlMs: TTL_MS, now }),
    names: ['cf__create_item', 'cf__get_item'],
    discoveries: () => mock.seen.filter((s) => s.url === '/api/openapi.json').length,
    echo: {
      key: 'createItem',
      name: 'cf__create_item',
      args: (payload) => ({ text: payload, tenant: 'caller' }),
      inject: { field: 'tenant', value: 'acme', forged: 'caller' },
      received() {
        const last = echoes().at(-1);
        if (!last) return { payload: undefined, injected: undefined };
        const url = new URL(last.url, 'http://x');
        return { payload: (JSON.parse(last.body.toString('utf8')) as { text: string }).text, injected: url.searchParams.get('tenant') };
      },
      answered: (out) => (out as { text: string }).text,
    },
    failure: { name: 'cf__get_item', args: { id: 'missing' }, kind: 'not_found' },
    async released(repo, after, restore) {
      // What the provider holds is its document cache (connections are fetch's): a lookup fetches again, TTL or not.
      if (after === 'removal') await restore();
      const before = mock.seen.filter((s) => s.url === '/api/openapi.json').length;
      expect(await repo.names()).toEqual(['cf__create_item', 'cf__get_item']);
      expect(mock.seen.filter((s) => s.url === '/api/openapi.json').length).toBe(before + 1);
    },
  };
}

function mcpSubject(): Subject {
  const FIXTURE = join(__dirname, 'fixtures', 'mcp-server.js');
  const NODE = process.execPath;
  let dir = '';
  let logFile = '';
  let spawned = 0;
  let dead = 0;
  type Logged = { method: string; params?: { name?: string; arguments?: Record<string, unknown> } };
  /** The requests the server logged; none before the first child wrote the file. */
  const log = (): Logged[] => {
    if (!existsSync(logFile)) return [];
    return readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Logged);
  };
  const pidFiles: string[] = [];
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    kind: 'mcp',
    async start() {
      dir = mkdtempSync(join(tmpdir(), 'hookyard-conformance-'));
      logFile = join(dir, 'requests.jsonl');
      dead = await deadHttpPort();
    },
    async stop() {
      rmSync(dir, { recursive: true, force: true });
    },
    registration(extra = {}) {
      // Each registration spawns its own child; its pid file tells whether close() ended it.
      const pidFile = join(dir, `pid-${++spawned}`);
      pidFiles.push(pidFile);
      return { name: NAME, kind: 'mcp', transport: 'stdio', command: NODE, args: [FIXTURE, '--pid-file', pidFile, '--log-file', logFile], ...extra };
    },
    unreachable: async () => ({ name: NAME, kind: 'mcp', transport: 'streamable-http', endpoint: `http://127.0.0.1:${dead}/mcp` }),
    provider: (now) => new McpProvider({ logger: silentLogger(), stdioAllow: [NODE], listTtlMs: TTL_MS, now }),
    names: ['cf__add', 'cf__echo', 'cf__exit', 'cf__fail', 'cf__greet'],
    discoveries: () => log().filter((m) => m.method === 'tools/list').length,
    echo: {
      key: 'echo',
      name: 'cf__echo',
      args: (payload) => ({ text: payload, tenant: 'caller' }),
      inject: { field: 'tenant', value: 'acme', forged: 'caller' },
      received() {
        const last = log()
          .filter((m) => m.method === 'tools/call' && m.params?.name === 'echo')
          .at(-1);
        return { payload: last?.params?.arguments?.text, injected: last?.params?.arguments?.tenant };
      },
      answered: (out) => (out as { text: string }).text,
    },
    failure: { name: 'cf__fail', args: {}, kind: 'bad_input' },
    async released() {
      // Every child a registration spawned is gone.
      const pids = pidFiles.map((f) => Number(readFileSync(f, 'utf8')));
      await until('the MCP server children exit', () => pids.every((pid) => !alive(pid)));
    },
  };
}

function grpcSubject(): Subject {
  let server: TestServer;
  /** A TCP relay in front of the server, so the test sees the provider's open connections. */
  let relay: Relay;
  return {
    kind: 'grpc',
    async start() {
      server = await startCatalogServer();
      relay = await startRelay(server.port);
    },
    async stop() {
      await relay.close();
      await server.close();
    },
    registration: (extra = {}) => ({ name: NAME, kind: 'grpc', endpoint: `grpc://127.0.0.1:${relay.port}`, ...extra }),
    unreachable: async () => ({ name: NAME, kind: 'grpc', endpoint: await deadEndpoint() }),
    provider: (now) => createGrpcProvider({ logger: silentLogger(), guard: LOOPBACK_GUARD, discoveryTtlMs: TTL_MS, now }),
    names: ['cf__check', 'cf__create_item', 'cf__fail', 'cf__hang'],
    discoveries: () => server.reflectionStreams,
    echo: {
      key: 'hookyard.test.Catalog.CreateItem',
      name: 'cf__create_item',
      args: (payload) => ({ item: { name: payload }, dryRun: false }),
      inject: { field: 'dryRun', value: true, forged: false },
      received() {
        const req = server.lastRequest as { item?: { name?: string }; dry_run?: boolean } | undefined;
        return { payload: req?.item?.name, injected: req?.dry_run };
      },
      answered: (out) => (out as { item: { name: string } }).item.name,
    },
    failure: { name: 'cf__fail', args: { code: status.NOT_FOUND, message: 'no such item' }, kind: 'not_found' },
    async released(repo, after) {
      await until('the gRPC channel closes its connection', () => relay.open.size === 0);
      if (after === 'removal') return;
      // And a closed provider dials nothing again.
      await expect(rejection(repo.exec('cf__create_item', { item: {} }, testContext()))).resolves.toMatchObject({
        kind: 'internal',
        message: expect.stringContaining('closed'),
      });
      expect(relay.open.size).toBe(0);
    },
  };
}

describe.each([openApiSubject(), mcpSubject(), grpcSubject()].map((s) => [s.kind, s] as const))('the %s provider behind ProviderRepo', (_kind, subject) => {
  let now = 1_000_000;
  let repos: ProviderRepo[] = [];

  /** A repo over a fresh provider and store, the registration made through write validation. */
  async function setup(extra: Record<string, unknown> = {}, input?: Record<string, unknown>) {
    const { store, register } = memoryToolStore();
    const provider = subject.provider(() => now);
    const repo = new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [provider] });
    repos.push(repo);
    await register(input ?? subject.registration(extra));
    const record = (await store.getTool(NAME))!;
    return { repo, provider, record, store };
  }

  beforeAll(() => subject.start(), 30_000);
  afterAll(() => subject.stop());
  afterEach(async () => {
    await Promise.all(repos.map((r) => r.close()));
    repos = [];
  });

  test('discovery lists the tools, each with an object schema, as this kind', async () => {
    const { repo } = await setup();
    const tools = await repo.tools(NAME);
    expect(tools.map((t) => t.name).sort()).toEqual(subject.names);
    for (const t of tools) {
      expect(t.provider).toBe(subject.kind);
      expect(typeof t.description).toBe('string');
      expect(t.parameters).toMatchObject({ type: 'object' });
    }
    expect(Object.keys((await repo.schema(subject.echo.name))?.properties as object)).toContain(subject.echo.inject.field);
    expect(await repo.names()).toEqual(subject.names);
  });

  test('names follow the shared scheme: <registration>__<part>, valid tool names, one per discovered tool', async () => {
    const { repo, provider, record } = await setup();
    const discovered = await provider.discover(record);
    expect(discovered.map((t) => discoveredToolName(NAME, t)).sort()).toEqual(await repo.names());
    for (const name of await repo.names()) {
      expect(name.startsWith(`${NAME}__`)).toBe(true);
      expect(NAME_PATTERN.test(name) && name.length <= TOOL_NAME_MAX_LENGTH).toBe(true);
    }
    expect((await repo.tools(subject.echo.name)).map((t) => t.name)).toEqual([subject.echo.name]);
  });

  test('operations narrows the tools, by the service’s own name or by the tool-name part', async () => {
    const only = await setup({ operations: [subject.echo.key] });
    expect(await only.repo.names()).toEqual([subject.echo.name]);
    await expect(rejection(only.repo.exec(subject.failure.name, subject.failure.args, testContext()))).resolves.toMatchObject({ kind: 'not_found' });

    const part = subject.echo.name.slice(`${NAME}__`.length);
    const but = await setup({ operations: ['*', `!${part}`] });
    expect(await but.repo.names()).toEqual(subject.names.filter((n) => n !== subject.echo.name));
  });

  test('an injected value is hidden from the schema and reaches the server, over what the caller sent', async () => {
    const { field, value, forged } = subject.echo.inject;
    const { repo } = await setup({ injected: { [field]: value } });
    const schema = (await repo.schema(subject.echo.name)) as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties)).not.toContain(field);
    expect(schema.required ?? []).not.toContain(field);
    await repo.exec(subject.echo.name, subject.echo.args('lamp'), testContext());
    expect(subject.echo.received()).toEqual({ payload: 'lamp', injected: value });
    expect(value).not.toEqual(forged);
  });

  test("a call answers the server's answer; the server received the caller's arguments", async () => {
    const { repo } = await setup();
    const out = await repo.exec(subject.echo.name, subject.echo.args('desk'), testContext());
    expect(subject.echo.received()).toEqual({ payload: 'desk', injected: subject.echo.inject.forged });
    expect(subject.echo.answered(out)).toBe('desk');
  });

  test('a server-side error is an error of the kind it means', async () => {
    const { repo } = await setup();
    const err = await rejection(repo.exec(subject.failure.name, subject.failure.args, testContext()));
    expect(err.kind).toBe(subject.failure.kind);
    expect(err.message).toContain(subject.failure.name);
  });

  test('an unreachable service is unavailable on discovery; a call of its tools never left (notSent)', async () => {
    const { repo, record } = await setup({}, await subject.unreachable());
    const e = await rejection(repo.discoverRecord(record));
    expect(e.kind).toBe('unavailable');
    expect(await repo.names()).toEqual([]);
    const call = await rejection(repo.exec(subject.echo.name, subject.echo.args('x'), testContext()));
    expect([call.kind, call.notSent]).toEqual(['unavailable', true]);
  });

  test('discovery is cached within the TTL and asked again after it', async () => {
    const { repo } = await setup();
    const before = subject.discoveries();
    expect(await repo.names()).toEqual(subject.names);
    const first = subject.discoveries();
    expect(first).toBeGreaterThan(before);
    now += TTL_MS - 1;
    expect(await repo.names()).toEqual(subject.names);
    await repo.exec(subject.echo.name, subject.echo.args('cached'), testContext());
    expect(subject.discoveries()).toBe(first);
    now += 2;
    expect(await repo.names()).toEqual(subject.names);
    expect(subject.discoveries()).toBeGreaterThan(first);
  });

  test('discoverRecord (what registration asks) asks the service now, within the TTL too, and fills the cache', async () => {
    const { repo, record } = await setup();
    expect(await repo.names()).toEqual(subject.names);
    const listed = subject.discoveries();
    expect((await repo.discoverRecord(record))?.sort()).toEqual(subject.names);
    const checked = subject.discoveries();
    expect(checked).toBeGreaterThan(listed);
    expect(await repo.names()).toEqual(subject.names);
    expect(subject.discoveries()).toBe(checked);
  });

  test('close() releases what the provider held', async () => {
    const { repo } = await setup();
    await repo.exec(subject.echo.name, subject.echo.args('bye'), testContext());
    await repo.close();
    await subject.released(repo, 'close', async () => undefined);
  });

  test('a registration removed from the store is released at the next lookup', async () => {
    const { repo, record, store } = await setup();
    await repo.exec(subject.echo.name, subject.echo.args('gone'), testContext());
    await store.removeTool(NAME);
    expect(await repo.names()).toEqual([]);
    await subject.released(repo, 'removal', async () => {
      await store.putTool(record);
    });
  });
});
