import {
  HookyardError,
  createSecretResolver,
  notFound,
  quote,
  toHookyardError,
  unavailable,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
  injectTrace,
} from '@hookyard/core';
import { readBounded, readBoundedBytes, statusError, withDeadline, type FetchFn } from '../http-call';
import { providerToolName } from '../provider/naming';
import { SecretReferenceError, resolveHeaders } from '../secret-values';
import type { DiscoveryListener, ToolProvider } from '../provider/types';
import type { ToolCallContext } from '../types';
import { buildRequest, parseReply } from './call';
import { readOpenApiDocument } from './discover';
import type { OpenApiOperation, OpenApiService } from './operations';

export interface OpenApiProviderOptions {
  logger: Logger;
  /** Defaults to the global fetch. */
  fetch?: FetchFn;
  /** Resolves `{"secret": ...}` header values when they are sent (default: env and mounted files). */
  secrets?: SecretResolver;
  /** How long a fetched document is used before it is fetched again (default 60 s). */
  documentTtlMs?: number;
  /** After a failed fetch, how long before the next try (default 5 s); meanwhile the last good document serves. */
  retryAfterMs?: number;
  /** Largest document read (HOOKS_OPENAPI_MAX_BYTES; default 64 MiB). */
  maxDocumentBytes?: number;
  /** Largest reply body of a call read (default 8 MiB). */
  maxBytes?: number;
  /** Told what every real fetch of a record's document found (not the cached answers): the discovery status. */
  onDiscovery?: DiscoveryListener;
  /** Epoch ms; injected so cache tests control time (default Date.now). */
  now?: () => number;
}

const DEFAULT_TTL_MS = 60_000;
const DEFAULT_RETRY_AFTER_MS = 5_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Fetching the document is discovery, not a call: it never waits longer than this. */
const DOCUMENT_TIMEOUT_MS = 10_000;

interface CacheEntry {
  /** What the document was fetched for; a re-registration starts over. */
  fingerprint: string;
  service?: OpenApiService;
  fetchedAt: number;
  failedAt?: number;
  error?: HookyardError;
  inflight?: Promise<void>;
}

/** `{endpoint}/openapi.json`. */
export function documentUrl(endpoint: string): string {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/openapi.json`;
  url.search = '';
  return url.toString();
}

/**
 * Services that describe themselves with an OpenAPI 3 document at
 * `{endpoint}/openapi.json`: one tool per operation. The document is cached
 * per record and fetched again after the TTL; a failed fetch keeps the last
 * good document (and logs), and is not tried again before `retryAfterMs`.
 */
export class OpenApiProvider implements ToolProvider {
  readonly kind = 'openapi' as const;
  private readonly fetchFn: FetchFn;
  private readonly ttlMs: number;
  private readonly retryAfterMs: number;
  private readonly maxBytes: number;
  private readonly maxDocumentBytes: number;
  private readonly now: () => number;
  private readonly secrets: SecretResolver;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(private readonly options: OpenApiProviderOptions) {
    this.fetchFn = options.fetch ?? fetch;
    this.ttlMs = options.documentTtlMs ?? DEFAULT_TTL_MS;
    this.retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxDocumentBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
    this.now = options.now ?? Date.now;
    this.secrets = options.secrets ?? createSecretResolver();
  }

  async discover(record: RemoteToolRecord): Promise<OpenApiOperation[]> {
    return (await this.service(record)).operations;
  }

  async call(record: RemoteToolRecord, key: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const service = await this.service(record);
    const op = service.operations.find((o) => o.key === key);
    if (!op) throw notFound(`OpenAPI tool '${record.name}' has no operation '${key}'`);
    const what = `operation '${providerToolName(record.name, op.key)}' (${op.method} ${op.path})`;
    const base = new URL(record.endpoint);
    base.pathname = `${base.pathname.replace(/\/+$/, '')}${service.basePath}`;
    const req = buildRequest(what, base.toString(), op, args, await resolveHeaders(this.secrets, what, record.headers));
    req.headers.set('Idempotency-Key', ctx.idempotencyKey);
    injectTrace(req.headers);
    return withDeadline(what, record.timeout_ms, ctx.signal, async (signal) => {
      const res = await this.fetchFn(req.url, { method: op.method, headers: req.headers, body: req.body, signal, redirect: 'manual' });
      const body = await readBounded(res, this.maxBytes, what);
      if (res.status < 200 || res.status > 299) throw statusError(what, res.status, body);
      return parseReply(what, res.headers.get('content-type'), body);
    });
  }

  async close(): Promise<void> {
    this.cache.clear();
  }

  private async service(record: RemoteToolRecord): Promise<OpenApiService> {
    const fingerprint = JSON.stringify([record.endpoint, record.headers, record.updated_at]);
    let entry = this.cache.get(record.name);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint, fetchedAt: 0 };
      this.cache.set(record.name, entry);
    }
    const now = this.now();
    const fresh = entry.service && now - entry.fetchedAt < this.ttlMs;
    const resting = entry.failedAt !== undefined && now - entry.failedAt < this.retryAfterMs;
    if (!fresh && !resting) {
      entry.inflight ??= this.refresh(record, entry).finally(() => {
        entry.inflight = undefined;
      });
      await entry.inflight;
    }
    if (entry.service) return entry.service;
    throw entry.error ?? unavailable(`OpenAPI document of tool '${record.name}' is not available`);
  }

  /**
   * Fetches and reads the record's document now, bypassing the cache (which
   * it then fills): what registration asks before it answers. Throws what went
   * wrong as it is: a network error, an HTTP status, a document too large,
   * not JSON or not OpenAPI (OpenApiDocumentError).
   */
  async check(record: RemoteToolRecord): Promise<OpenApiOperation[]> {
    const url = documentUrl(record.endpoint);
    let service: OpenApiService;
    try {
      service = await this.fetchDocument(record, `OpenAPI document of tool '${record.name}' (${url})`, url);
    } catch (err) {
      this.options.onDiscovery?.(record, { error: toHookyardError(err) });
      throw err;
    }
    this.options.onDiscovery?.(record, { tools: service.operations });
    const fingerprint = JSON.stringify([record.endpoint, record.headers, record.updated_at]);
    this.cache.set(record.name, { fingerprint, service, fetchedAt: this.now() });
    return service.operations;
  }

  private async fetchDocument(record: RemoteToolRecord, what: string, url: string): Promise<OpenApiService> {
    // A secret reference that cannot be read stays `internal` (set it, then the next try gets past it).
    const headers = await resolveHeaders(this.secrets, what, record.headers);
    return withDeadline(what, Math.min(record.timeout_ms, DOCUMENT_TIMEOUT_MS), undefined, async (signal) => {
      const res = await this.fetchFn(url, { method: 'GET', headers: new Headers({ Accept: 'application/json', ...headers }), signal, redirect: 'manual' });
      const body = await readBoundedBytes(res, this.maxDocumentBytes, what, 'HOOKS_OPENAPI_MAX_BYTES');
      if (res.status !== 200)
        throw new HookyardError('unavailable', `${what} answered HTTP ${res.status}: ${quote(Buffer.from(body.subarray(0, 1024)).toString('utf8'))}`);
      return readOpenApiDocument(what, body, signal);
    });
  }

  private async refresh(record: RemoteToolRecord, entry: CacheEntry): Promise<void> {
    const url = documentUrl(record.endpoint);
    const what = `OpenAPI document of tool '${record.name}' (${url})`;
    try {
      const service = await this.fetchDocument(record, what, url);
      entry.service = service;
      entry.fetchedAt = this.now();
      entry.failedAt = undefined;
      entry.error = undefined;
      this.options.onDiscovery?.(record, { tools: service.operations });
    } catch (err) {
      const e = toHookyardError(err);
      // Whatever went wrong, the service cannot be described right now: a later try may get past it.
      entry.error =
        e.kind === 'unavailable' || e.kind === 'timeout' || e instanceof SecretReferenceError ? e : new HookyardError('unavailable', e.message, { cause: err });
      entry.failedAt = this.now();
      this.options.onDiscovery?.(record, { error: entry.error });
      this.options.logger.warn(
        { err: entry.error, tool: record.name, url, kept: entry.service !== undefined },
        entry.service ? 'OpenAPI document refresh failed; the last good document stays in use' : 'OpenAPI document could not be fetched',
      );
    }
  }
}
