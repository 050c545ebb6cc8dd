import { toHookyardError, unavailable, type HookyardError, type Logger, type RemoteToolRecord } from '@hookyard/core';
import type { DiscoveredTool, DiscoveryListener } from './types';

/** How long a discovery is reused before the service is asked again (60 s). */
export const DEFAULT_DISCOVERY_TTL_MS = 60_000;
/** After a failed discovery, how long before the next try (5 s); meanwhile the last good answer serves. */
export const DEFAULT_RETRY_AFTER_MS = 5_000;

export interface DiscoveryCacheOptions<T> {
  /** Asks the service now: a document fetch, a tool listing, a reflection. */
  discover(record: RemoteToolRecord): Promise<T>;
  /** The tools an answer offers: what the discovery status counts. */
  toolsOf(found: T): readonly Pick<DiscoveredTool, 'key' | 'slug'>[];
  /** What a discovery depends on; a record whose fingerprint changed starts over. */
  fingerprint(record: RemoteToolRecord): string;
  /** The error a failed discovery is remembered as (default: as it was thrown). */
  failure?(err: unknown): HookyardError;
  /** The warnings a failed discovery logs: with a last good answer kept, and with none. */
  messages: { kept: string; none: string };
  logger: Logger;
  ttlMs?: number;
  retryAfterMs?: number;
  /** Epoch ms (default Date.now). */
  now?: () => number;
  /** Told the outcome of every real discovery, never of a cached answer. */
  onDiscovery?: DiscoveryListener;
}

interface Entry<T> {
  fingerprint: string;
  found?: T;
  at: number;
  failedAt?: number;
  error?: HookyardError;
  inflight?: Promise<void>;
}

/**
 * The discovery cache every provider keeps, one policy for all kinds: an
 * answer is reused for `ttlMs`; a failed refresh keeps the last good answer
 * (logged) and is not tried again before `retryAfterMs`; concurrent lookups
 * share one discovery; a changed registration starts over.
 */
export class DiscoveryCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly ttlMs: number;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly options: DiscoveryCacheOptions<T>) {
    this.ttlMs = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    this.retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    this.now = options.now ?? Date.now;
  }

  /** The record's answer: cached while fresh, else discovered now (or the last good one when that fails). */
  async get(record: RemoteToolRecord): Promise<T> {
    const entry = this.entry(record);
    const now = this.now();
    const fresh = entry.found !== undefined && now - entry.at < this.ttlMs;
    const resting = entry.failedAt !== undefined && now - entry.failedAt < this.retryAfterMs;
    if (!fresh && !resting) {
      entry.inflight ??= this.refresh(record, entry).finally(() => {
        entry.inflight = undefined;
      });
      await entry.inflight;
    }
    if (entry.found !== undefined) return entry.found;
    throw entry.error ?? unavailable(`tool '${record.name}' has not been discovered`);
  }

  /** The record's current answer, if any, without asking the service. */
  peek(record: RemoteToolRecord): T | undefined {
    const entry = this.entries.get(record.name);
    return entry && entry.fingerprint === this.options.fingerprint(record) ? entry.found : undefined;
  }

  /**
   * Discovers now, bypassing the cache (which it then fills): what
   * registration asks. Throws what went wrong as it was thrown.
   */
  async check(record: RemoteToolRecord): Promise<T> {
    let found: T;
    try {
      found = await this.options.discover(record);
    } catch (err) {
      this.options.onDiscovery?.(record, { error: toHookyardError(err) });
      throw err;
    }
    this.options.onDiscovery?.(record, { tools: this.options.toolsOf(found) });
    this.entries.set(record.name, { fingerprint: this.options.fingerprint(record), found, at: this.now() });
    return found;
  }

  forget(name: string): void {
    this.entries.delete(name);
  }

  clear(): void {
    this.entries.clear();
  }

  private entry(record: RemoteToolRecord): Entry<T> {
    const fingerprint = this.options.fingerprint(record);
    let entry = this.entries.get(record.name);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = { fingerprint, at: 0 };
      this.entries.set(record.name, entry);
    }
    return entry;
  }

  private async refresh(record: RemoteToolRecord, entry: Entry<T>): Promise<void> {
    try {
      const found = await this.options.discover(record);
      Object.assign(entry, { found, at: this.now(), failedAt: undefined, error: undefined });
      this.options.onDiscovery?.(record, { tools: this.options.toolsOf(found) });
    } catch (err) {
      entry.error = this.options.failure ? this.options.failure(err) : toHookyardError(err);
      entry.failedAt = this.now();
      this.options.onDiscovery?.(record, { error: entry.error });
      const kept = entry.found !== undefined;
      this.options.logger.warn({ err: entry.error, tool: record.name, kept }, kept ? this.options.messages.kept : this.options.messages.none);
    }
  }
}
