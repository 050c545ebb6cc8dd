import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import {
  AGENT_TOKEN_PREFIX,
  ALLOWLIST_ENTRY_PATTERN,
  agentNameViolation,
  agentTokenHash,
  badInput,
  notFound,
  type AgentClient,
  type AgentIdentity,
} from '@hookyard/core';
import { endRevokedCalls } from '../agent/revoke';
import { agentUsage } from './agent-usage';
import { callerOf } from './auth';
import { createAgent, getAgent, listAgents, revokeAgent, rotateAgent, updateAgent } from '@hookyard/api';
import type { AgentChange } from '@hookyard/store';
import { mount } from './declare';
import type { ApiContext } from './context';

/** Longest description an agent takes (characters). */
export const AGENT_DESCRIPTION_MAX = 500;
/** Most entries an agent's allowlist takes. */
export const AGENT_ALLOW_MAX = 200;
const FIELDS = ['name', 'description', 'tools_allow', 'identities'];
/** The fields an update changes. */
const CHANGE_FIELDS = ['description', 'tools_allow'];
/** Most IdP identities an agent takes. */
export const AGENT_IDENTITIES_MAX = 20;
const IDENTITY_FIELDS = ['issuer', 'subject', 'client_id'];
/** Interaction ids a revoke's audit entry names at most (the count is always whole). */
const AUDIT_IDS_MAX = 50;

/** A new agent token: the prefix and 32 random bytes (256 bits), base64url. Shown once; only its SHA-256 is kept. */
export function newAgentToken(): string {
  return AGENT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** A control character (C0 or DEL): a description is printable text. */
const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

interface AgentInput {
  name: string;
  description: string | null;
  tools_allow: string[];
  identities?: AgentIdentity[];
}

/**
 * Reads `identities`: each an issuer URL and a subject and/or client_id (an
 * issuer alone would make everyone it signs in this agent). Every problem is
 * a line naming the entry and field. An issuer HOOKS_OIDC_ISSUER does not list
 * is kept (it may be configured later) and logged as a warning when the agent is made.
 */
function readIdentities(v: unknown, errors: string[]): AgentIdentity[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > AGENT_IDENTITIES_MAX) {
    errors.push(
      `identities must be an array of at most ${AGENT_IDENTITIES_MAX} entries {issuer, subject?, client_id?}; got ${JSON.stringify(v)?.slice(0, 60)}`,
    );
    return undefined;
  }
  const out: AgentIdentity[] = [];
  v.forEach((e, i) => {
    const at = `identities[${i}]`;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return void errors.push(`${at} must be an object {issuer, subject?, client_id?}`);
    const o = e as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!IDENTITY_FIELDS.includes(k)) errors.push(`${at}.${k} is not a field (known: ${IDENTITY_FIELDS.join(', ')})`);
    if (typeof o.issuer !== 'string' || !/^https?:\/\/[^\s]+$/.test(o.issuer))
      errors.push(`${at}.issuer must be the issuer URL exactly as its tokens' iss, got ${JSON.stringify(o.issuer)?.slice(0, 80)}`);
    for (const k of ['subject', 'client_id']) {
      const f = o[k];
      if (f !== undefined && (typeof f !== 'string' || f === '' || f.length > 255))
        errors.push(`${at}.${k} must be a non-empty string of at most 255 characters, got ${JSON.stringify(f)?.slice(0, 80)}`);
    }
    if (o.subject === undefined && o.client_id === undefined)
      errors.push(
        `${at} needs a subject (the token's sub) or a client_id (its client_id or azp): an issuer alone would let everyone it signs in act as this agent`,
      );
    out.push({
      issuer: String(o.issuer),
      ...(typeof o.subject === 'string' ? { subject: o.subject } : {}),
      ...(typeof o.client_id === 'string' ? { client_id: o.client_id } : {}),
    });
  });
  return out;
}

/** Reads `description` (absent: undefined; null clears); a bad one is a line of `errors`. */
function readDescription(v: unknown, errors: string[]): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' || v.length > AGENT_DESCRIPTION_MAX || [...v].some(isControl)) {
    errors.push(`description must be a string of at most ${AGENT_DESCRIPTION_MAX} printable characters, got ${JSON.stringify(v)?.slice(0, 60)}`);
    return undefined;
  }
  return v;
}

/** Reads `tools_allow` (the allowlist grammar, create and update alike); each bad entry is a line of `errors` naming its index. */
function readAllow(allow: unknown, errors: string[]): string[] | undefined {
  if (!Array.isArray(allow) || allow.length === 0 || allow.length > AGENT_ALLOW_MAX) {
    errors.push(
      `tools_allow must be a non-empty array of at most ${AGENT_ALLOW_MAX} entries (*, a tool name or !name), e.g. ["echo"]; got ${JSON.stringify(allow)?.slice(0, 60)}`,
    );
    return undefined;
  }
  const before = errors.length;
  allow.forEach((e, i) => {
    if (typeof e !== 'string' || !ALLOWLIST_ENTRY_PATTERN.test(e)) {
      errors.push(`tools_allow[${i}] ${JSON.stringify(e)?.slice(0, 80)} is not *, a tool name or !name (pattern ${ALLOWLIST_ENTRY_PATTERN.source})`);
    }
  });
  return errors.length === before ? (allow as string[]) : undefined;
}

/** Reads an update body: at least one of description and tools_allow; every bad or unknown field is one line of a 400. */
function readAgentChange(body: unknown): AgentChange {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badInput('agent update refused', ['the body must be a JSON object']);
  const b = body as Record<string, unknown>;
  const errors: string[] = [];
  for (const k of Object.keys(b)) {
    if (!CHANGE_FIELDS.includes(k))
      errors.push(
        FIELDS.includes(k)
          ? `'${k}' cannot be changed here (changeable: ${CHANGE_FIELDS.join(', ')}); revoke the agent and make it again to change it`
          : `unknown field '${k}' (known: ${CHANGE_FIELDS.join(', ')})`,
      );
  }
  if (!CHANGE_FIELDS.some((k) => k in b)) errors.push(`give at least one of ${CHANGE_FIELDS.join(', ')}`);
  const description = readDescription(b.description, errors);
  const allow = b.tools_allow === undefined ? undefined : readAllow(b.tools_allow, errors);
  if (errors.length) throw badInput('agent update refused', errors);
  return { ...('description' in b ? { description: description ?? null } : {}), ...(allow ? { tools_allow: allow } : {}) };
}

/** Reads a create body; every bad or unknown field is one line of a 400. */
function readAgentInput(body: unknown): AgentInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badInput('agent refused', ['the body must be a JSON object']);
  const b = body as Record<string, unknown>;
  const errors: string[] = [];
  for (const k of Object.keys(b)) if (!FIELDS.includes(k)) errors.push(`unknown field '${k}' (known: ${FIELDS.join(', ')})`);
  const nameProblem = agentNameViolation(b.name);
  if (nameProblem) errors.push(nameProblem);
  const description = readDescription(b.description, errors);
  const allow = readAllow(b.tools_allow, errors);
  const identities = readIdentities(b.identities, errors);
  if (errors.length) throw badInput('agent refused', errors);
  return { name: b.name as string, description: description ?? null, tools_allow: allow!, ...(identities?.length ? { identities } : {}) };
}

/**
 * Agent principals (admin only): `POST /api/agents` makes one under a new
 * immutable id and answers its token once (only its SHA-256 is kept), `GET`
 * lists and shows them, `DELETE` revokes one and `POST .../rotate` gives it a
 * new token; both refuse the old token on its next request and tell the MCP
 * door to close its sessions. A revoke also ends the agent's open approvals
 * as denied ("agent revoked"); the name is free again, and an agent made
 * under it has a new id and none of the old one's calls, keys or tasks.
 */
export function agentRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  const missing = (name: string) => notFound(`no agent named ${JSON.stringify(name.slice(0, 128))}`);

  mount(
    router,
    createAgent,
    async (req, res) => {
      const input = readAgentInput(req.body);
      const token = newAgentToken();
      const agent = await ctx.stores.agents.create({ ...input, tokenHash: agentTokenHash(token) }, ctx.clock.now());
      const untrusted = (agent.identities ?? []).filter((i) => !ctx.settings.oidcIssuers.includes(i.issuer)).map((i) => i.issuer);
      if (untrusted.length)
        ctx.logger.warn(
          { agent: agent.name, issuers: untrusted },
          'agent identities name issuers HOOKS_OIDC_ISSUER does not list: their tokens are refused until it does',
        );
      ctx.logger.info({ agent: agent.name, tools_allow: agent.tools_allow, token_id: agent.token_id, by: callerOf(res) }, 'agent created');
      res.status(201).json({ agent, token });
    },
    opts,
  );

  mount(
    router,
    listAgents,
    async (_req, res) => {
      const agents = await ctx.stores.agents.list();
      const usage = await agentUsage(ctx.stores, agents, ctx.clock.now());
      res.json({ agents: agents.map((a) => ({ ...a, ...(usage.has(a.name) ? { usage: usage.get(a.name)! } : {}) })) });
    },
    opts,
  );

  mount(
    router,
    getAgent,
    async (req, res) => {
      const name = req.checked.params.name;
      const agent: AgentClient | null = await ctx.stores.agents.get(name);
      if (!agent) throw missing(name);
      const usage = await agentUsage(ctx.stores, [agent], ctx.clock.now());
      res.json({ ...agent, usage: usage.get(agent.name)! });
    },
    opts,
  );

  mount(
    router,
    updateAgent,
    async (req, res) => {
      const name = req.checked.params.name;
      const change = readAgentChange(req.body);
      const agent = await ctx.stores.agents.update(name, change, ctx.clock.now());
      if (!agent) throw missing(name);
      ctx.logger.info({ agent: name, changed: Object.keys(change), tools_allow: agent.tools_allow, by: callerOf(res) }, 'agent updated');
      // The door reads the agent on every request, so the new allowlist already holds; its sessions are told to list again.
      ctx.onAgentUpdated?.(name);
      res.json(agent);
    },
    opts,
  );

  mount(
    router,
    revokeAgent,
    async (req, res) => {
      const name = req.checked.params.name;
      const removed = await ctx.stores.agents.remove(name);
      if (!removed) throw missing(name);
      const by = callerOf(res);
      ctx.logger.info({ agent: name, agent_id: removed.id, by }, 'agent revoked');
      ctx.onAgentRevoked?.(name);
      // Its calls waiting on a person end now, denied: no approval given later can run a revoked agent's call.
      const ended = await endRevokedCalls(ctx, removed, by);
      res.locals.audit = {
        detail: {
          agent_id: removed.id,
          approvals_denied: ended.denied.length,
          interactions: ended.denied.slice(0, AUDIT_IDS_MAX),
          left_open: ended.left.slice(0, AUDIT_IDS_MAX),
        },
      };
      res.status(204).end();
    },
    opts,
  );

  mount(
    router,
    rotateAgent,
    async (req, res) => {
      const name = req.checked.params.name;
      const b: unknown = req.body;
      if (b !== undefined && (typeof b !== 'object' || b === null || Object.keys(b).length > 0)) {
        throw badInput('rotate refused', ['rotate takes no body (or an empty JSON object)']);
      }
      const token = newAgentToken();
      const agent = await ctx.stores.agents.rotate(name, agentTokenHash(token), ctx.clock.now());
      if (!agent) throw missing(name);
      ctx.logger.info({ agent: name, token_id: agent.token_id, by: callerOf(res) }, 'agent token rotated');
      // Sessions opened with the old token must not outlive it.
      ctx.onAgentRevoked?.(name);
      res.json({ agent, token });
    },
    opts,
  );
}
