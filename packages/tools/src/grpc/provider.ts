import {
  HookyardError,
  badInput,
  createSecretResolver,
  injectTrace,
  notFound,
  quote,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
} from '@hookyard/core';
import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { createOutboundGuard, type OutboundGuard } from '../outbound';
import { DiscoveryCache } from '../provider/discovery-cache';
import { discoveredToolName } from '../provider/naming';
import type { DiscoveredTool, DiscoveryListener, ToolProvider } from '../provider/types';
import { resolveStringMap, type SecretTold } from '../secret-values';
import type { ToolCallContext } from '../types';
import { grpcConfigOf, metadataSafe, type GrpcRecordConfig } from './fields';
import { closedError } from './lazy-provider';
import { decodeResponse } from './from-proto';
import { messageSchema } from './json-schema';
import { unaryMethods, type GrpcMethod } from './methods';
import { parseProtoText } from './proto-text';
import { reflect } from './reflection';
import { grpcStatusError } from './status';
import { encodeRequest } from './to-proto';

export interface GrpcProviderOptions {
  logger: Logger;
  /** Resolves `{"secret": ...}` metadata values at call time (default: env and mounted files). */
  secrets?: SecretResolver;
  /** How long a record's discovered methods are reused before asking the server again (default 60 s). */
  discoveryTtlMs?: number;
  /** After a failed discovery, how long before the next try (default 5 s); meanwhile the last good list serves. */
  failureTtlMs?: number;
  /** Epoch ms; injected so cache tests control time (default Date.now). */
  now?: () => number;
  /**
   * Checks where a channel may connect before it dials (calls and reflection
   * alike); default: public addresses only, as HOOKS_OUTBOUND_ALLOW_NETS with
   * no entry.
   */
  guard?: Pick<OutboundGuard, 'checkedAddress'>;
  /** Told what every real discovery (reflection or .proto) found, not the cached answers: the discovery status. */
  onDiscovery?: DiscoveryListener;
}

/** One unary method as a discovered tool: `key` is its full name `pkg.Service.Method`. */
export interface GrpcTool extends DiscoveredTool {
  slug: string;
  method: GrpcMethod;
}

/** Discovery is a lookup, not the call: it never waits longer than this, whatever the record's timeout. */
const DISCOVERY_TIMEOUT_MS = 10_000;

/**
 * gRPC services (records of kind `grpc`) as a ToolProvider: one tool per
 * unary method, found through server reflection or the record's `.proto`
 * text. Discovery is cached per record (DiscoveryCache: refreshed after
 * the TTL, the last good answer kept when a refresh fails). One channel per record, reused
 * by every call and closed by `release()` or `close()`. Before a channel
 * dials, its host is resolved and checked by the outbound guard, and the
 * channel goes to the checked address (the name stays the authority and the
 * TLS server name), so loopback, link-local and private services are refused
 * unless allowed.
 */
export class GrpcProvider implements ToolProvider {
  readonly kind = 'grpc' as const;
  private readonly cache: DiscoveryCache<GrpcTool[]>;
  private readonly channels = new Map<string, { key: string; client: grpc.Client }>();
  private readonly guard: Pick<OutboundGuard, 'checkedAddress'>;
  private readonly ownGuard?: OutboundGuard;
  private readonly secrets: SecretResolver;
  private closed = false;

  constructor(private readonly options: GrpcProviderOptions) {
    this.secrets = options.secrets ?? createSecretResolver();
    if (options.guard) this.guard = options.guard;
    else this.guard = this.ownGuard = createOutboundGuard({ allowNets: [] });
    this.cache = new DiscoveryCache({
      discover: (record) => this.find(this.config(record)),
      toolsOf: (tools) => tools,
      fingerprint: (record) => {
        const c = grpcConfigOf(record);
        return JSON.stringify(typeof c === 'string' ? c : [c.address, c.tls, c.proto ?? null, c.services ?? null, c.metadata]);
      },
      messages: { kept: 'gRPC discovery failed; keeping the last good method list', none: 'gRPC service could not be discovered; its tools are not listed' },
      logger: options.logger,
      ttlMs: options.discoveryTtlMs,
      retryAfterMs: options.failureTtlMs,
      now: options.now,
      onDiscovery: options.onDiscovery,
    });
  }

  discover(record: RemoteToolRecord): Promise<GrpcTool[]> {
    if (this.closed) return Promise.reject(closedError());
    return this.cache.get(record);
  }

  /** Reflects (or parses the `.proto`) now, bypassing the cache it then fills: what registration asks. */
  check(record: RemoteToolRecord): Promise<GrpcTool[]> {
    if (this.closed) return Promise.reject(closedError());
    return this.cache.check(record);
  }

  async call(record: RemoteToolRecord, key: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const config = this.config(record);
    const tool = (await this.discover(record)).find((t) => t.key === key);
    if (!tool) throw notFound(`gRPC tool '${record.name}' has no unary method '${key}'`);
    const { method } = tool;
    const name = discoveredToolName(record.name, tool);
    if (ctx.signal.aborted) throw abortError(`tool '${name}'`, ctx.signal);
    const request = encodeRequest(method.request, args);
    const metadata = await this.metadataOf(config, `tool '${name}'`, ctx.onSecret);
    injectTrace(metadata);
    metadata.set('idempotency-key', ctx.idempotencyKey);
    const raw = await this.unary(`tool '${name}' (${method.fullName})`, config, method.path, request, metadata, ctx.signal);
    try {
      return decodeResponse(method.response, raw);
    } catch (err) {
      throw badInput(`tool '${name}' replied with bytes that are not a ${method.response.fullName.slice(1)}: ${quote(raw.toString('base64'))}`, [String(err)]);
    }
  }

  release(recordName: string): void {
    this.channels.get(recordName)?.client.close();
    this.channels.delete(recordName);
    this.cache.forget(recordName);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { client } of this.channels.values()) client.close();
    this.channels.clear();
    this.cache.clear();
    await this.ownGuard?.close();
  }

  private config(record: RemoteToolRecord): GrpcRecordConfig {
    const config = grpcConfigOf(record);
    if (typeof config === 'string') throw badInput(`gRPC tool '${record.name}': ${config}`);
    return config;
  }

  private async find(config: GrpcRecordConfig): Promise<GrpcTool[]> {
    let found: { root: import('protobufjs').Root; services: string[] };
    if (config.proto !== undefined) {
      const parsed = parseProtoText(config.proto);
      if (!parsed.ok) throw badInput(`gRPC tool '${config.name}': proto does not parse: ${parsed.errors.join('; ')}`);
      found = parsed;
    } else {
      const what = `gRPC tool '${config.name}'`;
      found = await reflect(await this.channel(config), what, await this.metadataOf(config, what), Math.min(config.timeoutMs, DISCOVERY_TIMEOUT_MS));
    }
    let services = found.services;
    if (config.services) {
      const missing = config.services.filter((s) => !found.services.includes(s));
      if (missing.length > 0) this.options.logger.warn({ tool: config.name, missing }, 'gRPC services in the allowlist are not offered by the server');
      services = services.filter((s) => config.services?.includes(s));
    }
    return unaryMethods(config.name, found.root, services, this.options.logger).map((method) => ({
      key: method.fullName,
      slug: method.slug,
      description: method.comment ? `${method.fullName}: ${method.comment}` : method.fullName,
      parameters: messageSchema(method.request),
      method,
    }));
  }

  /**
   * The record's channel, made on first use and replaced when the endpoint or
   * the address its host resolves to changes. The host is resolved and checked
   * on every use (a refusal is `forbidden`, notSent) and the channel dials the
   * checked address itself, never the name: no second lookup to rebind.
   */
  private async channel(config: GrpcRecordConfig): Promise<grpc.Client> {
    if (this.closed) throw closedError();
    const colon = config.address.lastIndexOf(':');
    const host = config.address.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = config.address.slice(colon + 1);
    const checked = await this.guard.checkedAddress(host);
    if (this.closed) throw closedError();
    const target = checked.family === 6 ? `[${checked.address}]:${port}` : `${checked.address}:${port}`;
    const key = `${config.tls ? 'tls' : 'plain'}:${config.address}:${target}`;
    const have = this.channels.get(config.name);
    if (have?.key === key) return have.client;
    have?.client.close();
    // A proxy from the environment would dial somewhere the guard never checked.
    const options: grpc.ChannelOptions = { 'grpc.enable_http_proxy': 0 };
    if (!isIP(host)) {
      options['grpc.default_authority'] = config.address;
      if (config.tls) options['grpc.ssl_target_name_override'] = host;
    }
    const client = new grpc.Client(target, config.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(), options);
    this.channels.set(config.name, { key, client });
    return client;
  }

  /** The record's metadata with every secret reference resolved now (a rotated secret is picked up on the next call). */
  private async metadataOf(config: GrpcRecordConfig, what: string, told?: SecretTold): Promise<grpc.Metadata> {
    const md = new grpc.Metadata();
    const values = await resolveStringMap(this.secrets, what, 'metadata', config.metadata, metadataSafe, told);
    for (const [k, v] of Object.entries(values)) md.set(k, v);
    return md;
  }

  private async unary(what: string, config: GrpcRecordConfig, path: string, request: Buffer, metadata: grpc.Metadata, signal: AbortSignal): Promise<Buffer> {
    const client = await this.channel(config);
    return new Promise<Buffer>((resolve, reject) => {
      const call = client.makeUnaryRequest<Buffer, Buffer>(
        path,
        (b) => b,
        (b) => b,
        request,
        metadata,
        { deadline: Date.now() + config.timeoutMs },
        (err, value) => {
          signal.removeEventListener('abort', onAbort);
          if (err) reject(signal.aborted ? abortError(what, signal, err) : grpcStatusError(what, err));
          else resolve(value ?? Buffer.alloc(0));
        },
      );
      const onAbort = () => call.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The caller's abort keeps its reason, as for HTTP tools: a time bound is `timeout`, a shutdown `cancelled`. */
function abortError(what: string, signal: AbortSignal, cause?: unknown): HookyardError {
  const reason: unknown = signal.reason;
  const kind = reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'cancelled';
  return new HookyardError(kind, `${what} was aborted: ${reason instanceof Error ? reason.message : String(reason)}`, { cause });
}
