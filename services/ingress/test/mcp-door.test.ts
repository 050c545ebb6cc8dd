/**
 * The /mcp door driven by the MCP SDK's own client over streamable HTTP on
 * 127.0.0.1: sessions, both protocol revisions, the agent's visible
 * catalogue and its pages, and what is refused (bad Host, no or wrong token,
 * a revoked agent, another agent's session).
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LocalRepo } from '@hookyard/tools';
import { MCP_SESSIONS_PER_AGENT } from '../src/agent/mcp-door';
import { isMcpPath } from '../src/agent/mcp-mount';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const ACCEPT = 'application/json, text/event-stream';

async function post(w: McpWorld, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${w.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The `error` member of a refusal's JSON body (JSON-RPC or the API's shape). */
async function errorOf(r: Response): Promise<{ code?: number; kind?: string; message: string }> {
  return ((await r.json()) as { error: { code?: number; kind?: string; message: string } }).error;
}

describe('/mcp: sessions, revisions and refusals', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  it.each(['2025-06-18', '2025-11-25'])('initializes on protocol revision %s, answers ping, and binds a session to the agent', async (version) => {
    w = await startMcpWorld({ tools: [countedTool('deploy')] });
    const token = await w.agent('ci-bot', ['*']);
    const { client, transport } = await w.client(token, { protocolVersion: version });
    expect(transport.protocolVersion).toBe(version);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'hookyard' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
    await expect(client.ping()).resolves.toEqual({});
  });

  it('no token, a wrong one or a management API token: 401 with a Bearer challenge and a JSON body', async () => {
    w = await startMcpWorld();
    const challenge = 'Bearer realm="hookyard", error="invalid_token"';
    const none = await post(w, INIT);
    expect(none.status).toBe(401);
    // RFC 6750 §3.1: no error code when the request carried no credentials.
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="hookyard"');
    expect(await none.json()).toEqual({ error: { kind: 'unauthorized', message: expect.stringContaining('missing bearer token') } });
    const wrong = await post(w, INIT, { authorization: 'Bearer hya_not-a-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(challenge);
    const api = await post(w, INIT, { authorization: `Bearer ${TOKENS.admin}` });
    expect(api.status).toBe(401);
    expect((await errorOf(api)).message).toContain('management API token');
  });

  it('runs before express at /mcp, /mcp/ and /MCP (as the route did), its answers with the security headers; /mcpx is no door', async () => {
    w = await startMcpWorld();
    for (const path of ['/mcp', '/mcp/', '/MCP', '/mcp?x=1']) {
      const r = await fetch(`${w.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(INIT) });
      expect([path, r.status]).toEqual([path, 401]);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    const other = await fetch(`${w.url}/mcpx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(other.status).toBe(404);
    expect(isMcpPath('/mcp/x')).toBe(false);
    expect(isMcpPath('/Mcp/?a=b')).toBe(true);
  });

  it('DNS rebinding: a Host or Origin naming another site is refused with 403 before the token is even read', async () => {
    w = await startMcpWorld();
    const token = await w.agent('ci-bot', ['*']);
    const port = new URL(w.url).port;
    // fetch will not send a forged Host; node's http client will.
    const { request } = await import('node:http');
    const raw = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
    const base = { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` };
    const evil = await raw({ ...base, host: `evil.example:${port}` });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: `Invalid Host header: evil.example:${port}` }, id: null });
    const origin = await raw({ ...base, host: `localhost:${port}`, origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body).error.message).toBe('Invalid Origin header: https://evil.example');
    // The same request from a loopback name and origin is served.
    const ok = await raw({ ...base, host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(ok.status).toBe(200);
  });

  it("an Origin on the door's host but another port or scheme is 403: the Origin must be the door's own origin (scheme, host and port) or HOOKS_PUBLIC_URL's", async () => {
    w = await startMcpWorld({ settings: { publicUrl: 'https://hooks.example.com' } });
    const token = await w.agent('ci-bot', ['*']);
    const port = Number(new URL(w.url).port);
    const { request } = await import('node:http');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const all = { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}`, ...headers };
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: all }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
    const host = `localhost:${port}`;
    // Same host, another port: another origin to a browser (any local page), refused.
    expect(await status({ host, origin: `http://localhost:${port + 1}` })).toBe(403);
    expect(await status({ host, origin: 'http://localhost' })).toBe(403);
    // Same host and port, another scheme; another loopback name for the same address.
    expect(await status({ host, origin: `https://localhost:${port}` })).toBe(403);
    expect(await status({ host, origin: `http://127.0.0.1:${port}` })).toBe(403);
    // The public URL's origin, exactly: not on another port.
    expect(await status({ host: 'hooks.example.com', origin: 'https://hooks.example.com:8443' })).toBe(403);
    expect(await status({ host: 'hooks.example.com', origin: 'https://hooks.example.com' })).toBe(200);
    expect(await status({ host, origin: `http://localhost:${port}` })).toBe(200);
  });

  it.each([
    ["the public URL's host", { publicUrl: 'https://hooks.example.com' }],
    ['a host named in HOOKS_AGENT_ALLOWED_HOSTS (an in-cluster name)', { agentAllowedHosts: ['hooks.example.com'] }],
  ])('%s is allowed besides loopback', async (_what, settings) => {
    w = await startMcpWorld({ settings });
    const token = await w.agent('ci-bot', ['*']);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: new URL(w.url).port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'hooks.example.com', 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(200);
  });

  it('malformed JSON is -32700, a body past HOOKS_API_BODY_MAX_BYTES is 413, a wrong method 405', async () => {
    w = await startMcpWorld({ settings: { apiBodyMaxBytes: 1024 } });
    const auth = { authorization: `Bearer ${await w.agent('ci-bot', ['*'])}` };
    const bad = await post(w, '{"jsonrpc":', auth);
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toEqual({ code: -32700, message: 'Parse error: Invalid JSON' });
    const big = await post(w, { ...INIT, params: { ...INIT.params, clientInfo: { name: 'x'.repeat(2000), version: '1' } } }, auth);
    expect(big.status).toBe(413);
    expect((await errorOf(big)).code).toBe(-32000);
    const put = await fetch(`${w.url}/mcp`, { method: 'PUT', headers: auth });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('each agent has its own flood bucket (HOOKS_AGENT_RATE, HOOKS_AGENT_BURST): past it 429 with Retry-After, other agents unaffected', async () => {
    w = await startMcpWorld({ settings: { agentRate: 0.01, agentBurst: 2 } });
    const a = { authorization: `Bearer ${await w.agent('ci-bot', ['*'])}` };
    const b = { authorization: `Bearer ${await w.agent('other', ['*'])}` };
    expect((await post(w, INIT, a)).status).toBe(200);
    expect((await post(w, INIT, a)).status).toBe(200);
    const over = await post(w, INIT, a);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await errorOf(over)).toMatchObject({ code: -32000, message: expect.stringContaining("too many requests from agent 'ci-bot'") });
    // One bucket per agent for the whole agent door: its HTTP calls are refused too, before anything is kept.
    const call = await fetch(`${w.url}/api/calls`, {
      method: 'POST',
      headers: { ...a, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'echo', arguments: {} }),
    });
    expect(call.status).toBe(429);
    expect(Number(call.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await call.json()) as { error: { message: string } }).error.message).toMatch(/^too many calls from agent 'ci-bot'; retry in \d+ s$/);
    expect((await w.stores.runs.list({}, 10)).runs).toHaveLength(0);
    expect((await post(w, INIT, b)).status).toBe(200);
  });

  it('an agent holds at most MCP_SESSIONS_PER_AGENT sessions: a new one past it ends its least recently used', async () => {
    w = await startMcpWorld();
    const auth = { authorization: `Bearer ${await w.agent('ci-bot', ['*'])}` };
    const ids: string[] = [];
    for (let i = 0; i <= MCP_SESSIONS_PER_AGENT; i++) {
      const r = await post(w, INIT, auth);
      expect(r.status).toBe(200);
      ids.push(r.headers.get('mcp-session-id')!);
    }
    const ping = (id: string) => post(w, { jsonrpc: '2.0', id: 9, method: 'ping' }, { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    expect((await ping(ids[0]!)).status).toBe(404);
    expect((await ping(ids[1]!)).status).toBe(200);
    expect((await ping(ids[MCP_SESSIONS_PER_AGENT]!)).status).toBe(200);
  });

  it("another agent's token with a session id is 'Session not found', as for an id that never existed", async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy')] });
    const a = await w.agent('ci-bot', ['*']);
    const b = await w.agent('other', ['*']);
    const { transport } = await w.client(a);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' };
    const stolen = await post(w, list, { ...headers, authorization: `Bearer ${b}` });
    expect(stolen.status).toBe(404);
    expect(await errorOf(stolen)).toEqual({ code: -32001, message: 'Session not found' });
    const own = await post(w, list, { ...headers, authorization: `Bearer ${a}` });
    expect(own.status).toBe(200);
  });

  it('a revoked agent (DELETE /api/agents/{name}) is refused on its next request and its open sessions are closed; other agents keep theirs', async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy')] });
    const token = await w.agent('ci-bot', ['*']);
    const otherToken = await w.agent('other', ['*']);
    const mine = await w.client(token);
    const other = await w.client(otherToken);
    await until(() => mine.notificationsOpen() && other.notificationsOpen(), 15_000, 'the notification streams');
    const revoked = await fetch(`${w.url}/api/agents/ci-bot`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKENS.admin}` } });
    expect(revoked.status).toBe(204);
    // The server ends the revoked agent's session (its stream closes) without waiting for its next request.
    await until(mine.notificationsEnded, 15_000, "the revoked agent's stream to end");
    await expect(mine.client.listTools()).rejects.toThrow(/401|invalid_token|Unauthorized/i);
    // A new agent of the same name does not inherit the session.
    const again = await w.agent('ci-bot', ['*']);
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    const v = { 'mcp-protocol-version': '2025-11-25' };
    const r = await post(w, ping, { ...v, authorization: `Bearer ${again}`, 'mcp-session-id': mine.transport.sessionId! });
    expect(r.status).toBe(404);
    expect(other.notificationsEnded()).toBe(false);
    const kept = await post(w, ping, { ...v, authorization: `Bearer ${otherToken}`, 'mcp-session-id': other.transport.sessionId! });
    expect(kept.status).toBe(200);
  });

  it("a rotated agent token closes the agent's sessions: the new token must initialize again", async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy')] });
    const before = await w.client(await w.agent('ci-bot', ['*']));
    await until(before.notificationsOpen, 15_000, 'the notification stream');
    const rotated = await fetch(`${w.url}/api/agents/ci-bot/rotate`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.admin}` } });
    expect(rotated.status).toBe(200);
    const { token } = (await rotated.json()) as { token: string };
    await until(before.notificationsEnded, 15_000, 'the stream to end');
    const r = await post(
      w,
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}`, 'mcp-session-id': before.transport.sessionId! },
    );
    expect(r.status).toBe(404);
    const { client } = await w.client(token);
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe('/mcp tools/list: the visible catalogue', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  it("lists exactly the deployment's ∩ the agent's allowlist, with the catalogue's schemas", async () => {
    w = await startMcpWorld({ tools: ['deploy', 'notify', 'search', 'drop_db'].map((n) => countedTool(n)), settings: { toolsAllow: ['*', '!drop_db'] } });
    const { client } = await w.client(await w.agent('ci-bot', ['deploy', 'notify', 'drop_db']));
    const { tools, nextCursor } = await client.listTools();
    expect(nextCursor).toBeUndefined();
    expect(tools.map((t) => t.name)).toEqual(['deploy', 'notify']);
    expect(tools[0]).toEqual({
      name: 'deploy',
      description: 'test tool deploy',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      execution: { taskSupport: 'optional' },
    });
  });

  it('a runtime allowlist (Hookyard-Tools-Allow header, _meta) narrows and never widens', async () => {
    w = await startMcpWorld({ tools: ['deploy', 'notify', 'search'].map((n) => countedTool(n)) });
    const token = await w.agent('ci-bot', ['deploy', 'notify']);
    const narrowed = (await w.client(token, { headers: { 'Hookyard-Tools-Allow': 'notify, search' } })).client;
    expect((await narrowed.listTools()).tools.map((t) => t.name)).toEqual(['notify']);
    const widened = (await w.client(token, { headers: { 'Hookyard-Tools-Allow': '*' } })).client;
    expect((await widened.listTools()).tools.map((t) => t.name)).toEqual(['deploy', 'notify']);
    const { client } = await w.client(token);
    const viaMeta = await client.listTools({ _meta: { 'hookyard/tools_allow': ['deploy', 'search'] } });
    expect(viaMeta.tools.map((t) => t.name)).toEqual(['deploy']);
    // Header and _meta together: both apply.
    const both = await narrowed.listTools({ _meta: { 'hookyard/tools_allow': ['deploy'] } });
    expect(both.tools).toEqual([]);
    await expect(client.listTools({ _meta: { 'hookyard/tools_allow': 'deploy' } })).rejects.toMatchObject({ code: -32602 });
  });

  it('pages with an opaque cursor through a large catalogue; a bad cursor is -32602', async () => {
    const names = Array.from({ length: 230 }, (_, i) => `op_${String(i).padStart(3, '0')}`);
    w = await startMcpWorld({ repo: new LocalRepo(names.map((n) => countedTool(n))) });
    const { client } = await w.client(await w.agent('ci-bot', ['*', '!op_007']));
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      sizes.push(page.tools.length);
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      if (cursor) expect(cursor).not.toContain('op_');
    } while (cursor);
    expect(sizes).toEqual([100, 100, 29]);
    expect(seen).toEqual(names.filter((n) => n !== 'op_007'));
    await expect(client.listTools({ cursor: 'not-a-cursor!' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('invalid cursor') });
  });

  it('an unknown tool and a forbidden one get the same -32602 "Unknown tool" answer; nothing is kept', async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy'), countedTool('notify')] });
    const { client } = await w.client(await w.agent('ci-bot', ['notify']));
    await expect(client.callTool({ name: 'deploy', arguments: {} })).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: Unknown tool: deploy' });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602, message: 'MCP error -32602: Unknown tool: nope' });
    expect((await w.stores.runs.list({}, 10)).runs).toEqual([]);
  });

  it('a tool registered through POST /api/tools sends notifications/tools/list_changed to open sessions', async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy')] });
    const { client, notificationsOpen } = await w.client(await w.agent('ci-bot', ['*']));
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    // The client opens its notification stream (GET) after `initialized`; a notification sent before it would have nowhere to go.
    await until(notificationsOpen, 15_000, 'the notification stream');
    const r = await fetch(`${w.url}/api/tools?discover=false`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'svc', kind: 'http', endpoint: 'http://127.0.0.1:9/x', protocol: 'openai' }),
    });
    expect(r.status).toBeLessThan(300);
    await until(() => changed >= 1, 15_000, 'notifications/tools/list_changed');
  });

  it("PATCH /api/agents/{name} sends list_changed to that agent's open sessions only; its next tools/list and call follow the new allowlist", async () => {
    w = await startMcpWorld({ tools: [countedTool('deploy'), countedTool('notify')] });
    const mine = await w.client(await w.agent('ci-bot', ['notify']));
    const other = await w.client(await w.agent('ops-bot', ['notify']));
    let changed = 0;
    let otherChanged = 0;
    mine.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    other.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (otherChanged += 1));
    await until(mine.notificationsOpen, 15_000, 'the notification stream');
    await until(other.notificationsOpen, 15_000, "the other agent's notification stream");
    expect((await mine.client.listTools()).tools.map((t) => t.name)).toEqual(['notify']);
    await expect(mine.client.callTool({ name: 'deploy', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const r = await fetch(`${w.url}/api/agents/ci-bot`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tools_allow: ['deploy'] }),
    });
    expect(r.status).toBe(200);
    await until(() => changed >= 1, 15_000, 'notifications/tools/list_changed');
    // The same session, no new token: the next list and call see the new allowlist.
    expect((await mine.client.listTools()).tools.map((t) => t.name)).toEqual(['deploy']);
    await expect(mine.client.callTool({ name: 'notify', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    // The other agent's session was not told (a list it sends after the PATCH answers as before).
    expect((await other.client.listTools()).tools.map((t) => t.name)).toEqual(['notify']);
    expect(otherChanged).toBe(0);
  });
});
