import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AGENT_TOKEN_PREFIX, agentTokenHash, createMetrics, loadSettings, silentLogger, type ApprovalRule, type Settings } from '@hookyard/core';
import { createMemoryBus, type RunBus } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { LocalRepo, type LocalTool, type ToolRepo } from '@hookyard/tools';
import { startExecutor, type ExecutorHandle } from '@hookyard/executor';
import { createIngressApp } from '../../src/start';
import type { IssuerKeysOptions } from '../../src/oidc/issuer-keys';
import { fakeJq } from './fakes';
import { TOKENS } from './harness';

/** A local tool whose calls are counted. */
export function countedTool(name: string, run: (args: Record<string, unknown>) => unknown = (a) => a): LocalTool & { calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  return {
    calls,
    info: { name, description: `test tool ${name}`, parameters: { type: 'object', properties: { n: { type: 'integer' } } }, provider: 'local' },
    async run(args) {
      calls.push(args);
      return run(args);
    },
  };
}

export interface McpTestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** True once the server has answered the client's GET (the stream server notifications travel on). */
  notificationsOpen(): boolean;
  /** True once the server has ended that stream (the session was closed). */
  notificationsEnded(): boolean;
}

export interface McpWorld {
  url: string;
  stores: Stores;
  bus: RunBus;
  settings: Settings;
  app: ReturnType<typeof createIngressApp>;
  /** Each request the ingress answered, in order: `METHOD /path STATUS`, and the challenge a 401 carried. */
  requests: { line: string; wwwAuthenticate?: string }[];
  /** Creates an agent and answers its token. */
  agent(name: string, toolsAllow: string[]): Promise<string>;
  /** An SDK client connected to /mcp with `token` (and more headers); `protocolVersion` forces the one it asks for. */
  client(
    token: string,
    opts?: { headers?: Record<string, string>; protocolVersion?: string; name?: string; tasks?: boolean; elicitation?: boolean },
  ): Promise<McpTestClient>;
  close(): Promise<void>;
}

/**
 * The ingress on 127.0.0.1 over memory stores and a memory bus, optionally
 * with an executor in the same process taking the bus's runs (the embedded
 * `all` role, as `hookyard serve --role all` runs it).
 */
export async function startMcpWorld(
  opts: {
    tools?: LocalTool[];
    repo?: ToolRepo;
    settings?: Partial<Settings>;
    /** Settings that need the ingress's own URL (HOOKS_PUBLIC_URL, the OAuth audience), known once it listens. */
    settingsFor?: (url: string) => Partial<Settings> | Promise<Partial<Settings>>;
    /** How the agent door reaches the IdPs (the JWKS cooldown). */
    oidcKeys?: IssuerKeysOptions;
    executor?: boolean;
    rules?: ApprovalRule[];
  } = {},
): Promise<McpWorld> {
  // Listening first, so settings can name the URL.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const settings = loadSettings(
    {},
    { apiTokens: [{ role: 'admin', token: TOKENS.admin }], agentWaitMs: 2000, dispatchGraceMs: 60_000, ...opts.settings, ...(await opts.settingsFor?.(url)) },
  );
  const stores = createMemoryStores({ stateMaxBytes: settings.stateMaxBytes });
  const bus = createMemoryBus();
  const tools = opts.repo ?? new LocalRepo(opts.tools ?? []);
  const metrics = createMetrics({ defaultMetrics: false });
  const logger = silentLogger();
  const deps = { settings, stores, bus, jq: fakeJq(), tools, metrics, logger };
  if (opts.rules) await stores.hooks.putApprovalPolicy(opts.rules, null, Date.now());
  const executor: ExecutorHandle | null = opts.executor ? await startExecutor(deps) : null;
  // Every answer of a declared route is held to its declared shape: drift fails the test that made it.
  const app = createIngressApp({ ...deps, validateAnswers: true, ...(opts.oidcKeys ? { oidcKeys: opts.oidcKeys } : {}) });
  const requests: McpWorld['requests'] = [];
  server.on('request', (req, res) =>
    res.on('finish', () => {
      const challenge = res.getHeader('www-authenticate');
      requests.push({ line: `${req.method} ${req.url?.split('?')[0]} ${res.statusCode}`, ...(challenge ? { wwwAuthenticate: String(challenge) } : {}) });
    }),
  );
  server.on('request', app);
  const clients: Client[] = [];
  let n = 0;
  return {
    url,
    stores,
    bus,
    settings,
    app,
    requests,
    async agent(name, toolsAllow) {
      n += 1;
      const token = `${AGENT_TOKEN_PREFIX}${name}-${n}-0123456789abcdef0123456789`;
      await stores.agents.create({ name, description: null, tools_allow: toolsAllow, tokenHash: agentTokenHash(token) }, Date.now());
      return token;
    },
    async client(token, o = {}) {
      const version = o.protocolVersion;
      let streamOpen = false;
      let streamEnded = false;
      // The SDK's client always asks for its latest revision; an older one is asked for by rewriting initialize on the wire.
      const fetchFn: typeof fetch = async (input, init) => {
        if (version && typeof init?.body === 'string' && init.body.includes('"initialize"')) {
          const msg = JSON.parse(init.body) as { method?: string; params?: { protocolVersion?: string } };
          if (msg.method === 'initialize' && msg.params) msg.params.protocolVersion = version;
          init = { ...init, body: JSON.stringify(msg) };
        }
        const res = await fetch(input, init);
        if ((init?.method ?? 'GET') !== 'GET' || res.status !== 200 || !res.body) return res;
        streamOpen = true;
        // Passed through unchanged; its end is noted.
        const noteEnd = new TransformStream<Uint8Array, Uint8Array>({ flush: () => void (streamEnded = true) });
        return new Response(res.body.pipeThrough(noteEnd), { status: res.status, headers: res.headers });
      };
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, ...o.headers } },
        fetch: fetchFn,
      });
      // A tasks-capable client says so (it may list and cancel tasks); so does one that can ask its user (form elicitation).
      const capabilities = { ...(o.tasks ? { tasks: { list: {}, cancel: {} } } : {}), ...(o.elicitation ? { elicitation: { form: {} } } : {}) };
      const client = new Client({ name: o.name ?? 'test-agent', version: '1.0.0' }, { capabilities });
      await client.connect(transport);
      clients.push(client);
      return { client, transport, notificationsOpen: () => streamOpen, notificationsEnded: () => streamEnded };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await executor?.stop(1000);
      await bus.close();
    },
  };
}

/** Polls `check` until it answers true, or fails after `ms` (a condition, never a fixed sleep). */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
