import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentClient, Clock, Settings } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { JSON_MAX_DEPTH, exceedsJsonDepth } from '../door/json-depth';
import type { Verdict } from '../limiter';
import type { AgentOAuth } from '../oidc/agent-oauth';
import { allowedHostnames, checkHostAndOrigin, createAgentAuthenticator, isRefusal, publicOrigin, refuse, rpcRefusal } from './mcp-access';
import { createMcpServer, type McpServerDeps } from './mcp-server';
import { mcpSdk } from './mcp-sdk';

/** What the /mcp door runs on. */
export interface McpDoorDeps extends McpServerDeps {
  settings: Pick<Settings, 'agentWaitMs' | 'agentProgressMs' | 'agentProgressMaxWaitMs' | 'publicUrl' | 'agentAllowedHosts' | 'apiTokens' | 'apiBodyMaxBytes'>;
  stores: Pick<Stores, 'agents' | 'runs' | 'interactions'>;
  clock: Clock;
  /** The door as an OAuth protected resource (HOOKS_OIDC_ISSUER); absent or null: agent tokens only. */
  oauth?: AgentOAuth | null;
  /** The agent's flood bucket (HOOKS_AGENT_RATE); absent: not limited. */
  limit?: (agent: string) => Promise<Verdict>;
}

/** The /mcp door: MCP over streamable HTTP, one SDK transport and server per session. */
export interface McpDoor {
  /** Answers one request to /mcp (POST, GET for the notification stream, DELETE to end a session). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Closes every open session of the agent (revoked or rotated); answers how many. */
  closeAgentSessions(name: string): Promise<number>;
  /** Tells every open session the catalogue changed (`notifications/tools/list_changed`). */
  toolsChanged(): void;
  /** Tells the open sessions of agent `name` its tools changed (its allowlist was updated): `notifications/tools/list_changed`. */
  agentToolsChanged(name: string): void;
  /** Express middleware for the tool registry routes: a successful write there is a catalogue change. */
  onToolWrites(req: Request, res: Response, next: NextFunction): void;
}

interface Session {
  id: string;
  agent: string;
  /** The agent's immutable id: a same-named agent made after a revoke never reaches this session. */
  agentId: string;
  /** The token that opened it (its token_id): after a rotation the session is no one's, on every replica. */
  tokenId: string;
  /** The agent as its latest request on this session authenticated (the task requests answer for it). */
  current: { agent: AgentClient };
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsedMs: number;
}

/** Sessions one agent may hold open; a new one past it ends the agent's least recently used. */
export const MCP_SESSIONS_PER_AGENT = 32;
/** A session unused this long is ended when the next session opens (a client whose process died never sends DELETE). */
export const MCP_SESSION_IDLE_MS = 60 * 60 * 1000;

const ALLOWED_METHODS = 'GET, POST, DELETE';

/**
 * Builds the /mcp door. Order per request: Host and Origin (DNS rebinding),
 * the method, the agent token (re-read every request: a revoked agent is
 * refused on its next one), the agent's flood bucket, the body (capped at
 * HOOKS_API_BODY_MAX_BYTES and the JSON depth cap), then the session: a
 * session id is bound to the agent (by id) and token that opened it, and any other
 * token with it is "Session not found", as for an id that never existed.
 */
export function createMcpDoor(deps: McpDoorDeps): McpDoor {
  const hosts = allowedHostnames(deps.settings);
  const ownPublicOrigin = publicOrigin(deps.settings);
  const authenticate = createAgentAuthenticator(deps.stores, deps.settings, deps.oauth ?? null);
  const open = new Map<string, Session>();

  async function end(s: Session): Promise<void> {
    open.delete(s.id);
    // Closing the server closes its transport, which ends the session's open streams.
    await s.server.close().catch(() => undefined);
  }

  /** Ends idle sessions, and the least recently used of agent `agent` (its id) past MCP_SESSIONS_PER_AGENT. */
  function sweep(agent: string): Promise<unknown> {
    const now = deps.clock.now();
    const idle = [...open.values()].filter((s) => now - s.lastUsedMs > MCP_SESSION_IDLE_MS);
    const mine = [...open.values()].filter((s) => s.agentId === agent && !idle.includes(s)).sort((a, b) => a.lastUsedMs - b.lastUsedMs);
    const over = mine.slice(0, Math.max(0, mine.length - MCP_SESSIONS_PER_AGENT + 1));
    return Promise.all([...idle, ...over].map(end));
  }

  async function startSession(agent: AgentClient): Promise<{ transport: StreamableHTTPServerTransport; server: Server }> {
    const { StreamableHTTPServerTransport: Transport } = mcpSdk();
    const current = { agent };
    const server = createMcpServer(deps, () => current.agent);
    const transport: StreamableHTTPServerTransport = new Transport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: async (id) => {
        await sweep(agent.id);
        open.set(id, { id, agent: agent.name, agentId: agent.id, tokenId: agent.token_id, current, transport, server, lastUsedMs: deps.clock.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) open.delete(transport.sessionId);
    };
    await server.connect(transport);
    return { transport, server };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const badHost = checkHostAndOrigin(req, hosts, ownPublicOrigin);
    if (badHost) return refuse(res, badHost);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
      return refuse(res, rpcRefusal(405, -32000, 'Method not allowed.', { Allow: ALLOWED_METHODS }));
    }
    const agent = await authenticate(req);
    if (isRefusal(agent)) return refuse(res, agent);
    const verdict = deps.limit ? await deps.limit(agent.name) : { ok: true as const };
    if (!verdict.ok) {
      const retry = String(Math.max(1, Math.ceil(verdict.retryAfterSeconds)));
      return refuse(res, rpcRefusal(429, -32000, `too many requests from agent '${agent.name}'; retry in ${retry} s`, { 'Retry-After': retry }));
    }
    let body: unknown;
    if (method === 'POST') {
      const read = await readJson(req, deps.settings.apiBodyMaxBytes);
      if ('refusal' in read) return refuse(res, read.refusal);
      body = read.body;
    }
    // What the server's handlers read as extra.authInfo: the agent this very request authenticated as.
    const authed = Object.assign(req, { auth: { token: '', clientId: agent.name, scopes: [], extra: { agent } } });
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = open.get(sid);
      if (!s || s.agentId !== agent.id || s.tokenId !== agent.token_id) return refuse(res, rpcRefusal(404, -32001, 'Session not found'));
      s.lastUsedMs = deps.clock.now();
      s.current.agent = agent;
      return s.transport.handleRequest(authed, res, body);
    }
    if (method !== 'POST') return refuse(res, rpcRefusal(400, -32000, 'Bad Request: Mcp-Session-Id header is required'));
    const { transport, server } = await startSession(agent);
    await transport.handleRequest(authed, res, body);
    // Not an initialize (the SDK answered 400): nothing to keep.
    if (!transport.sessionId) await server.close().catch(() => undefined);
  }

  // Covered: registrations and removals through this process's API (onToolWrites). Not covered: a write through
  // another replica, or a provider's own tool list changing; a client that lists again sees those all the same.
  function toolsChanged(only?: string): void {
    for (const s of open.values()) {
      if (only !== undefined && s.agent !== only) continue;
      s.server.sendToolListChanged().catch((err: unknown) => deps.logger.debug({ session: s.id, err: String(err) }, 'mcp list_changed not sent'));
    }
  }

  return {
    handle,
    async closeAgentSessions(name) {
      const mine = [...open.values()].filter((s) => s.agent === name);
      await Promise.all(mine.map(end));
      return mine.length;
    },
    toolsChanged: () => toolsChanged(),
    agentToolsChanged: (name) => toolsChanged(name),
    onToolWrites(req, res, next) {
      if (req.method === 'POST' || req.method === 'DELETE') {
        res.on('finish', () => {
          if (res.statusCode < 300 && open.size > 0) toolsChanged();
        });
      }
      next();
    },
  };
}

/**
 * The request's JSON body, read here rather than by the SDK so the API's body
 * cap and JSON depth cap apply; refused the way the SDK's transport refuses
 * (413, or 400 with -32700).
 */
async function readJson(req: IncomingMessage, maxBytes: number): Promise<{ body: unknown } | { refusal: ReturnType<typeof rpcRefusal> }> {
  const tooLarge = { refusal: rpcRefusal(413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes (HOOKS_API_BODY_MAX_BYTES)`) };
  if (Number(req.headers['content-length']) > maxBytes) return tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return tooLarge;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (exceedsJsonDepth(text)) return { refusal: rpcRefusal(400, -32700, `Parse error: the body nests deeper than ${JSON_MAX_DEPTH} levels`) };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return { refusal: rpcRefusal(400, -32700, 'Parse error: Invalid JSON') };
  }
}
