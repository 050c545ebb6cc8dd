import type { ApprovalPolicy, Clock, Hook } from '@hookyard/core';
import type { HookStore } from '@hookyard/store';

export interface HookCacheOptions {
  /** Records kept at most; the least recently read goes first (default 1,000). */
  maxEntries?: number;
  /**
   * A kept record is read again after this long even when the claim answers
   * its revision (default 10 s): a bound on how long a hook write that failed
   * part way (its record written, the partitions' revisions not) can go unseen.
   */
  maxAgeMs?: number;
}

interface Entry {
  revision: string;
  hook: Hook;
  readAt: number;
}

/**
 * The hook records this executor read, by revision. A claim answers the
 * current revision of its run's hook (the store's `Claimed.hookRevision`);
 * when the kept record has that revision it is the record the store holds
 * and is used as it is, saving the read between the claim and the tool.
 * Any other revision, or none, reads the record (concurrent reads of one hook
 * share one). Records are frozen: an attempt never changes its hook.
 */
export class HookCache {
  private readonly entries = new Map<string, Entry>();
  private readonly reading = new Map<string, Promise<Hook | null>>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;

  constructor(
    private readonly store: Pick<HookStore, 'getHook' | 'getHookRevision'>,
    private readonly clock: Clock,
    options: HookCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 1_000;
    this.maxAgeMs = options.maxAgeMs ?? 10_000;
  }

  /** Hook `name` as the store holds it at `revision` (the claim's); null when it is gone. */
  async get(name: string, revision: string | null): Promise<Hook | null> {
    if (revision === null) {
      // No revision known (a hook written before revisions existed, or gone): read, keep nothing.
      this.entries.delete(name);
      return this.store.getHook(name);
    }
    const kept = this.entries.get(name);
    if (kept && kept.revision === revision && this.clock.now() - kept.readAt < this.maxAgeMs) return kept.hook;
    return this.readShared(`${name}\n${revision}`, name);
  }

  /**
   * The record of hook `name` this executor knows, with its revision, read
   * when none is kept or it is older than maxAgeMs: what a plan made before
   * the claim uses (the claim then applies it only if the store still holds
   * that revision). Null when the hook is gone.
   */
  async current(name: string): Promise<{ hook: Hook; revision: string } | null> {
    const kept = this.entries.get(name);
    if (kept && this.clock.now() - kept.readAt < this.maxAgeMs) return kept;
    await this.readShared(`${name}\n`, name);
    return this.entries.get(name) ?? null;
  }

  /** Reads hook `name`, sharing one read among the concurrent callers asking under `key`. */
  private readShared(key: string, name: string): Promise<Hook | null> {
    let read = this.reading.get(key);
    if (!read) {
      read = this.read(name).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    return read;
  }

  /** How many records are kept (tests). */
  get size(): number {
    return this.entries.size;
  }

  private async read(name: string): Promise<Hook | null> {
    const readAt = this.clock.now();
    const got = await this.store.getHookRevision(name);
    this.entries.delete(name);
    if (!got) return null;
    const hook = deepFreeze(got.hook);
    this.entries.set(name, { revision: got.revision, hook, readAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return hook;
  }
}

/**
 * The deployment's approval policy as this executor last read it, for plans
 * made before a claim: the claim applies such a plan only while the policy is
 * still at the version it was decided with, so a kept copy can never decide
 * for a newer policy. Read again when older than maxAgeMs (10 s) or forgotten
 * (a claim refused a plan); concurrent reads share one.
 */
export class PolicyCache {
  private kept: { policy: ApprovalPolicy; readAt: number } | null = null;
  private reading: Promise<ApprovalPolicy> | null = null;

  constructor(
    private readonly store: Pick<HookStore, 'getApprovalPolicy'>,
    private readonly clock: Clock,
    private readonly maxAgeMs = 10_000,
  ) {}

  async current(): Promise<ApprovalPolicy> {
    if (this.kept && this.clock.now() - this.kept.readAt < this.maxAgeMs) return this.kept.policy;
    if (!this.reading) {
      const readAt = this.clock.now();
      this.reading = this.store
        .getApprovalPolicy()
        .then((policy) => {
          this.kept = { policy: deepFreeze(policy), readAt };
          return this.kept.policy;
        })
        .finally(() => (this.reading = null));
    }
    return this.reading;
  }

  forget(): void {
    this.kept = null;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
