/**
 * The agent door as an OAuth protected resource, against a loopback issuer
 * whose metadata and JWKS are served over HTTP (support/tiny-idp): the RFC
 * 9728 metadata, RFC 6750 challenges, every way an access token is refused
 * (one sentence each), which agent a token is and how its scopes narrow, and
 * a JWKS key rotation followed without a restart. The full flow against a
 * real authorization server is oidc-mcp-sdk.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, type McpWorld } from './support/mcp-world';
import { startTinyIdp, type TinyIdp } from './support/tiny-idp';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('agent door: OAuth access tokens from a configured issuer', () => {
  let idp: TinyIdp;
  let w: McpWorld;
  let resource: string;
  const echo = countedTool('echo');
  const other = countedTool('other');

  beforeAll(async () => {
    idp = await startTinyIdp();
    w = await startMcpWorld({
      tools: [echo, other],
      executor: true,
      settingsFor: (url) => ({ publicUrl: url, oidcIssuers: [idp.issuer] }),
      // A short cooldown so the rotation case needs no long wait; the rate limit has its own case below.
      oidcKeys: { cooldownMs: 0 },
    });
    resource = `${w.url}/mcp`;
    await w.stores.agents.create(
      { name: 'idp-bot', description: null, tools_allow: ['echo', 'other'], tokenHash: 'h-idp-bot', identities: [{ issuer: idp.issuer, subject: 'alice' }] },
      Date.now(),
    );
  });
  afterAll(async () => {
    await w.close();
    await idp.close();
  });

  const mcp = (token?: string) =>
    fetch(`${w.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(INIT),
    });
  const callApi = (token: string | undefined, tool = 'echo') =>
    fetch(`${w.url}/api/calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ tool, arguments: { n: 1 } }),
    });
  const good = (claims: Record<string, unknown> = {}) => idp.sign({ sub: 'alice', aud: resource, client_id: 'cli-1', scope: 'hookyard:agent', ...claims });

  it('serves RFC 9728 metadata at the root and the /mcp-suffixed well-known path: the resource, its issuer and scopes', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const r = await fetch(`${w.url}${path}`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        resource,
        authorization_servers: [idp.issuer],
        scopes_supported: ['hookyard:agent'],
        bearer_methods_supported: ['header'],
        resource_name: 'Hookyard agent door',
      });
    }
  });

  it('a bare request is 401 naming the resource metadata and no error; a token sent and refused adds error="invalid_token" and its sentence', async () => {
    const challenge = `Bearer resource_metadata="${w.url}/.well-known/oauth-protected-resource/mcp", scope="hookyard:agent"`;
    for (const r of [await mcp(), await callApi(undefined), await fetch(`${w.url}/api/calls/01ABC`)]) {
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(challenge);
    }
    for (const r of [await mcp('hya_nope'), await callApi('hya_nope')]) {
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(new RegExp(`^${escape(challenge)}, error="invalid_token", error_description="[^"]+"$`));
    }
  });

  it('refused with 401 and a sentence each: another audience, expired, a key not in the JWKS, alg none, an issuer not configured', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stranger = await idp.newKey('not-published');
    const none = (claims: Record<string, unknown>) =>
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: idp.issuer, sub: 'alice', aud: resource, scope: 'hookyard:agent', exp: now + 300, ...claims })}.`;
    const cases: [string, string, RegExp][] = [
      [
        'another audience',
        await good({ aud: 'https://other.example.com/mcp' }),
        /is for "https:\/\/other\.example\.com\/mcp", not this resource .*ask the IdP for a token with resource=/,
      ],
      ['expired', await good({ iat: now - 600, exp: now - 120 }), /^the access token expired at .* \(leeway 30 s\); get a new one$/],
      [
        'a key not in the JWKS',
        await idp.sign({ sub: 'alice', aud: resource, scope: 'hookyard:agent' }, stranger),
        /signed with a key that .* JWKS does not hold$/,
      ],
      ['alg none', none({}), /signed with alg "none"; only RS256, .* are accepted$/],
      [
        'an issuer not configured',
        await good({ iss: 'https://evil.example.com' }),
        /issuer "https:\/\/evil\.example\.com" is not one this deployment trusts \(HOOKS_OIDC_ISSUER\)$/,
      ],
    ];
    for (const [what, token, sentence] of cases) {
      for (const r of [await mcp(token), await callApi(token)]) {
        expect({ what, status: r.status }).toEqual({ what, status: 401 });
        const body = (await r.json()) as { error: { kind: string; message: string } };
        expect({ what, kind: body.error.kind }).toEqual({ what, kind: 'unauthorized' });
        expect(body.error.message).toMatch(sentence);
        expect(r.headers.get('www-authenticate')).toContain('error="invalid_token", error_description="the access token');
      }
    }
    // A leeway, stated: 10 s past exp is still accepted.
    expect((await mcp(await good({ exp: now - 10 }))).status).toBe(200);
  });

  it('a valid token acts as the agent its identities name, and the kept call names the IdP subject; hya_ tokens keep working beside it', async () => {
    const token = await good();
    const transport = new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'idp-client', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'other']);
    await client.close();

    const r = await callApi(token);
    expect(r.status).toBe(200);
    const view = (await r.json()) as { id: string; agent: string; signed_in: unknown; status: string };
    expect(view).toMatchObject({ agent: 'idp-bot', status: 'succeeded', signed_in: { issuer: idp.issuer, subject: 'alice', client_id: 'cli-1' } });
    const again = await fetch(`${w.url}/api/calls/${view.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await again.json()).toMatchObject({ agent: 'idp-bot', signed_in: { subject: 'alice' } });
    const run = await fetch(`${w.url}/api/hook-runs/${view.id}`, { headers: { authorization: `Bearer ${TOKENS.admin}` } });
    expect(((await run.json()) as { payload: unknown }).payload).toMatchObject({ signed_in: { issuer: idp.issuer, subject: 'alice', client_id: 'cli-1' } });

    const hya = await w.agent('plain-bot', ['echo']);
    expect((await mcp(hya)).status).toBe(200);
    expect(await (await callApi(hya)).json()).not.toHaveProperty('signed_in');
  });

  it('403 for a valid token that names no agent (saying what an admin registers) or carries no scope this door reads; tools:<name> narrows, never widens', async () => {
    const nobody = await mcp(await good({ sub: 'mallory' }));
    expect(nobody.status).toBe(403);
    expect(((await nobody.json()) as { error: { message: string } }).error.message).toBe(
      `the access token is valid (issuer ${idp.issuer}, subject "mallory", client_id "cli-1") but names no agent; an admin registers it with POST /api/agents {"identities": [{"issuer":"${idp.issuer}","subject":"mallory"}], ...}`,
    );
    const noScope = await callApi(await good({ scope: 'openid email' }));
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(((await noScope.json()) as { error: { message: string } }).error.message).toContain('ask for hookyard:agent');

    // tools:echo lets echo through, not other; tools:rm names a tool the agent's list does not allow, so it adds nothing.
    const narrow = await good({ scope: 'tools:echo tools:rm' });
    expect((await callApi(narrow, 'echo')).status).toBe(200);
    expect((await callApi(narrow, 'other')).status).toBe(404);
    const transport = new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${narrow}` } } });
    const client = new Client({ name: 'narrow-client', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await client.close();
  });

  it('follows a JWKS key rotation without a restart: a token of the new key is accepted, the retired key is refused', async () => {
    const before = await good();
    expect((await mcp(before)).status).toBe(200);
    const next = await idp.newKey('key-2', 'RS256');
    const retired = idp.published[0]!;
    idp.published = [next];
    expect((await mcp(await idp.sign({ sub: 'alice', aud: resource, scope: 'hookyard:agent' }, next))).status).toBe(200);
    // The new kid was unknown, so the set was read again (no restart); the retired key is gone from it.
    const old = await mcp(await idp.sign({ sub: 'alice', aud: resource, scope: 'hookyard:agent' }, retired));
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: { message: string } }).error.message).toBe(
      `the access token is signed with a key that ${idp.issuer}'s JWKS does not hold`,
    );
  });
});

describe('agent door: JWKS reads, and the door without an issuer', () => {
  it('ten tokens naming an unknown kid cost one JWKS read within the cooldown', async () => {
    const idp = await startTinyIdp();
    const w = await startMcpWorld({ settingsFor: (url) => ({ publicUrl: url, oidcIssuers: [idp.issuer] }), oidcKeys: { cooldownMs: 60_000 } });
    try {
      const stranger = await idp.newKey('unknown-kid');
      const send = async (key = idp.published[0]!) =>
        fetch(`${w.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${await idp.sign({ sub: 'x', aud: `${w.url}/mcp`, scope: 'hookyard:agent' }, key)}`,
          },
          body: JSON.stringify(INIT),
        });
      expect((await send()).status).toBe(403); // verified (no agent named): the JWKS was read once
      expect(idp.jwksReads).toBe(1);
      for (let i = 0; i < 10; i++) expect((await send(stranger)).status).toBe(401);
      expect(idp.jwksReads).toBe(1);
    } finally {
      await w.close();
      await idp.close();
    }
  });

  it('an issuer whose metadata names another issuer is not trusted: 503 saying HOOKS_OIDC_ISSUER must be the issuer exactly', async () => {
    const idp = await startTinyIdp();
    // The same server under another name: its metadata says 127.0.0.1, the setting says localhost.
    const alias = idp.issuer.replace('127.0.0.1', 'localhost');
    const w = await startMcpWorld({ settingsFor: (url) => ({ publicUrl: url, oidcIssuers: [alias] }) });
    try {
      const token = await idp.sign({ iss: alias, sub: 'x', aud: `${w.url}/mcp`, scope: 'hookyard:agent' });
      const r = await fetch(`${w.url}/api/calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ tool: 'echo', arguments: {} }),
      });
      expect(r.status).toBe(503);
      expect(((await r.json()) as { error: { message: string } }).error.message).toBe(
        `the metadata at ${alias}/.well-known/oauth-authorization-server names issuer "${idp.issuer}", not ${alias}; HOOKS_OIDC_ISSUER must be the issuer exactly as the IdP names it`,
      );
      expect(idp.jwksReads).toBe(0);
    } finally {
      await w.close();
      await idp.close();
    }
  });

  it('without HOOKS_OIDC_ISSUER the well-known paths are 404 and a 401 names no resource metadata', async () => {
    const w = await startMcpWorld();
    try {
      expect((await fetch(`${w.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
      expect((await fetch(`${w.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
      const r = await fetch(`${w.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INIT) });
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="hookyard"');
    } finally {
      await w.close();
    }
  });
});

function b64(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
