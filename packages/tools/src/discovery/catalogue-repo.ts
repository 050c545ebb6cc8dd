import { internal, unavailable, type Logger, type RemoteToolRecord, type ToolStore } from '@hookyard/core';
import type { JsonSchema, ToolInfo, ToolRepo } from '../types';
import { providerOf } from '../provider/naming';
import { DISCOVERED_KINDS } from './answer';
import { fromWireError, malformedAnswer, type CatalogueAnswer, type DiscoverAnswer, type DiscoveryRequest, type WireError } from './wire';

export interface CatalogueRepoOptions {
  /** Sends a request to an executor and returns its answer (the bus's DiscoveryRequester). */
  ask: (request: DiscoveryRequest, timeoutMs: number) => Promise<unknown>;
  /** How long an executor may take to answer (HOOKS_DISCOVERY_TIMEOUT_SECONDS). */
  timeoutMs: number;
  toolStore: ToolStore;
  logger: Logger;
  /** How long one catalogue answer is reused (default 1000 ms). */
  cacheMs?: number;
  now?: () => number;
}

const DEFAULT_CACHE_MS = 1000;
/** How long a pending registration outlives the ingress's wait for its discovery. */
const PENDING_GRACE_MS = 10_000;

/**
 * The registered tools as the executors describe them, for a process that
 * must not reach the services itself (the ingress): names and schemas come
 * from the executors' `catalogue` answer (reused for `cacheMs`; when no
 * executor answers, the last good one is used), and `discoverRecord` asks an
 * executor to read a registration now. With no answer ever, an HTTP service is
 * described from its record alone (no `/schema`: arguments unchecked, as when
 * the service's own `/schema` cannot be read), and a tool of an openapi, mcp
 * or grpc registration throws the executors' silence (`unavailable`, 503).
 * It never calls a tool.
 */
export class CatalogueRepo implements ToolRepo {
  private last: { at: number; tools: ToolInfo[] } | null = null;
  private pending: Promise<ToolInfo[]> | null = null;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(private readonly options: CatalogueRepoOptions) {
    this.cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
    this.now = options.now ?? Date.now;
  }

  async exec(name: string): Promise<unknown> {
    throw internal(`tool '${name}' cannot be called here: this process only describes registered tools (the executors call them)`);
  }

  async names(): Promise<string[]> {
    const all = await this.catalogueOrNone();
    if (all) return all.map((t) => t.name);
    return (await this.options.toolStore.listTools()).filter((r) => r.kind === 'http').map((r) => r.name);
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    return (await this.tools(name)).find((t) => t.name === name)?.parameters;
  }

  /** A registration's name lists its tools; a tool's name lists that one. Only names a stored record could own are asked about. */
  async tools(providerName: string): Promise<ToolInfo[]> {
    const owner = (await this.options.toolStore.getTool(providerName)) ?? (await this.ownerOf(providerName));
    if (!owner) return [];
    if (owner.kind === 'http') {
      const all = await this.catalogueOrNone();
      return all ? all.filter((t) => t.name === providerName) : [recordOnly(owner)];
    }
    const all = await this.catalogue();
    if (owner.name === providerName) return all.filter((t) => providerOf(t.name) === providerName);
    return all.filter((t) => t.name === providerName);
  }

  /**
   * Asks an executor to discover `record`, a registration `POST /api/tools`
   * has validated (its only caller): the record goes to the tool store as a
   * pending registration for a short while and the request names it by its
   * random id, so the executor reads what the store holds, never a record
   * from the wire.
   */
  async discoverRecord(record: Parameters<NonNullable<ToolRepo['discoverRecord']>>[0]): Promise<string[] | undefined> {
    if (!DISCOVERED_KINDS.has(record.kind)) return undefined;
    const { timeoutMs } = this.options;
    // Longer than the wait: an executor that takes it late finds it, and the store drops it soon after.
    const pending = await this.options.toolStore.putPendingTool(record, timeoutMs + PENDING_GRACE_MS);
    const answer = (await this.options.ask({ op: 'discover', pending }, timeoutMs)) as DiscoverAnswer | null;
    // The catalogue changes with the registration that follows: ask again next time.
    this.last = this.last && { ...this.last, at: -Infinity };
    if (answer?.ok === true && Array.isArray(answer.tools)) return answer.tools;
    if (answer?.ok === false && isWireError(answer.error)) throw fromWireError(answer.error);
    throw malformedAnswer('discover');
  }

  private async ownerOf(toolName: string) {
    const provider = providerOf(toolName);
    const record = provider === undefined ? null : await this.options.toolStore.getTool(provider);
    return record && DISCOVERED_KINDS.has(record.kind) ? record : null;
  }

  /** The catalogue, or null (logged) when the executors never answered. */
  private async catalogueOrNone(): Promise<ToolInfo[] | null> {
    try {
      return await this.catalogue();
    } catch (err) {
      this.options.logger.warn({ err }, 'the executors did not describe the registered tools; HTTP services are described from their records alone');
      return null;
    }
  }

  /** The executors' catalogue: fresh within cacheMs, else asked (one request at a time); the last good one when they do not answer. */
  private async catalogue(): Promise<ToolInfo[]> {
    if (this.last && this.now() - this.last.at < this.cacheMs) return this.last.tools;
    this.pending ??= this.fetch().finally(() => {
      this.pending = null;
    });
    try {
      return await this.pending;
    } catch (err) {
      if (!this.last) throw err;
      this.options.logger.warn({ err }, 'the executors did not describe the registered tools; the last catalogue they gave stays in use');
      return this.last.tools;
    }
  }

  private async fetch(): Promise<ToolInfo[]> {
    const answer = (await this.options.ask({ op: 'catalogue' }, this.options.timeoutMs)) as CatalogueAnswer | null;
    if (answer?.ok === true && Array.isArray(answer.tools)) {
      this.last = { at: this.now(), tools: answer.tools };
      return answer.tools;
    }
    if (answer?.ok === false && isWireError(answer.error)) {
      const e = fromWireError(answer.error);
      throw e.kind === 'unavailable' ? e : unavailable(`the executors could not describe the registered tools: ${e.message}`, e);
    }
    throw malformedAnswer('catalogue');
  }
}

/** An HTTP service as its record alone describes it (its `/schema` is read by the executors). */
function recordOnly(record: RemoteToolRecord): ToolInfo {
  const info: ToolInfo = {
    name: record.name,
    description: record.description ?? '',
    parameters: { type: 'object' },
    provider: 'http',
    crashResumable: record.crash_resumable ?? false,
  };
  if (record.retry) info.retry = record.retry;
  return info;
}

function isWireError(e: unknown): e is WireError {
  return e !== null && typeof e === 'object' && typeof (e as WireError).kind === 'string' && typeof (e as WireError).message === 'string';
}
