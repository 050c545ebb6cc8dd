/**
 * People at a real authorization server (oidc-provider, support/oidc-provider-server.mjs
 * in its own process): who they are and their roles, pre-registered public
 * clients, and a person's access token for a resource got the way a browser
 * would (authorization code + PKCE, the login and consent pages answered).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { authorizeInBrowser } from './oidc-flow';

export interface PersonAtIdp {
  roles: string[];
  preferred_username?: string;
  email?: string;
}

export interface AuthorizationServer {
  issuer: string;
  child: ChildProcess;
  close(): void;
}

/** Starts the authorization server: the agent door's resource, the API's, its people and pre-registered clients. */
export async function startPeopleIdp(opts: {
  agentResource: string;
  apiResource: string;
  people: Record<string, PersonAtIdp>;
  clients: Record<string, unknown>[];
  /** Lifetime of the API's access tokens in seconds (default 600). */
  apiTokenTtl?: number;
}): Promise<AuthorizationServer> {
  const child = spawn(process.execPath, [join(__dirname, 'oidc-provider-server.mjs')], {
    env: {
      ...process.env,
      HOOKYARD_RESOURCE: opts.agentResource,
      HOOKYARD_API_RESOURCE: opts.apiResource,
      HOOKYARD_PEOPLE: JSON.stringify(opts.people),
      HOOKYARD_CLIENTS: JSON.stringify(opts.clients),
      ...(opts.apiTokenTtl ? { HOOKYARD_API_TTL: String(opts.apiTokenTtl) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its development-mode warnings are expected; kept only to explain an early exit.
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code}) before listening: ${stderr}`)));
  });
  return { issuer: (JSON.parse(line) as { issuer: string }).issuer, child, close: () => void child.kill('SIGTERM') };
}

/**
 * What a person's browser does with an authorization URL: follows the
 * redirects (keeping cookies), signs in as `login`, agrees on the consent
 * page, and stops at the redirect to `redirectUri`, whose `code` it answers.
 */
export async function authorizeAs(start: string, login: string, redirectUri: string): Promise<string> {
  // authorizeInBrowser fails with the server's description when the redirect carries no code.
  return (await authorizeInBrowser(new URL(start), login, redirectUri)).searchParams.get('code')!;
}

/** A person's access token for `resource`: code + PKCE through a public client, as the console does it. */
export async function personToken(
  issuer: string,
  client: { client_id: string; redirect_uri: string },
  login: string,
  resource: string,
  scope = 'openid hookyard:api',
): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const start = new URL(`${issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    response_type: 'code',
    scope,
    resource,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }))
    start.searchParams.set(k, v);
  const code = await authorizeAs(start.href, login, client.redirect_uri);
  const r = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect_uri,
      client_id: client.client_id,
      code_verifier: verifier,
      resource,
    }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (!r.ok || !body.access_token) throw new Error(`token request failed (${r.status}): ${JSON.stringify(body)}`);
  return body.access_token;
}
