import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentClient, Settings } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { createTokenResolver, resolveAgent } from '../api/auth';
import { sendJson } from '../http/headers';

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

/**
 * DNS-rebinding protection, port-agnostic as the SDK's hostHeaderValidation:
 * the Host must name an allowed hostname, and a browser's Origin (when sent)
 * too. A page on another site that rebinds its name to this address sends its
 * own name in both, so it is refused before anything else happens.
 */
export function checkHostAndOrigin(req: IncomingMessage, allowed: readonly string[]): Refusal | null {
  const host = req.headers.host;
  const hostname = host ? hostnameOf(host) : null;
  if (!hostname || !allowed.includes(hostname)) return rpcRefusal(403, -32000, `Invalid Host header: ${host ?? '(none)'}`);
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, allowed)) return rpcRefusal(403, -32000, `Invalid Origin header: ${origin}`);
  return null;
}

function originAllowed(origin: string, allowed: readonly string[]): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && allowed.includes(u.hostname.toLowerCase());
  } catch {
    // `null` (a sandboxed page, a file) and anything unparseable.
    return false;
  }
}

/** RFC 6750's challenge, which MCP clients read to learn they need (another) token. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="hookyard", error="invalid_token"' };

function unauthorizedAnswer(message: string): Refusal {
  return { status: 401, body: { error: { kind: 'unauthorized', message } }, headers: CHALLENGE };
}

/**
 * The agent the request's bearer token names, or the 401 to answer. Read from
 * the store on every request (by the token's SHA-256), so a revoked or rotated
 * token is refused on its next request. A management API token is refused by
 * name: it never reaches the agent door.
 */
export function createAgentAuthenticator(stores: Pick<Stores, 'agents'>, settings: Pick<Settings, 'apiTokens'>) {
  const isApiToken = createTokenResolver(settings.apiTokens);
  return async (req: IncomingMessage): Promise<AgentClient | Refusal> => {
    const header = req.headers.authorization;
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return unauthorizedAnswer('missing bearer token (Authorization: Bearer <agent token>)');
    const presented = m[1]!;
    if (isApiToken(presented)) {
      return unauthorizedAnswer('this is a management API token; /mcp takes an agent token (made by POST /api/agents)');
    }
    return (await resolveAgent(stores, presented)) ?? unauthorizedAnswer('the bearer token is not a valid agent token (revoked, rotated or never issued)');
  };
}

/** True for an authenticator's refusal rather than an agent. */
export function isRefusal(v: AgentClient | Refusal): v is Refusal {
  return (v as Refusal).status !== undefined;
}
