import {
  HookyardError,
  createSecretResolver,
  markNotSent,
  notFound,
  unavailable,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
  injectTrace,
  tracingOn,
} from '@hookyard/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { lazy } from '../lazy';
import { DiscoveryCache } from '../provider/discovery-cache';
import { providerToolName } from '../provider/naming';
import { resolveHeaders } from '../secret-values';
import type { DiscoveredTool, DiscoveryListener, ToolProvider } from '../provider/types';
import type { ToolCallContext } from '../types';
import { mcpError, toolCallResult } from './result';
import type { FetchFn } from '../http-call';
import { transportFor } from './transport';

/** The MCP SDK loads with the first MCP connection, not with the package. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sdkClient = lazy(() => require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js'));

export interface McpProviderOptions {
  /** fetch for the HTTP transports (the outbound guard's in a deployment; default the SDK's). */
  fetch?: FetchFn;
  logger: Logger;
  /** Commands a stdio record may spawn (HOOKS_MCP_STDIO_ALLOW); default none. */
  stdioAllow?: readonly string[];
  /** Resolves `{"secret": ...}` header values when a connection is opened (default: env and mounted files). */
  secrets?: SecretResolver;
  /** How long a server's tool list is used before it is listed again (default 60 s). */
  listTtlMs?: number;
  /** After a failed connection or listing, how long before the next try (default 5 s). */
  retryAfterMs?: number;
  /** Told what every real listing found (not the cached answers): the discovery status. */
  onDiscovery?: DiscoveryListener;
  /** Epoch ms; injected so cache tests control time (default Date.now). */
  now?: () => number;
}

/** Connecting and listing are discovery, not a call: they never wait longer than this. */
const DISCOVERY_TIMEOUT_MS = 10_000;
const CLIENT_INFO = { name: 'hookyard', version: '0.1.0' };

interface Server {
  /** What the connection was made for; a re-registration starts over. */
  fingerprint: string;
  client?: Client;
  connecting?: Promise<Client>;
  /** The secret header values the connection was opened with: told to every call over it (a rotated secret is still the old one here). */
  secretValues?: string[];
}

/** What a connection and a listing depend on. */
const fingerprintOf = (record: RemoteToolRecord): string =>
  JSON.stringify([record.transport, record.endpoint, record.command, record.args, record.headers, record.updated_at]);

/**
 * MCP servers through the official SDK client, over stdio, SSE or streamable
 * HTTP. One connection per record, opened on first use and kept; a server
 * that goes away is reconnected on the next use. The tool list is cached for
 * `listTtlMs` (DiscoveryCache); a failed listing keeps the last good list.
 */
export class McpProvider implements ToolProvider {
  readonly kind = 'mcp' as const;
  private readonly servers = new Map<string, Server>();
  private readonly cache: DiscoveryCache<DiscoveredTool[]>;
  private readonly secrets: SecretResolver;
  private closed = false;

  constructor(private readonly options: McpProviderOptions) {
    this.secrets = options.secrets ?? createSecretResolver();
    this.cache = new DiscoveryCache({
      discover: (record) => this.list(record, this.server(record)),
      toolsOf: (tools) => tools,
      fingerprint: fingerprintOf,
      messages: { kept: 'MCP tool listing failed; the last good list stays in use', none: 'MCP server could not be listed' },
      logger: options.logger,
      ttlMs: options.listTtlMs,
      retryAfterMs: options.retryAfterMs,
      now: options.now,
      onDiscovery: options.onDiscovery,
    });
  }

  async discover(record: RemoteToolRecord): Promise<DiscoveredTool[]> {
    return this.cache.get(record);
  }

  /** Lists the server's tools now (over the kept connection), bypassing the cache it then fills: what registration asks. */
  async check(record: RemoteToolRecord): Promise<DiscoveredTool[]> {
    return this.cache.check(record);
  }

  async call(record: RemoteToolRecord, key: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const what = `tool '${providerToolName(record.name, key)}' (MCP tool ${JSON.stringify(key)})`;
    const server = this.server(record);
    if (!this.cache.peek(record)?.some((t) => t.key === key)) throw notFound(`${what} is not listed by the server`);
    let client: Client;
    try {
      client = await this.client(record, server);
    } catch (err) {
      // The connection (a stdio server's start, the initialize handshake) failed: tools/call was never sent.
      throw markNotSent(mcpError(`${what}: connecting`, err));
    }
    for (const value of server.secretValues ?? []) ctx.onSecret?.(value);
    let result: unknown;
    try {
      result = await client.callTool({ name: key, arguments: args, ...traceMeta() }, undefined, { timeout: record.timeout_ms, signal: ctx.signal });
    } catch (err) {
      const e = mcpError(what, err, ctx.signal);
      if (e.kind === 'unavailable') {
        // The server went away: the next use reconnects and lists again.
        this.drop(record.name, server);
        this.cache.forget(record.name);
      }
      throw e;
    }
    return toolCallResult(what, result);
  }

  release(recordName: string): void {
    const server = this.servers.get(recordName);
    if (server) this.drop(recordName, server);
    this.cache.forget(recordName);
  }

  async close(): Promise<void> {
    this.closed = true;
    const servers = [...this.servers.entries()];
    this.servers.clear();
    this.cache.clear();
    await Promise.allSettled(servers.map(async ([, s]) => (s.client ?? (await s.connecting?.catch(() => undefined)))?.close()));
  }

  /** The cache entry of a record; a changed registration closes the old connection. */
  private server(record: RemoteToolRecord): Server {
    const fingerprint = fingerprintOf(record);
    const known = this.servers.get(record.name);
    if (known && known.fingerprint === fingerprint) return known;
    if (known) this.drop(record.name, known);
    const fresh: Server = { fingerprint };
    this.servers.set(record.name, fresh);
    return fresh;
  }

  private async list(record: RemoteToolRecord, server: Server): Promise<DiscoveredTool[]> {
    const what = `MCP tool '${record.name}'`;
    try {
      const client = await this.client(record, server);
      const tools: DiscoveredTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: Math.min(record.timeout_ms, DISCOVERY_TIMEOUT_MS) });
        for (const t of page.tools) {
          tools.push({ key: t.name, description: t.description ?? t.title ?? '', parameters: t.inputSchema });
        }
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    } catch (err) {
      const e = mcpError(`${what}: listing tools`, err);
      this.drop(record.name, server, false);
      // A server that cannot be listed cannot be used right now; a later try may get past it.
      throw e.kind === 'unauthorized' || e.kind === 'internal' ? e : new HookyardError('unavailable', e.message, { cause: err });
    }
  }

  /** The record's connected client, connecting once when there is none. */
  private async client(record: RemoteToolRecord, server: Server): Promise<Client> {
    if (server.client) return server.client;
    server.connecting ??= this.connect(record, server).finally(() => {
      server.connecting = undefined;
    });
    return server.connecting;
  }

  private async connect(record: RemoteToolRecord, server: Server): Promise<Client> {
    if (this.closed) throw unavailable(`MCP tool '${record.name}': the tool layer is shutting down`);
    // References are resolved per connection: a rotated secret is used from the next reconnection on.
    const secretValues: string[] = [];
    const headers =
      record.transport === 'stdio' ? {} : await resolveHeaders(this.secrets, `MCP tool '${record.name}'`, record.headers, (v) => secretValues.push(v));
    const transport = transportFor(record, this.options.stdioAllow ?? [], this.options.logger, headers, this.options.fetch);
    const client = new (sdkClient().Client)(CLIENT_INFO, { capabilities: {} });
    // A server that goes away (a child that exits, a dropped session) is reconnected on next use.
    client.onclose = () => {
      if (server.client === client) server.client = undefined;
    };
    try {
      await client.connect(transport, { timeout: Math.min(record.timeout_ms, DISCOVERY_TIMEOUT_MS) });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw mcpError(`MCP tool '${record.name}': connecting`, err);
    }
    server.client = client;
    server.secretValues = secretValues;
    return client;
  }

  /** Closes a server's connection; with `forget`, also its cache entry. */
  private drop(name: string, server: Server, forget = true): void {
    const client = server.client;
    server.client = undefined;
    if (forget && this.servers.get(name) === server) this.servers.delete(name);
    client?.close().catch((err: unknown) => this.options.logger.debug({ err, tool: name }, 'MCP client close failed'));
  }
}

/** The W3C trace context of the tool-call span as the request's `_meta` (`traceparent`, `tracestate`); nothing when tracing is off. */
function traceMeta(): { _meta?: Record<string, string> } {
  if (!tracingOn()) return {};
  const meta: Record<string, string> = {};
  injectTrace(meta);
  return Object.keys(meta).length ? { _meta: meta } : {};
}
