import {
  createSecretResolver,
  internal,
  markNotSent,
  notFound,
  toHookyardError,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
  type ToolStore,
  injectTrace,
} from '@hookyard/core';
import { readReply, statusError, withDeadline, type FetchFn } from '../http-call';
import { resolveHeaders } from '../secret-values';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from '../types';
import { PROTOCOLS } from './protocols';
import { fetchSchema, type RemoteFunction } from './schema';

export interface RemoteRepoOptions {
  toolStore: ToolStore;
  logger: Logger;
  /** Defaults to the global fetch. */
  fetch?: FetchFn;
  /** Resolves `{"secret": ...}` header values at call time (default: env and mounted files). */
  secrets?: SecretResolver;
  /** How long a fetched `/schema` is reused (default 30 s). */
  schemaTtlMs?: number;
  /** Largest reply body read from a tool (default 8 MiB). */
  maxReplyBytes?: number;
  /** Epoch ms; injected so cache tests control time (default Date.now). */
  now?: () => number;
}

const DEFAULT_SCHEMA_TTL_MS = 30_000;
const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * The registered HTTP services (ToolStore records of kind `http`). Reads the
 * store on every lookup so a registration is callable at once; only the
 * service's `/schema` is cached.
 */
export class RemoteRepo implements ToolRepo {
  private readonly fetchFn: FetchFn;
  private readonly schemaTtlMs: number;
  private readonly maxReplyBytes: number;
  private readonly now: () => number;
  private readonly secrets: SecretResolver;
  private readonly schemaCache = new Map<string, { at: number; endpoint: string; fns: RemoteFunction[] | null }>();

  constructor(private readonly options: RemoteRepoOptions) {
    this.fetchFn = options.fetch ?? fetch;
    this.schemaTtlMs = options.schemaTtlMs ?? DEFAULT_SCHEMA_TTL_MS;
    this.maxReplyBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    this.now = options.now ?? Date.now;
    this.secrets = options.secrets ?? createSecretResolver();
  }

  private async record(name: string): Promise<RemoteToolRecord | null> {
    const r = await this.options.toolStore.getTool(name);
    return r && r.kind === 'http' ? r : null;
  }

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const record = await this.record(name).catch((err: unknown) => {
      // Nothing was sent yet: the record could not be read (a store blip), so the call never left.
      throw markNotSent(toHookyardError(err));
    });
    if (!record) throw notFound(`tool '${name}' is not a registered HTTP tool`);
    // The validator always sets these on kind http; a record written around it is refused, not guessed at.
    const method = record.method;
    if (!record.protocol || !method) throw internal(`tool '${name}' is stored without a protocol or method; register it again`);
    const protocol = PROTOCOLS[record.protocol];
    // Stored properties first, the call's arguments win.
    const merged = { ...record.body_properties, ...args };
    const what = `tool '${name}'`;
    // Headers are case-insensitive: `set` in order so a stored `content-type` replaces ours instead of joining it.
    // Secret references are resolved now, per call: a rotated secret is used at once, a missing one fails `internal`.
    const headers = new Headers({ 'Content-Type': 'application/json' });
    for (const [k, v] of Object.entries(await resolveHeaders(this.secrets, what, record.headers, ctx.onSecret))) headers.set(k, v);
    headers.set('Idempotency-Key', ctx.idempotencyKey);
    injectTrace(headers);
    const hasBody = method !== 'GET';
    const url = hasBody ? record.endpoint : withQuery(record.endpoint, merged);
    return withDeadline(what, record.timeout_ms, ctx.signal, async (signal) => {
      const res = await this.fetchFn(url, {
        method,
        headers,
        body: hasBody ? protocol.buildBody(name, merged) : undefined,
        signal,
        redirect: 'manual',
      });
      const body = await readReply(res, this.maxReplyBytes, what, ctx);
      if (res.status < 200 || res.status > 299) throw statusError(what, res.status, body);
      return protocol.parseReply(name, body);
    });
  }

  async names(): Promise<string[]> {
    const all = await this.options.toolStore.listTools();
    return all.filter((r) => r.kind === 'http').map((r) => r.name);
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    const [info] = await this.tools(name);
    return info?.parameters;
  }

  async tools(providerName: string): Promise<ToolInfo[]> {
    const record = await this.record(providerName);
    if (!record) return [];
    const fns = await this.functions(record);
    const fn = fns?.find((f) => f.name === record.name) ?? fns?.[0];
    const info: ToolInfo = {
      name: record.name,
      description: record.description ?? fn?.description ?? '',
      parameters: fn?.parameters ?? { type: 'object' },
      provider: 'http',
      crashResumable: record.crash_resumable ?? false,
    };
    if (record.retry) info.retry = record.retry;
    return [info];
  }

  /** The service's `/schema` functions, cached; null when it has none. */
  private async functions(record: RemoteToolRecord): Promise<RemoteFunction[] | null> {
    const hit = this.schemaCache.get(record.name);
    if (hit && hit.endpoint === record.endpoint && this.now() - hit.at < this.schemaTtlMs) return hit.fns;
    const fns = await fetchSchema(this.fetchFn, record, this.options.logger, this.secrets);
    this.schemaCache.set(record.name, { at: this.now(), endpoint: record.endpoint, fns });
    return fns;
  }
}

/** GET carries no body: the merged arguments become query parameters (non-strings as compact JSON). */
function withQuery(endpoint: string, args: Record<string, unknown>): string {
  const url = new URL(endpoint);
  for (const [k, v] of Object.entries(args)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return url.toString();
}
