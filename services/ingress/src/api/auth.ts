import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { AGENT_TOKEN_PREFIX, agentTokenHash, agentTokenId, forbidden, unauthorized, type AgentClient, type ApiToken, type Role } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { decodeJwt } from 'jose';
import { isJwtShaped } from '../oidc/access-token';
import { agentOfAccessToken, challengeOf, type AgentOAuth, type BearerProblem } from '../oidc/agent-oauth';
import { personLabel, personOfAccessToken, type Person, type PersonOAuth } from '../oidc/person-oauth';

const RANK: Record<Role, number> = { reader: 0, operator: 1, admin: 2 };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Resolves a bearer token to its role. Every configured token is compared,
 * each as an equal-length SHA-256 digest through timingSafeEqual, so neither
 * a token's length nor how many characters match shows in the timing.
 * The highest role of the matching tokens wins.
 */
export function createTokenResolver(tokens: readonly ApiToken[]): (presented: string) => Role | undefined {
  const table = tokens.map((t) => ({ role: t.role, digest: digest(t.token) }));
  return (presented) => {
    const d = digest(presented);
    let found: Role | undefined;
    for (const t of table) {
      if (timingSafeEqual(d, t.digest) && (found === undefined || RANK[t.role] > RANK[found])) found = t.role;
    }
    return found;
  };
}

/** What an agent token is refused with on any route but the agent door's. */
export const AGENT_DOOR_ONLY = 'agent tokens reach only the agent door (/mcp, POST /api/calls, GET /api/calls/{id}, GET /api/tools?format=...)';

/**
 * The agent a presented bearer token names, or null. Framework-neutral: the
 * API's `authenticate` and the MCP door both use it. The token is looked up by
 * its SHA-256, never compared as a string, so the timing tells nothing about
 * it. No cache: every request reads the store, so a revoked or rotated token
 * is refused on its very next request (one hash lookup per request).
 */
export async function resolveAgent(stores: Pick<Stores, 'agents'>, presented: string): Promise<AgentClient | null> {
  // Every agent token carries the prefix: anything else is no agent's, without a store read.
  if (!presented.startsWith(AGENT_TOKEN_PREFIX)) return null;
  return stores.agents.byTokenHash(agentTokenHash(presented));
}

/**
 * Who made the request, for the records an answer leaves (`by`): the role and
 * the first 8 hex chars of the token's SHA-256, which tell tokens apart
 * without showing one; for an agent, `agent:<name>`; for a person signed in
 * through the IdP, `person:<name> (sub <subject>)`.
 */
export function callerOf(res: Response): string {
  const agent = agentOf(res);
  if (agent) return `agent:${agent.name}`;
  const person = personOf(res);
  if (person) return personLabel(person);
  return `${roleOf(res)}:${String(res.locals.tokenId ?? '?')}`;
}

/** The agent the request's token names (set by `authenticate`), or null for an API token. */
export function agentOf(res: Response): AgentClient | null {
  return (res.locals.agent as AgentClient | undefined) ?? null;
}

/** The person an IdP access token for the API named (set by `authenticate`), or null for any other token. */
export function personOf(res: Response): Person | null {
  return (res.locals.person as Person | undefined) ?? null;
}

/** The role of the request, set by `authenticate` (none for an agent: routes check `requireRole` first). */
export function roleOf(res: Response): Role {
  return res.locals.role as Role;
}

/** The agent door's routes under /api (POST /api/calls, GET /api/calls/{id}): their 401 carries the OAuth challenge. */
function isAgentDoorRoute(req: Request): boolean {
  return (req.method === 'POST' && req.path === '/calls') || (req.method === 'GET' && /^\/calls\/[^/]+$/.test(req.path));
}

/** The audiences a JWT claims, unverified: only to choose which door's checks it gets (each verifies it fully). */
function audiencesOf(token: string): string[] {
  try {
    const aud = decodeJwt(token).aud;
    return typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  } catch {
    return [];
  }
}

/**
 * Express middleware: a valid `Authorization: Bearer <token>` or 401. The
 * configured API tokens are tried first (constant time); a token that is none
 * of them is looked up as an agent token when `stores` is given (no role:
 * `res.locals.agent`), or, with `oauth` and the shape of a JWT, verified as
 * an access token for the agent door and mapped to its agent; with `people`,
 * a JWT naming the API's audience is verified for it and is a person with
 * the role its claim gives (no passthrough: a token is checked against the
 * one audience of the door it is used at, so an agent's token is no person's
 * and a person's reaches no agent route). No token configured means no API
 * access. On the agent door's routes a 401 carries the challenge an OAuth
 * client starts from (resource_metadata).
 */
export function authenticate(
  resolve: (presented: string) => Role | undefined,
  stores?: Pick<Stores, 'agents'>,
  oauth: AgentOAuth | null = null,
  people: PersonOAuth | null = null,
) {
  return (req: Request, res: Response, next: NextFunction) => {
    const refuse = (p: BearerProblem) => {
      if (oauth && (p.error || isAgentDoorRoute(req))) res.set('WWW-Authenticate', challengeOf(oauth, p));
      next(p.status === 401 ? unauthorized(p.message) : forbidden(p.message));
    };
    const header = req.headers.authorization;
    const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) {
      const message = 'missing bearer token (Authorization: Bearer <token>)';
      return refuse(header === undefined ? { status: 401, message } : { status: 401, message, error: 'invalid_token' });
    }
    const presented = m[1]!;
    const role = resolve(presented);
    if (role) {
      res.locals.role = role;
      res.locals.tokenId = digest(presented).subarray(0, 4).toString('hex');
      return next();
    }
    const invalid: BearerProblem = { status: 401, message: 'the bearer token is not valid', error: 'invalid_token' };
    if (!stores) return refuse(invalid);
    if (people && isJwtShaped(presented)) {
      const aud = audiencesOf(presented);
      // A JWT for neither door, on a management route, is refused with the API's audience named.
      if (aud.includes(people.audience) || (!isAgentDoorRoute(req) && !(oauth && aud.includes(oauth.resource)))) {
        personOfAccessToken(people, presented).then((found) => {
          if (!('person' in found)) return refuse(found);
          res.locals.person = found.person;
          res.locals.role = found.person.role;
          res.locals.tokenId = `sub:${found.person.subject}`;
          next();
        }, next);
        return;
      }
    }
    if (oauth && isJwtShaped(presented)) {
      agentOfAccessToken(oauth, stores, presented).then((found) => {
        if (!('agent' in found)) return refuse(found);
        res.locals.agent = found.agent;
        res.locals.tokenId = found.agent.token_id;
        next();
      }, next);
      return;
    }
    resolveAgent(stores, presented).then((agent) => {
      if (!agent) return refuse(invalid);
      res.locals.agent = agent;
      res.locals.tokenId = agentTokenId(agentTokenHash(presented));
      next();
    }, next);
  };
}

/** Options of `requireRole`. */
export interface RoleOptions {
  /** When this says yes for a request, an agent token is let through too (the route narrows what it shows). */
  agentWhen?: (req: Request) => boolean;
}

/** Express middleware: the authenticated role must be at least `min`, else 403; an agent token is 403 (unless `agentWhen`). */
export function requireRole(min: Role, options: RoleOptions = {}) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (agentOf(res)) {
      if (options.agentWhen?.(req)) return next();
      return next(forbidden(AGENT_DOOR_ONLY));
    }
    const role = roleOf(res);
    if (RANK[role] < RANK[min]) return next(forbidden(`this route needs the ${min} role; the token has ${role}`));
    next();
  };
}

/** Express middleware: an agent token, else 401 (none) or 403 (an API token on an agent route). */
export function requireAgent() {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (agentOf(res)) return next();
    if (res.locals.role === undefined) return next(unauthorized('missing bearer token (Authorization: Bearer <agent token>)'));
    next(forbidden(`this route takes an agent token (made by POST /api/agents), not an API token; the token has the ${roleOf(res)} role`));
  };
}
