/**
 * People through the IdP at the management API, against a real
 * authorization server (oidc-provider, in its own process): a person's
 * access token for HOOKS_OIDC_API_AUDIENCE (authorization code + PKCE
 * through a public client, as the console gets it) carries their role in a
 * claim, mapped by HOOKS_OIDC_ROLE_MAP; the approval, the run's history, a
 * retry and the audit name the person (IdP subject and readable name); a
 * reader cannot write; and no token passes from one door to the other.
 */
import { badInput } from '@hookyard/core';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';
import { personToken, startPeopleIdp, type AuthorizationServer } from './support/oidc-people';

const CLIENT = { client_id: 'api-script', redirect_uri: 'http://127.0.0.1:1/callback' };
const RULES = [{ name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve' as const, message: 'an agent wants to deploy' }];
const PEOPLE = {
  'u-1001': { roles: ['hy-ops'], preferred_username: 'olivia' },
  'u-2002': { roles: ['reader'], email: 'rita@example.com' },
  'u-3003': { roles: ['hy-guests'], preferred_username: 'gus' },
};

describe('management API: people with access tokens from the IdP (oidc-provider)', () => {
  let w: McpWorld;
  let idp: AuthorizationServer;
  let api: string;
  let agentToken: string;
  const deploy = countedTool('deploy');
  const boom = countedTool('boom', () => {
    throw badInput('boom refused', ['the test tool always fails']);
  });
  const token = (login: string, resource = api, scope?: string) => personToken(idp.issuer, CLIENT, login, resource, scope);
  const call = (bearer: string, path: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(`${w.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${bearer}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const parkDeploy = async (n: number) => {
    const r = await call(agentToken, '/api/calls', { method: 'POST', json: { tool: 'deploy', arguments: { n }, idempotency_key: `deploy-${n}` } });
    const body = (await r.json()) as { id: string; status: string; interaction: { id: string } };
    expect({ status: r.status, body }).toMatchObject({ status: 202, body: { status: 'parked' } });
    return body;
  };

  beforeAll(async () => {
    w = await startMcpWorld({
      tools: [deploy, boom],
      executor: true,
      rules: RULES,
      settings: { maxAttempts: 1 },
      settingsFor: async (url) => {
        api = `${url}/api`;
        idp = await startPeopleIdp({
          agentResource: `${url}/mcp`,
          apiResource: api,
          people: PEOPLE,
          clients: [
            {
              ...CLIENT,
              redirect_uris: [CLIENT.redirect_uri],
              token_endpoint_auth_method: 'none',
              grant_types: ['authorization_code'],
              response_types: ['code'],
            },
          ],
        });
        return { publicUrl: url, oidcIssuers: [idp.issuer], oidcApiAudience: api, oidcRoleMap: { 'hy-ops': 'operator', 'hy-admins': 'admin' } };
      },
    });
    agentToken = await w.agent('bot', ['deploy', 'boom']);
  }, 60_000);
  afterAll(async () => {
    await w?.close();
    idp?.close();
  });

  it("a person's token for the API has the role its claim maps to; the approval, the run's history, a retry and the audit name the person", async () => {
    const olivia = await token('u-1001');
    const me = await call(olivia, '/api/whoami');
    expect(await me.json()).toEqual({ role: 'operator', person: { issuer: idp.issuer, subject: 'u-1001', name: 'olivia' } });

    const parked = await parkDeploy(1);
    const approved = await call(olivia, `/api/interactions/${parked.interaction.id}/approve`, { method: 'POST', json: { reason: 'ship it' } });
    expect(approved.status).toBe(200);
    const who = 'person:olivia (sub u-1001)';
    expect(((await approved.json()) as { interaction: unknown }).interaction).toMatchObject({ status: 'approved', resolution: { by: who, via: 'api' } });
    await until(async () => (await w.stores.runs.get(parked.id))?.status === 'succeeded', 15_000, 'the approved run');
    const run = (await (await call(TOKENS.admin, `/api/hook-runs/${parked.id}`)).json()) as { history: { event: string; detail: string }[] };
    expect(run.history.map((h) => h.detail).join('\n')).toContain(who);

    const failed = await call(agentToken, '/api/calls', { method: 'POST', json: { tool: 'boom', arguments: { n: 2 } } });
    const failedId = ((await failed.json()) as { id: string }).id;
    await until(async () => (await w.stores.runs.get(failedId))?.status === 'failed', 15_000, 'the failed run');
    const retried = await call(olivia, `/api/hook-runs/${failedId}/retry`, { method: 'POST', json: {} });
    expect(retried.status).toBe(200);
    expect((await w.stores.runs.get(failedId))!.history.find((h) => h.event === 'retried')?.detail).toMatch(/^retried by person:olivia \(sub u-1001\)/);

    const audit = async (target: string, action: string) =>
      ((await (await call(TOKENS.admin, `/api/audit?target=${target}&action=${action}`)).json()) as { entries: { actor: unknown }[] }).entries;
    expect((await audit(parked.interaction.id, 'interaction.approve')).map((e) => e.actor)).toEqual([{ kind: 'person', role: 'operator', label: who }]);
    expect((await audit(failedId, 'run.retry')).map((e) => e.actor)).toEqual([{ kind: 'person', role: 'operator', label: who }]);
  }, 60_000);

  it('a reader cannot write (403); a person whose roles claim maps to no role is 403 naming the claim and what it held', async () => {
    const rita = await token('u-2002');
    expect(await (await call(rita, '/api/whoami')).json()).toMatchObject({ role: 'reader', person: { subject: 'u-2002', name: 'rita@example.com' } });
    const parked = await parkDeploy(3);
    const refused = await call(rita, `/api/interactions/${parked.interaction.id}/approve`, { method: 'POST', json: {} });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe('this route needs the operator role; the token has reader');
    expect((await w.stores.interactions.get(parked.interaction.id))?.status).toBe('open');

    const gus = await call(await token('u-3003'), '/api/hooks');
    expect(gus.status).toBe(403);
    expect(((await gus.json()) as { error: { message: string } }).error.message).toBe(
      'the access token of u-3003 carries no Hookyard role: its "roles" claim holds ["hy-guests"]; the IdP must put reader, operator, admin or one HOOKS_OIDC_ROLE_MAP maps (hy-ops, hy-admins) there',
    );
  }, 60_000);

  it('no passthrough: a token for another audience is 401 at the API; an agent-door token is refused at the API and an API token at the agent door', async () => {
    const elsewhere = await call(await token('u-1001', 'https://elsewhere.example/svc'), '/api/hooks');
    expect(elsewhere.status).toBe(401);
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).toBe(
      `the access token is for "https://elsewhere.example/svc", not this resource (${api}); ask the IdP for a token with resource=${api}`,
    );

    const forAgents = await token('u-1001', `${w.url}/mcp`, 'openid hookyard:agent');
    for (const [method, path] of [
      ['GET', '/api/hooks'],
      ['GET', '/api/whoami'],
    ] as const) {
      expect((await call(forAgents, path, { method })).status).toBe(403);
    }

    const forApi = await token('u-1001');
    const mcp = await fetch(`${w.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${forApi}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain(`not this resource (${w.url}/mcp)`);
    const calls = await call(forApi, '/api/calls', { method: 'POST', json: { tool: 'deploy', arguments: { n: 4 } } });
    expect(calls.status).toBe(403);
    expect(deploy.calls.filter((a) => a.n === 4)).toEqual([]);
  }, 60_000);
});
