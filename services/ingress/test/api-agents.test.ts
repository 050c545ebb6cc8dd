/**
 * Agent principals: `POST /api/agents` (admin) makes an agent and shows its
 * token once (only its SHA-256 is kept); list, show, revoke and rotate are
 * admin only; an agent token is refused (403) on every management route and
 * reaches `GET /api/tools?format=` with only the tools it may call; a revoked
 * or rotated token is refused on its very next request; revoke and rotate
 * tell the MCP door (onAgentRevoked) to close the agent's sessions.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AGENT_TOKEN_PREFIX, ManualClock, agentTokenHash, argsHash, createMetrics, loadSettings, silentLogger } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createMemoryStores } from '@hookyard/store';
import { AGENT_DOOR_ONLY, agentOf, authenticate, callerOf, createTokenResolver, requireAgent, resolveAgent } from '../src/api/auth';
import { errorHandler } from '../src/api/errors';
import { createApiRouter } from '../src/api/router';
import { SchemaChecker } from '../src/hooks/schema-checker';
import { fakeJq, testTools } from './support/fakes';
import { TOKENS, startHarness, type Harness } from './support/harness';
import { until } from './support/mcp-world';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const TOKEN_SHAPE = new RegExp(`^${AGENT_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

describe('agent principals (/api/agents)', () => {
  let h: Harness;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    h = await startHarness({ deps: { clock, limiter: null } });
  });
  afterAll(() => h.close());

  const create = (json: unknown, role: keyof typeof TOKENS = 'admin') => h.call('/api/agents', { method: 'POST', role, json });
  /** A call with an agent's bearer token. */
  const as = (token: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
    h.call(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });

  it('admin creates an agent: 201 with the agent and its token, shown this once and kept only as its SHA-256', async () => {
    const made = await create({ name: 'ci-bot', description: 'runs the checks', tools_allow: ['echo', 'print'] });
    expect(made.status).toBe(201);
    const { agent, token } = made.body;
    expect(token).toMatch(TOKEN_SHAPE);
    expect(agent).toEqual({
      // Made here and never changed: what the agent's calls, keys, tasks and sessions belong to.
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'ci-bot',
      description: 'runs the checks',
      tools_allow: ['echo', 'print'],
      token_id: agentTokenHash(token).slice(0, 8),
      created_at: new Date(T0).toISOString(),
      updated_at: new Date(T0).toISOString(),
    });
    // Never shown again: not by the list, not by show.
    const list = await h.call('/api/agents', { role: 'admin' });
    const shown = await h.call('/api/agents/ci-bot', { role: 'admin' });
    expect(list.status).toBe(200);
    // The list and show add the agent's usage of the last 24 hours (no call yet).
    const usage = { last_used_at: null, since: new Date(T0 - 1439 * 60_000).toISOString(), calls: 0, denied: 0, approvals: 0, failed: 0 };
    expect(list.body.agents).toEqual([{ ...agent, usage }]);
    expect(shown.body).toEqual({ ...agent, usage });
    for (const text of [list.text, shown.text]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(agentTokenHash(token));
    }
    // The store holds the hash, by which the token is found.
    expect((await h.stores.agents.byTokenHash(agentTokenHash(token)))?.name).toBe('ci-bot');
    expect((await h.call('/api/agents/ci-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('reader and operator tokens are 403 on every agent route; no token is 401', async () => {
    for (const role of ['reader', 'operator'] as const) {
      const answers = [
        await create({ name: 'x-bot', tools_allow: ['echo'] }, role),
        await h.call('/api/agents', { role }),
        await h.call('/api/agents/x-bot', { role }),
        await h.call('/api/agents/x-bot', { method: 'DELETE', role }),
        await h.call('/api/agents/x-bot/rotate', { method: 'POST', role }),
      ];
      for (const a of answers) {
        expect(a.status).toBe(403);
        expect(a.body.error.message).toBe(`this route needs the admin role; the token has ${role}`);
      }
    }
    expect((await h.call('/api/agents')).status).toBe(401);
    expect(await h.stores.agents.get('x-bot')).toBeNull();
  });

  it('takes IdP identities (issuer with a subject or a client_id) and refuses a bad entry with a 400 naming its field', async () => {
    const identities = [
      { issuer: 'https://idp.example.com', subject: 'alice' },
      { issuer: 'https://idp.example.com', client_id: 'ci-runner' },
    ];
    const made = await create({ name: 'idp-bot', tools_allow: ['echo'], identities });
    expect(made.status).toBe(201);
    expect(made.body.agent.identities).toEqual(identities);
    expect((await h.call('/api/agents/idp-bot', { role: 'admin' })).body.identities).toEqual(identities);
    const bad = await create({
      name: 'bad-idp-bot',
      tools_allow: ['echo'],
      identities: [
        { issuer: 'https://idp.example.com' },
        { issuer: 'not a url', subject: 'x' },
        { issuer: 'https://idp.example.com', subject: '', role: 'admin' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      expect.stringMatching(/^identities\[0\] needs a subject \(the token's sub\) or a client_id/),
      expect.stringMatching(/^identities\[1\]\.issuer must be the issuer URL/),
      'identities[2].role is not a field (known: issuer, subject, client_id)',
      'identities[2].subject must be a non-empty string of at most 255 characters, got ""',
    ]);
    expect((await create({ name: 'bad-idp-bot', tools_allow: ['echo'], identities: 'alice' })).body.error.details).toEqual([
      expect.stringMatching(/^identities must be an array of at most 20 entries/),
    ]);
    expect(await h.stores.agents.get('bad-idp-bot')).toBeNull();
    expect((await h.call('/api/agents/idp-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('refuses a bad body with a 400 naming each problem: unknown field, bad name, empty or bad tools_allow', async () => {
    const unknown = await create({ name: 'ok-bot', tools_allow: ['echo'], role: 'admin', token: 'mine' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      "unknown field 'role' (known: name, description, tools_allow, identities)",
      "unknown field 'token' (known: name, description, tools_allow, identities)",
    ]);
    const badName = await create({ name: 'Bad Bot', tools_allow: ['echo'] });
    expect(badName.status).toBe(400);
    expect(badName.body.error.details).toEqual([expect.stringMatching(/^name "Bad Bot" must match/)]);
    const empty = await create({ name: 'ok-bot', tools_allow: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toEqual([expect.stringMatching(/^tools_allow must be a non-empty array/)]);
    const missing = await create({ name: 'ok-bot' });
    expect(missing.body.error.details).toEqual([expect.stringMatching(/^tools_allow must be a non-empty array/)]);
    const badEntry = await create({ name: 'ok-bot', tools_allow: ['echo', 'rm -rf', 7] });
    expect(badEntry.status).toBe(400);
    expect(badEntry.body.error.details).toEqual([
      expect.stringMatching(/^tools_allow\[1\] "rm -rf" is not \*, a tool name or !name/),
      expect.stringMatching(/^tools_allow\[2\] 7 is not \*, a tool name or !name/),
    ]);
    const badDescription = await create({ name: 'ok-bot', tools_allow: ['*'], description: 'two\nlines' });
    expect(badDescription.body.error.details).toEqual([expect.stringMatching(/^description must be a string of at most 500 printable characters/)]);
    const notObject = await create(['ok-bot']);
    expect(notObject.status).toBe(400);
    expect(await h.stores.agents.list()).toEqual([]);
  });

  it('PATCH changes the description and allowlist: the same token sees the new tools on its next request; audited as agent.update', async () => {
    const made = (await create({ name: 'edit-bot', description: 'first', tools_allow: ['echo'] })).body;
    const names = async () => ((await as(made.token, '/api/tools?format=mcp')).body.tools as Array<{ name: string }>).map((t) => t.name).sort();
    expect(await names()).toEqual(['echo']);
    clock.set(T0 + 60_000);
    const patched = await h.call('/api/agents/edit-bot', { method: 'PATCH', role: 'admin', json: { tools_allow: ['*', '!fetcher'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...made.agent, tools_allow: ['*', '!fetcher'], updated_at: new Date(T0 + 60_000).toISOString() });
    // No new token: the one shown at creation works and now reaches what the new allowlist gives.
    expect(await names()).toEqual(['echo', 'print']);
    const described = await h.call('/api/agents/edit-bot', { method: 'PATCH', role: 'admin', json: { description: null } });
    expect(described.body).toMatchObject({ description: null, tools_allow: ['*', '!fetcher'], id: made.agent.id, token_id: made.agent.token_id });
    await until(async () => (await h.call('/api/audit?action=agent.update', { role: 'admin' })).body.entries.length === 2, 15_000, 'the audit entries');
    const [last, first] = (await h.call('/api/audit?action=agent.update', { role: 'admin' })).body.entries;
    expect(first).toMatchObject({
      action: 'agent.update',
      target: 'edit-bot',
      status: 200,
      before: { tools_allow: ['echo'], description: 'first' },
      after: { tools_allow: ['*', '!fetcher'], description: 'first' },
    });
    expect(last).toMatchObject({ before: { description: 'first' }, after: { description: null } });
    clock.set(T0);
    expect((await h.call('/api/agents/edit-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('PATCH refuses a bad body with a 400 line per problem, the create grammar for tools_allow; 404 for nobody; admin only', async () => {
    await create({ name: 'keep-bot', description: 'kept', tools_allow: ['echo'] });
    const patch = (json: unknown, role: keyof typeof TOKENS = 'admin', name = 'keep-bot') => h.call(`/api/agents/${name}`, { method: 'PATCH', role, json });
    const bad = await patch({ tools_allow: ['echo', 'rm -rf', 7], name: 'other', token: 'x', description: 'two\nlines' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      "'name' cannot be changed here (changeable: description, tools_allow); revoke the agent and make it again to change it",
      "unknown field 'token' (known: description, tools_allow)",
      expect.stringMatching(/^description must be a string of at most 500 printable characters/),
      expect.stringMatching(/^tools_allow\[1\] "rm -rf" is not \*, a tool name or !name/),
      expect.stringMatching(/^tools_allow\[2\] 7 is not \*, a tool name or !name/),
    ]);
    expect((await patch({})).body.error.details).toEqual(['give at least one of description, tools_allow']);
    expect((await patch({ tools_allow: [] })).body.error.details).toEqual([expect.stringMatching(/^tools_allow must be a non-empty array/)]);
    expect((await patch(['echo'])).status).toBe(400);
    const ghost = await patch({ description: 'x' }, 'admin', 'ghost-bot');
    expect([ghost.status, ghost.body.error.message]).toEqual([404, 'no agent named "ghost-bot"']);
    for (const role of ['reader', 'operator'] as const) expect((await patch({ description: 'x' }, role)).status).toBe(403);
    // Nothing changed.
    expect(await h.stores.agents.get('keep-bot')).toMatchObject({ description: 'kept', tools_allow: ['echo'] });
    expect((await h.call('/api/agents/keep-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it("list and show answer each agent's usage: last call, and its calls, denials, approvals and failures of the last 24 hours", async () => {
    const made = (await create({ name: 'busy-bot', tools_allow: ['*'] })).body.agent;
    await create({ name: 'idle-bot', tools_allow: ['*'] });
    const payload = (key: string) => ({
      tool: 'echo',
      arguments: { key },
      args_sha256: argsHash({ key }),
      tools_allow: null,
      idempotency_key: key,
      via: 'http' as const,
      agent_id: made.id,
    });
    const call = async (key: string, at: number, end: 'denied' | 'failed' | 'approval' | 'open') => {
      const kept = await h.stores.runs.keepAgentCall({ agent: 'busy-bot', call: payload(key), now: at, dispatchGraceMs: 0, keyTtlMs: 3_600_000 });
      if (end === 'open') return;
      const c = await h.stores.runs.claim(kept.id, 'w', 60_000, at + 1);
      if (end === 'denied') await h.stores.runs.complete(kept.id, c!.token, 'denied', null, at + 2);
      else if (end === 'failed') await h.stores.runs.fail(kept.id, c!.token, { kind: 'unavailable', message: 'down' }, at + 2);
      else
        await h.stores.interactions.park({
          run: kept.id,
          token: c!.token,
          kind: 'approval',
          tool: 'echo',
          argsHash: 'a'.repeat(64),
          expiresAt: at + 3_600_000,
          now: at + 2,
        });
    };
    // One call 25 hours ago (outside the window), then four in the last hour.
    await call('old', T0 - 25 * 3_600_000, 'failed');
    await call('k1', T0 - 30 * 60_000, 'denied');
    await call('k2', T0 - 20 * 60_000, 'failed');
    await call('k3', T0 - 10 * 60_000, 'approval');
    await call('k4', T0 - 5 * 60_000, 'open');
    const usage = {
      last_used_at: new Date(T0 - 5 * 60_000).toISOString(),
      since: new Date(T0 - 1439 * 60_000).toISOString(),
      calls: 4,
      denied: 1,
      approvals: 1,
      failed: 1,
    };
    expect((await h.call('/api/agents/busy-bot', { role: 'admin' })).body.usage).toEqual(usage);
    const listed = (await h.call('/api/agents', { role: 'admin' })).body.agents as Array<{ name: string; usage: unknown }>;
    expect(Object.fromEntries(listed.map((a) => [a.name, a.usage]))).toEqual({
      'busy-bot': usage,
      'idle-bot': { ...usage, last_used_at: null, calls: 0, denied: 0, approvals: 0, failed: 0 },
    });
    for (const name of ['busy-bot', 'idle-bot']) expect((await h.call(`/api/agents/${name}`, { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('409 on a taken name, naming it; the first agent and its token stay', async () => {
    const first = await create({ name: 'dup-bot', tools_allow: ['echo'] });
    const again = await create({ name: 'dup-bot', tools_allow: ['*'] });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("'dup-bot'");
    expect((await as(first.body.token, '/api/tools?format=mcp')).status).toBe(200);
    expect((await h.call('/api/agents/dup-bot', { role: 'admin' })).body.tools_allow).toEqual(['echo']);
    expect((await h.call('/api/agents/dup-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('show, revoke and rotate of an unknown agent are 404 naming it', async () => {
    for (const [method, path] of [
      ['GET', '/api/agents/ghost-bot'],
      ['DELETE', '/api/agents/ghost-bot'],
      ['POST', '/api/agents/ghost-bot/rotate'],
    ] as const) {
      const res = await h.call(path, { method, role: 'admin' });
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe('no agent named "ghost-bot"');
    }
  });

  it('an agent token is 403 on every management route, with the sentence naming the agent door', async () => {
    const { token } = (await create({ name: 'nosy-bot', tools_allow: ['*'] })).body;
    const tries: Array<[string, string, unknown?]> = [
      ['GET', '/api/hook-runs'],
      ['GET', '/api/hook-runs/counts'],
      ['GET', '/api/hooks'],
      ['POST', '/api/hooks', { name: 'sneaky', topic: 't', tool: 'echo' }],
      ['GET', '/api/whoami'],
      ['GET', '/api/interactions'],
      ['GET', '/api/tools'],
      ['GET', '/api/tools/echo'],
      ['GET', '/api/agents'],
      ['POST', '/api/agents', { name: 'child-bot', tools_allow: ['*'] }],
      ['GET', '/api/agents/nosy-bot'],
      ['POST', '/api/agents/nosy-bot/rotate'],
      ['DELETE', '/api/agents/nosy-bot'],
      ['GET', '/api/approval-policy'],
      ['GET', '/api/settings'],
      ['GET', '/api/unrouted'],
    ];
    for (const [method, path, json] of tries) {
      const res = await as(token, path, { method, ...(json === undefined ? {} : { json }) });
      expect({ route: `${method} ${path}`, status: res.status, message: res.body?.error?.message }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        message: AGENT_DOOR_ONLY,
      });
    }
    // Nothing it tried took effect.
    expect((await h.call('/api/agents/nosy-bot', { role: 'admin' })).body.token_id).toBe(agentTokenHash(token).slice(0, 8));
    expect(await h.stores.agents.get('child-bot')).toBeNull();
    expect(await h.stores.hooks.getHook('sneaky')).toBeNull();
    expect((await h.call('/api/agents/nosy-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('GET /api/tools?format= with an agent token lists only the tools the agent may call; a reader still sees all', async () => {
    const { token } = (await create({ name: 'echo-bot', tools_allow: ['echo'] })).body;
    for (const format of ['openai', 'anthropic', 'mcp'] as const) {
      const res = await as(token, `/api/tools?format=${format}`);
      expect(res.status).toBe(200);
      const names = (res.body.tools as Array<Record<string, any>>).map((t) => t.name ?? t.function?.name);
      expect({ format, names }).toEqual({ format, names: ['echo'] });
    }
    const reader = await h.call('/api/tools?format=mcp', { role: 'reader' });
    expect((reader.body.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['echo', 'fetcher', 'print']);
    // A deny entry narrows too: everything but print.
    const wide = (await create({ name: 'wide-bot', tools_allow: ['*', '!print'] })).body.token;
    expect(((await as(wide, '/api/tools?format=mcp')).body.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['echo', 'fetcher']);
    // A bad format is still a 400 for an agent.
    expect((await as(token, '/api/tools?format=xml')).status).toBe(400);
    for (const name of ['echo-bot', 'wide-bot']) expect((await h.call(`/api/agents/${name}`, { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('a revoked token is refused on its very next request (401), an unknown or malformed agent token too', async () => {
    const { token } = (await create({ name: 'gone-bot', tools_allow: ['echo'] })).body;
    expect((await as(token, '/api/tools?format=mcp')).status).toBe(200);
    expect((await h.call('/api/agents/gone-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
    const refused = await as(token, '/api/tools?format=mcp');
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toBe('the bearer token is not valid');
    expect((await h.call('/api/agents/gone-bot', { role: 'admin' })).status).toBe(404);
    expect((await as(`${AGENT_TOKEN_PREFIX}${'A'.repeat(43)}`, '/api/tools?format=mcp')).status).toBe(401);
    expect((await as('not-an-agent-token', '/api/tools?format=mcp')).status).toBe(401);
  });

  it('rotate answers a new token once: the old one is refused at once, the new one accepted; token_id and updated_at move', async () => {
    const made = (await create({ name: 'spin-bot', tools_allow: ['echo'] })).body;
    clock.advance(60_000);
    const rotated = await h.call('/api/agents/spin-bot/rotate', { method: 'POST', role: 'admin' });
    expect(rotated.status).toBe(200);
    const { agent, token } = rotated.body;
    expect(token).toMatch(TOKEN_SHAPE);
    expect(token).not.toBe(made.token);
    expect(agent).toEqual({
      ...made.agent,
      token_id: agentTokenHash(token).slice(0, 8),
      updated_at: new Date(T0 + 60_000).toISOString(),
    });
    expect((await as(made.token, '/api/tools?format=mcp')).status).toBe(401);
    expect((await as(token, '/api/tools?format=mcp')).status).toBe(200);
    expect((await h.call('/api/agents/spin-bot', { role: 'admin' })).text).not.toContain(token);
    // Rotate takes no body.
    const withBody = await h.call('/api/agents/spin-bot/rotate', { method: 'POST', role: 'admin', json: { token: 'mine' } });
    expect(withBody.status).toBe(400);
    expect((await as(token, '/api/tools?format=mcp')).status).toBe(200);
    expect((await h.call('/api/agents/spin-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
  });

  it('API tokens keep working beside agent tokens (static tokens first)', async () => {
    expect((await h.call('/api/whoami', { role: 'admin' })).body).toEqual({ role: 'admin' });
    expect((await h.call('/api/hook-runs', { role: 'reader' })).status).toBe(200);
  });
});

describe('agent routes: onAgentRevoked and requireAgent', () => {
  const revoked: string[] = [];
  const updated: string[] = [];
  const stores = createMemoryStores();
  const settings = loadSettings({}, { apiTokens: [{ role: 'admin', token: TOKENS.admin }] });
  let server: Server;
  let base = '';
  beforeAll(async () => {
    const app = express();
    const router = createApiRouter({
      settings,
      stores,
      bus: createMemoryBus(),
      jq: fakeJq(),
      tools: testTools(),
      metrics: createMetrics({ defaultMetrics: false }),
      logger: silentLogger(),
      clock: new ManualClock(T0),
      schemas: new SchemaChecker(),
      onVerifierChanged: () => undefined,
      onDedupeChanged: () => undefined,
      onAgentRevoked: (name) => revoked.push(name),
      onAgentUpdated: (name) => updated.push(name),
    });
    app.use('/api', router);
    // An agent-only route, mounted as the agent door's routes are: the bearer token, then requireAgent.
    const tokens = createTokenResolver(settings.apiTokens);
    app.get('/agent-only', authenticate(tokens, stores), requireAgent(), (_req, res) => res.json({ agent: agentOf(res)?.name, by: callerOf(res) }));
    app.use(errorHandler(silentLogger()));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const admin = (path: string, method = 'GET', json?: unknown) =>
    fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });

  it('is called after a revoke and after a rotate, never for a missing agent', async () => {
    expect((await admin('/api/agents', 'POST', { name: 'a-bot', tools_allow: ['echo'] })).status).toBe(201);
    expect((await admin('/api/agents', 'POST', { name: 'b-bot', tools_allow: ['echo'] })).status).toBe(201);
    expect(revoked).toEqual([]);
    expect((await admin('/api/agents/a-bot/rotate', 'POST')).status).toBe(200);
    expect((await admin('/api/agents/b-bot', 'DELETE')).status).toBe(204);
    expect((await admin('/api/agents/ghost-bot', 'DELETE')).status).toBe(404);
    expect((await admin('/api/agents/ghost-bot/rotate', 'POST')).status).toBe(404);
    expect(revoked).toEqual(['a-bot', 'b-bot']);
  });

  it('onAgentUpdated is called after an update (not a revoke), never for a missing agent or a refused body', async () => {
    expect((await admin('/api/agents', 'POST', { name: 'c-bot', tools_allow: ['echo'] })).status).toBe(201);
    expect((await admin('/api/agents/c-bot', 'PATCH', { tools_allow: ['*'] })).status).toBe(200);
    expect((await admin('/api/agents/c-bot', 'PATCH', { tools_allow: 'echo' })).status).toBe(400);
    expect((await admin('/api/agents/ghost-bot', 'PATCH', { description: 'x' })).status).toBe(404);
    expect(updated).toEqual(['c-bot']);
    expect(revoked).not.toContain('c-bot');
  });

  it('requireAgent: an agent token passes (res.locals.agent); an API token is 403 naming that the route takes an agent token; none is 401', async () => {
    const { token } = (await (await admin('/api/agents', 'POST', { name: 'door-bot', tools_allow: ['echo'] })).json()) as { token: string };
    const asAgent = await fetch(`${base}/agent-only`, { headers: { authorization: `Bearer ${token}` } });
    expect(asAgent.status).toBe(200);
    expect(await asAgent.json()).toEqual({ agent: 'door-bot', by: 'agent:door-bot' });
    const asAdmin = await admin('/agent-only');
    expect(asAdmin.status).toBe(403);
    expect(((await asAdmin.json()) as { error: { message: string } }).error.message).toBe(
      'this route takes an agent token (made by POST /api/agents), not an API token; the token has the admin role',
    );
    expect((await fetch(`${base}/agent-only`)).status).toBe(401);
    expect((await fetch(`${base}/agent-only`, { headers: { authorization: 'Bearer hya_unknown' } })).status).toBe(401);
  });

  it('resolveAgent: the agent a token names, null for an API token, an unknown or an unprefixed one, and null at once after a revoke', async () => {
    const { token } = (await (await admin('/api/agents', 'POST', { name: 'mcp-bot', tools_allow: ['*'] })).json()) as { token: string };
    expect((await resolveAgent(stores, token))?.name).toBe('mcp-bot');
    expect(await resolveAgent(stores, TOKENS.admin)).toBeNull();
    expect(await resolveAgent(stores, `${token}x`)).toBeNull();
    // The prefix is the agent token's mark: the same bytes without it name nobody.
    expect(await resolveAgent(stores, token.slice(AGENT_TOKEN_PREFIX.length))).toBeNull();
    expect((await admin('/api/agents/mcp-bot', 'DELETE')).status).toBe(204);
    expect(await resolveAgent(stores, token)).toBeNull();
  });
});
