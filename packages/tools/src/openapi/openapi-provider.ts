import {
  HookyardError,
  createSecretResolver,
  notFound,
  quote,
  toHookyardError,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
  injectTrace,
} from '@hookyard/core';
import { readBoundedBytes, readReply, statusError, withDeadline, type FetchFn } from '../http-call';
import { DiscoveryCache } from '../provider/discovery-cache';
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

const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Fetching the document is discovery, not a call: it never waits longer than this. */
const DOCUMENT_TIMEOUT_MS = 10_000;

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
  private readonly maxBytes: number;
  private readonly maxDocumentBytes: number;
  private readonly secrets: SecretResolver;
  private readonly cache: DiscoveryCache<OpenApiService>;

  constructor(options: OpenApiProviderOptions) {
    this.fetchFn = options.fetch ?? fetch;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxDocumentBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;
    this.secrets = options.secrets ?? createSecretResolver();
    this.cache = new DiscoveryCache({
      discover: (record) => this.fetchDocument(record),
      toolsOf: (service) => service.operations,
      fingerprint: (record) => JSON.stringify([record.endpoint, record.headers, record.updated_at]),
      failure: (err) => {
        const e = toHookyardError(err);
        // Whatever went wrong, the service cannot be described right now: a later try may get past it.
        return e.kind === 'unavailable' || e.kind === 'timeout' || e instanceof SecretReferenceError
          ? e
          : new HookyardError('unavailable', e.message, { cause: err });
      },
      messages: { kept: 'OpenAPI document refresh failed; the last good document stays in use', none: 'OpenAPI document could not be fetched' },
      logger: options.logger,
      ttlMs: options.documentTtlMs,
      retryAfterMs: options.retryAfterMs,
      now: options.now,
      onDiscovery: options.onDiscovery,
    });
  }

  async discover(record: RemoteToolRecord): Promise<OpenApiOperation[]> {
    return (await this.cache.get(record)).operations;
  }

  async call(record: RemoteToolRecord, key: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const service = await this.cache.get(record);
    const op = service.operations.find((o) => o.key === key);
    if (!op) throw notFound(`OpenAPI tool '${record.name}' has no operation '${key}'`);
    const what = `operation '${providerToolName(record.name, op.key)}' (${op.method} ${op.path})`;
    const base = new URL(record.endpoint);
    base.pathname = `${base.pathname.replace(/\/+$/, '')}${service.basePath}`;
    const req = buildRequest(what, base.toString(), op, args, await resolveHeaders(this.secrets, what, record.headers, ctx.onSecret));
    req.headers.set('Idempotency-Key', ctx.idempotencyKey);
    injectTrace(req.headers);
    return withDeadline(what, record.timeout_ms, ctx.signal, async (signal) => {
      const res = await this.fetchFn(req.url, { method: op.method, headers: req.headers, body: req.body, signal, redirect: 'manual' });
      const body = await readReply(res, this.maxBytes, what, ctx);
      if (res.status < 200 || res.status > 299) throw statusError(what, res.status, body);
      return parseReply(what, res.headers.get('content-type'), body);
    });
  }

  release(recordName: string): void {
    this.cache.forget(recordName);
  }

  async close(): Promise<void> {
    this.cache.clear();
  }

  /**
   * Fetches and reads the record's document now, bypassing the cache (which
   * it then fills): what registration asks before it answers. Throws what went
   * wrong as it is: a network error, an HTTP status, a document too large,
   * not JSON or not OpenAPI (OpenApiDocumentError).
   */
  async check(record: RemoteToolRecord): Promise<OpenApiOperation[]> {
    return (await this.cache.check(record)).operations;
  }

  private async fetchDocument(record: RemoteToolRecord): Promise<OpenApiService> {
    const url = documentUrl(record.endpoint);
    const what = `OpenAPI document of tool '${record.name}' (${url})`;
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
}
