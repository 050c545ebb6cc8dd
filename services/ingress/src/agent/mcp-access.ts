import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentClient, Settings } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { createTokenResolver, resolveAgent } from '../api/auth';
import { sendJson } from '../http/headers';
import { isJwtShaped } from '../oidc/access-token';
import { agentOfAccessToken, challengeOf, type AgentOAuth, type BearerProblem } from '../oidc/agent-oauth';

/**
 * Who may use /mcp and from where: the Host and Origin checks against DNS
 * rebinding, and the agent a bearer token names. Framework-neutral: each
 * answers what to refuse with, and `refuse` writes it.
 */

/** An answer that ends the request before the SDK sees it. */
export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A JSON-RPC error answer with no id, as the SDK's transport writes its own refusals. */
export function rpcRefusal(status: number, code: number, message: string, headers?: Record<string, string>): Refusal {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null }, ...(headers ? { headers } : {}) };
}

/** Writes a refusal; a 413 closes the connection, as the rest of its body is left unread. */
export function refuse(res: ServerResponse, r: Refusal): void {
  sendJson(res, r.status, JSON.stringify(r.body), r.headers, r.status === 413);
}

/** Hostnames a loopback client uses; brackets on IPv6 as URL.hostname gives them. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The hostnames /mcp answers to: loopback, and the host of HOOKS_PUBLIC_URL when set. */
export function allowedHostnames(settings: Pick<Settings, 'publicUrl' | 'agentAllowedHosts'>): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  if (settings.publicUrl) hosts.push(new URL(settings.publicUrl).hostname.toLowerCase());
  for (const h of settings.agentAllowedHosts ?? []) hosts.push(h.trim().toLowerCase());
  return hosts;
}

function hostnameOf(hostish: string): string | null {
  try {
    return new URL(`http://${hostish}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** The origin (scheme, host, port) of HOOKS_PUBLIC_URL, which a browser page behind a TLS proxy sends; null when unset. */
export function publicOrigin(settings: Pick<Settings, 'publicUrl'>): string | null {
  return settings.publicUrl ? new URL(settings.publicUrl).origin : null;
}

/**
 * DNS-rebinding protection: the Host must name an allowed hostname (any
 * port, as the SDK's hostHeaderValidation), and a browser's Origin (when
 * sent) must be this door's own origin, scheme, host and port alike: the one
 * the request was sent to (its Host, over this connection's scheme) or
 * HOOKS_PUBLIC_URL's. A page on another site that rebinds its name to this
 * address sends its own name, and a page on another port of the same host
 * (another origin to a browser) its own port: both are refused before
 * anything else happens.
 */
export function checkHostAndOrigin(req: IncomingMessage, allowed: readonly string[], publicOrigin: string | null = null): Refusal | null {
  const host = req.headers.host;
  const hostname = host ? hostnameOf(host) : null;
  if (!hostname || !allowed.includes(hostname)) return rpcRefusal(403, -32000, `Invalid Host header: ${host ?? '(none)'}`);
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, ownOrigin(req, host!), publicOrigin)) return rpcRefusal(403, -32000, `Invalid Origin header: ${origin}`);
  return null;
}

/** The origin the request was sent to: this connection's scheme and the Host it named (default ports left out, as browsers send them). */
function ownOrigin(req: IncomingMessage, host: string): string | null {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return null;
  }
}

function originAllowed(origin: string, own: string | null, publicOrigin: string | null): boolean {
  let sent: string;
  try {
    sent = new URL(origin).origin;
  } catch {
    // Anything unparseable.
    return false;
  }
  // `null` (a sandboxed page, a file) parses to the origin "null": never equal to ours.
  return sent !== 'null' && (sent === own || sent === publicOrigin);
}

function unauthorizedAnswer(oauth: AgentOAuth | null, message: string, tokenSent: boolean): Refusal {
  const challenge = challengeOf(oauth, tokenSent ? { status: 401, message, error: 'invalid_token' } : undefined);
  return { status: 401, body: { error: { kind: 'unauthorized', message } }, headers: { 'WWW-Authenticate': challenge } };
}

/** The refusal of an access token (401 or 403), its challenge naming the error (RFC 6750 §3.1). */
export function bearerRefusal(oauth: AgentOAuth | null, p: BearerProblem): Refusal {
  const headers = p.error ? { 'WWW-Authenticate': challengeOf(oauth, p) } : undefined;
  return { status: p.status, body: { error: { kind: p.status === 401 ? 'unauthorized' : 'forbidden', message: p.message } }, ...(headers ? { headers } : {}) };
}

/**
 * The agent the request's bearer token names, or the 401 to answer. Read from
 * the store on every request (by the token's SHA-256), so a revoked or rotated
 * token is refused on its next request. A management API token is refused by
 * name: it never reaches the agent door. With OAuth (HOOKS_OIDC_ISSUER), a
 * JWT-shaped token is an access token, verified and mapped to its agent.
 */
export function createAgentAuthenticator(stores: Pick<Stores, 'agents'>, settings: Pick<Settings, 'apiTokens'>, oauth: AgentOAuth | null = null) {
  const isApiToken = createTokenResolver(settings.apiTokens);
  return async (req: IncomingMessage): Promise<AgentClient | Refusal> => {
    const header = req.headers.authorization;
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return unauthorizedAnswer(oauth, 'missing bearer token (Authorization: Bearer <agent token>)', header !== undefined);
    const presented = m[1]!;
    if (isApiToken(presented)) {
      return unauthorizedAnswer(oauth, 'this is a management API token; /mcp takes an agent token (made by POST /api/agents)', true);
    }
    if (oauth && isJwtShaped(presented)) {
      const found = await agentOfAccessToken(oauth, stores, presented);
      return 'agent' in found ? found.agent : bearerRefusal(oauth, found);
    }
    return (
      (await resolveAgent(stores, presented)) ??
      unauthorizedAnswer(oauth, 'the bearer token is not a valid agent token (revoked, rotated or never issued)', true)
    );
  };
}

/** True for an authenticator's refusal rather than an agent. */
export function isRefusal(v: AgentClient | Refusal): v is Refusal {
  return (v as Refusal).status !== undefined;
}
