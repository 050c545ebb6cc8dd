import { createHash } from 'node:crypto';
import { agentTokenId, type AgentClient, type AgentSignIn, type Settings } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { createAccessTokenVerifier, TokenRefused, type AccessTokenVerifier, type VerifiedToken } from './access-token';
import type { IssuerKeysOptions } from './issuer-keys';

/** The scope that lets a token act as its agent with all the agent's lists allow. */
export const AGENT_SCOPE = 'hookyard:agent';
/** `tools:<name>`: a scope that lets a token call that one tool (of those the agent's lists allow). */
export const TOOL_SCOPE_PREFIX = 'tools:';

/** The agent door as an OAuth 2.1 protected resource (set when HOOKS_OIDC_ISSUER is). */
export interface AgentOAuth {
  /** The canonical URI tokens must name as their audience (HOOKS_OIDC_AGENT_AUDIENCE, default HOOKS_PUBLIC_URL + /mcp). */
  resource: string;
  /** Where its RFC 9728 metadata is served (the `resource_metadata` of a challenge). */
  metadataUrl: string;
  issuers: readonly string[];
  verify: AccessTokenVerifier;
}

/** The agent door's OAuth side from the settings, or null when no issuer is configured. */
export function agentOAuthOf(settings: Pick<Settings, 'oidcIssuers' | 'oidcAgentAudience' | 'publicUrl'>, keys: IssuerKeysOptions = {}): AgentOAuth | null {
  if (settings.oidcIssuers.length === 0) return null;
  // loadSettings refuses an issuer with neither (HOOKS_OIDC_ISSUER's check).
  const resource = settings.oidcAgentAudience ?? `${settings.publicUrl!}/mcp`;
  return {
    resource,
    metadataUrl: metadataUrlOf(resource, settings.publicUrl),
    issuers: settings.oidcIssuers,
    verify: createAccessTokenVerifier({ ...keys, issuers: settings.oidcIssuers }),
  };
}

/**
 * RFC 9728 §3.1: the well-known path inserted between the resource's host
 * and its path (https://h/mcp -> https://h/.well-known/oauth-protected-resource/mcp);
 * a resource that is no http(s) URL has its metadata at HOOKS_PUBLIC_URL's root.
 */
export function metadataUrlOf(resource: string, publicUrl: string | undefined): string {
  if (/^https?:/.test(resource)) {
    const u = new URL(resource);
    return `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/+$/, '')}`;
  }
  return `${new URL(publicUrl!).origin}/.well-known/oauth-protected-resource`;
}

/** The RFC 9728 document: this resource, who issues its tokens, the scopes it reads. */
export function protectedResourceMetadata(o: AgentOAuth): Record<string, unknown> {
  return {
    resource: o.resource,
    authorization_servers: [...o.issuers],
    scopes_supported: [AGENT_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Hookyard agent door',
  };
}

/** Why a bearer was refused: the status, the sentence, and (RFC 6750 §3.1) the error code a challenge names when a token was sent. */
export interface BearerProblem {
  status: 401 | 403;
  message: string;
  error?: 'invalid_token' | 'insufficient_scope';
}

const quoted = (s: string) => `"${s.replace(/["\\]/g, "'")}"`;

/**
 * The WWW-Authenticate of a refusal. Without OAuth: the realm, and
 * `error="invalid_token"` when a token was sent. With it: `resource_metadata`
 * (where an MCP client starts discovery) and the scope to ask for, plus the
 * error and its description only when a token was sent (none when no credentials came).
 */
export function challengeOf(o: AgentOAuth | null, problem?: BearerProblem): string {
  const parts = o ? [`resource_metadata=${quoted(o.metadataUrl)}`, `scope=${quoted(AGENT_SCOPE)}`] : ['realm="hookyard"'];
  if (problem?.error) parts.push(`error=${quoted(problem.error)}`);
  if (o && problem?.error) parts.push(`error_description=${quoted(problem.message)}`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * The tools the token's scopes let through, as an allowlist that only
 * narrows the agent's: `hookyard:agent` all of them (`*`), `tools:<name>`
 * each that one; null when the token carries neither (insufficient_scope).
 */
export function scopeAllowlist(scopes: readonly string[]): string[] | null {
  if (scopes.includes(AGENT_SCOPE)) return ['*'];
  const tools = scopes.filter((s) => s.startsWith(TOOL_SCOPE_PREFIX) && s.length > TOOL_SCOPE_PREFIX.length).map((s) => s.slice(TOOL_SCOPE_PREFIX.length));
  return tools.length ? tools : null;
}

/** True when one of the agent's identities names the token: its issuer, and its subject and/or client as given. */
function names(agent: AgentClient, t: VerifiedToken): boolean {
  return (agent.identities ?? []).some(
    (i) =>
      i.issuer === t.issuer &&
      (i.subject !== undefined || i.client_id !== undefined) &&
      (i.subject === undefined || i.subject === t.subject) &&
      (i.client_id === undefined || i.client_id === t.client_id),
  );
}

/**
 * The agent an access token acts as, or why not. The token is verified for
 * this resource; the agent is the one whose `identities` name it (read from
 * the store on every request, so a revoked agent is refused at once). The
 * agent's own lists still decide; the token's scopes narrow them (kept as the
 * principal's `tools_allow` intersected with the scope list), never widen.
 */
export async function agentOfAccessToken(o: AgentOAuth, stores: Pick<Stores, 'agents'>, token: string): Promise<{ agent: AgentClient } | BearerProblem> {
  let t: VerifiedToken;
  try {
    t = await o.verify(token, o.resource);
  } catch (err) {
    if (err instanceof TokenRefused) return { status: 401, message: err.message, error: 'invalid_token' };
    throw err;
  }
  const who = `issuer ${t.issuer}, subject ${JSON.stringify(t.subject)}, client_id ${JSON.stringify(t.client_id)}`;
  const allow = scopeAllowlist(t.scopes);
  if (!allow) {
    return {
      status: 403,
      error: 'insufficient_scope',
      message: `the access token (${who}) has none of the scopes this door reads: ask for ${AGENT_SCOPE} (all the agent may call) or ${TOOL_SCOPE_PREFIX}<tool> per tool`,
    };
  }
  const matched = (await stores.agents.list()).filter((a) => names(a, t));
  if (matched.length === 0) {
    const example = JSON.stringify({ issuer: t.issuer, ...(t.subject ? { subject: t.subject } : { client_id: t.client_id }) });
    return {
      status: 403,
      message: `the access token is valid (${who}) but names no agent; an admin registers it with POST /api/agents {"identities": [${example}], ...}`,
    };
  }
  if (matched.length > 1) {
    return {
      status: 403,
      message: `the access token (${who}) names more than one agent (${matched.map((a) => a.name).join(', ')}); an admin keeps each identity on one agent`,
    };
  }
  const agent = matched[0]!;
  const signedIn: AgentSignIn = { issuer: t.issuer, subject: t.subject, client_id: t.client_id };
  return {
    agent: {
      ...agent,
      tools_allow: narrowed(agent.tools_allow, allow),
      // Sessions are bound to this, not to one token: a refreshed token of the same identity keeps its session.
      token_id: agentTokenId(identityHash(signedIn)),
      signed_in: signedIn,
    },
  };
}

/** The agent's list narrowed by the scopes' list: `*` keeps it; names keep those the agent's list allows. */
function narrowed(agentList: readonly string[], scopeList: readonly string[]): string[] {
  if (scopeList.includes('*')) return [...agentList];
  const excluded = agentList.filter((e) => e.startsWith('!'));
  const all = agentList.includes('*');
  const kept = scopeList.filter((n) => !excluded.includes(`!${n}`) && (all || agentList.includes(n)));
  return kept;
}

function identityHash(s: AgentSignIn): string {
  return createHash('sha256')
    .update(JSON.stringify([s.issuer, s.subject, s.client_id]))
    .digest('hex');
}
