/**
 * The agent door against a real authorization server: oidc-provider (an
 * OpenID-certified server) on loopback with dynamic client registration,
 * PKCE, resource indicators and JWT access tokens, in its own process; and
 * the official MCP SDK client with its own OAuth support
 * (OAuthClientProvider). From a bare 401 the client finds the resource
 * metadata, the authorization server's metadata, registers itself, is sent
 * to authorize (the test follows the redirects and answers the login and
 * consent pages), trades the code for a token, then lists and calls tools
 * through /mcp; an operator approves the gated call, and the kept run names
 * the agent and the person.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { TOKENS } from './support/harness';
import { authorizeInBrowser, startAuthorizationServer, type AuthorizationServer } from './support/oidc-flow';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const REDIRECT = 'http://127.0.0.1:1/oauth/callback';
const RULES = [{ name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve' as const, message: 'an agent wants to deploy' }];

/** The MCP client's OAuth state, kept in memory as a desktop client would keep it on disk. */
class MemoryOAuthClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'hookyard test agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

describe('agent door with a real authorization server (oidc-provider) and the MCP SDK client', () => {
  let w: McpWorld;
  let as: AuthorizationServer;
  const deploy = countedTool('deploy', (a) => ({ deployed: a }));
  const echo = countedTool('echo');

  beforeAll(async () => {
    w = await startMcpWorld({
      tools: [deploy, echo],
      executor: true,
      rules: RULES,
      settings: { agentWaitMs: 300 },
      settingsFor: async (url) => {
        as = await startAuthorizationServer(`${url}/mcp`);
        return { publicUrl: url, oidcIssuers: [as.issuer] };
      },
    });
  }, 60_000);
  afterAll(async () => {
    await w?.close();
    as?.child.kill('SIGTERM');
  });

  it('the SDK client goes from a bare 401 through discovery, registration and code + PKCE to tools/list and an approved tools/call; the run names the agent and the subject', async () => {
    const resource = `${w.url}/mcp`;
    // An admin registers which person acts as which agent.
    const made = await fetch(`${w.url}/api/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'alice-agent', tools_allow: ['deploy', 'echo'], identities: [{ issuer: as.issuer, subject: 'alice' }] }),
    });
    expect(made.status).toBe(201);

    const seen: string[] = [];
    const recorded: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const u = new URL(input instanceof Request ? input.url : String(input));
      seen.push(`${init?.method ?? 'GET'} ${u.origin === w.url ? 'hookyard' : 'idp'}${u.pathname} ${res.status}`);
      return res;
    };
    const oauth = new MemoryOAuthClient();
    const first = new Client({ name: 'oauth-agent', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth, fetch: recorded }))).rejects.toThrow(
      UnauthorizedError,
    );
    expect(seen).toEqual([
      'POST hookyard/mcp 401',
      'GET hookyard/.well-known/oauth-protected-resource/mcp 200',
      'GET idp/.well-known/oauth-authorization-server 200',
      'POST idp/reg 201',
    ]);
    expect(oauth.info?.client_id).toEqual(expect.any(String));
    const start = oauth.authorizationUrl!;
    expect(start.searchParams.get('resource')).toBe(resource);
    expect(start.searchParams.get('code_challenge_method')).toBe('S256');
    expect(start.searchParams.get('scope')).toBe('hookyard:agent');

    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: oauth, fetch: recorded });
    await transport.finishAuth((await authorizeInBrowser(start, 'alice', REDIRECT)).searchParams.get('code')!);
    expect(seen.at(-1)).toBe('POST idp/token 200');
    // A JWT access token for this resource (RFC 9068 via resource indicators).
    const [header, payload] = oauth
      .saved!.access_token.split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(payload).toMatchObject({ iss: as.issuer, aud: resource, sub: 'alice', scope: 'hookyard:agent', client_id: oauth.info!.client_id });

    const client = new Client({ name: 'oauth-agent', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['deploy', 'echo']);

    const call = { name: 'deploy', arguments: { n: 7 }, _meta: { 'hookyard/idempotency_key': 'deploy-7' } };
    const parked = (await client.callTool(call)) as { _meta: Record<string, unknown> };
    expect(parked._meta).toMatchObject({ 'hookyard/status': 'parked' });
    const runId = parked._meta['hookyard/run'] as string;
    const approval = parked._meta['hookyard/interaction'] as string;
    expect(deploy.calls).toHaveLength(0);
    const answered = await fetch(`${w.url}/api/interactions/${approval}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    await until(async () => (await w.stores.runs.get(runId))?.status === 'succeeded', 15_000, 'the approved run');
    const done = (await client.callTool(call)) as { structuredContent?: unknown };
    expect(done.structuredContent).toEqual({ deployed: { n: 7 } });
    expect(deploy.calls).toHaveLength(1);

    // The kept run names the agent and the person at the IdP, to the operator and to the agent.
    const run = (await (await fetch(`${w.url}/api/hook-runs/${runId}`, { headers: { authorization: `Bearer ${TOKENS.admin}` } })).json()) as {
      hook: string;
      payload: unknown;
    };
    expect(run.hook).toBe('agent:alice-agent');
    expect(run.payload).toMatchObject({ signed_in: { issuer: as.issuer, subject: 'alice', client_id: oauth.info!.client_id } });
    const view = await fetch(`${w.url}/api/calls/${runId}`, { headers: { authorization: `Bearer ${oauth.saved!.access_token}` } });
    expect(await view.json()).toMatchObject({ agent: 'alice-agent', status: 'succeeded', signed_in: { subject: 'alice' } });
    await client.close();
  }, 60_000);
});
