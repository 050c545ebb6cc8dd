import { HookyardError, badInput } from '@hookyard/core';
import type { Hook, Logger } from '@hookyard/core';
import type { RedisClient } from './client';
import { hookRevision } from '../hook-revision';
import { MAX_HOOKS_PER_EVENT } from '../run-ids';
import type { KeyLayout } from './keys';
import { ensureListIndexLayout } from './list-indexes';
import { copyPolicyVersion } from './policy-copies';
import type { Scripts } from './scripts';
import { storeError } from './replies';

const PASSED = Promise.resolve();

/**
 * What the store checks and prepares in Redis before its first run or hook
 * write, once per process:
 *
 * - The partition count: recorded in `{P}:meta` on first start; a process
 *   configured with another count is refused (HookyardError `bad_input`), since
 *   runs in partitions it does not know would never be swept or found. Data
 *   kept before the count was recorded is probed: runs in partition N (N = the
 *   configured count) show it was larger, and start is refused too.
 * - The per-partition copies of the topic hook indexes (keep_event reads
 *   them): built once from `{P}:hooks` when `{P}:meta` does not say they exist
 *   (data written before the copies were introduced). Cheap when there are no
 *   hooks. Run the first start of this version with hook changes paused.
 * - The per-partition hook revisions (the claim answers them): recorded once
 *   from `{P}:hooks` the same way when `{P}:meta` does not say they exist.
 *   Until then a claim answers no revision, and the executor reads the hook.
 * - The run list indexes: the combined status+hook and status+topic indexes
 *   of versions before issue 36 removed once (list-indexes.ts), recorded in
 *   `{P}:meta` `list_indexes`.
 *
 * `createRedisStores` runs it at start; when Redis is unreachable then, start
 * goes on and every later call runs it first (failing `unavailable` as the
 * call itself would), until it succeeds once. A refusal sticks.
 */
export class StoreSetup {
  private done: Promise<void> | null = null;
  /** Set once the checks passed: later calls skip the promise chain. */
  private passed = false;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: KeyLayout,
    private readonly partitions: number,
    private readonly scripts: Scripts,
    private readonly logger?: Logger,
  ) {}

  /** Resolves once the checks passed; `op` names the call in an `unavailable` error. */
  ready(op: string): Promise<void> {
    if (this.passed) return PASSED;
    if (!this.done) {
      this.done = this.run()
        .then(() => void (this.passed = true))
        .catch((err: unknown) => {
          const e = storeError(op, err);
          if (e.kind === 'unavailable') this.done = null;
          throw e;
        });
    }
    return this.done.catch((err: unknown) => {
      throw err instanceof HookyardError && err.kind === 'unavailable' ? storeError(op, err.cause ?? err) : err;
    });
  }

  private async run(): Promise<void> {
    await this.checkPartitions();
    await this.ensureHookCopies();
    await this.ensureHookRevisions();
    await this.ensurePolicyVersions();
    await this.ensureListIndexes();
  }

  private async checkPartitions(): Promise<void> {
    const meta = this.keys.meta;
    let stored = await this.client.hget(meta, 'partitions');
    if (stored === null) {
      const beyond = await this.highestPartitionInUse();
      if (beyond >= this.partitions) throw this.mismatch(`at least ${beyond + 1} (runs found in partition ${beyond})`);
      await this.client.hsetnx(meta, 'partitions', this.partitions);
      stored = await this.client.hget(meta, 'partitions');
    }
    if (Number(stored) !== this.partitions) throw this.mismatch(String(stored));
  }

  /** Partitions kept before the count was recorded: the highest one at or past the configured count holding runs, else -1. */
  private async highestPartitionInUse(): Promise<number> {
    let highest = -1;
    for (let p = this.partitions; p < MAX_HOOKS_PER_EVENT; p += 1) {
      if ((await this.client.exists(this.keys.index(p, 'all'))) === 0) break;
      highest = p;
    }
    return highest;
  }

  private mismatch(stored: string): HookyardError {
    return badInput(
      `HOOKS_RUN_PARTITIONS is ${this.partitions} but the runs under redis prefix ${this.keys.prefix} were kept with ` +
        `${stored} partitions; runs in partitions this process does not know would never be swept or found. ` +
        `Set HOOKS_RUN_PARTITIONS to the stored value on every process.`,
    );
  }

  private async ensureHookCopies(): Promise<void> {
    if ((await this.client.hget(this.keys.meta, 'hook_copies')) !== null) return;
    const hooks = Object.values(await this.client.hgetall(this.keys.hooks)).map((raw) => JSON.parse(raw) as Hook);
    await Promise.all(hooks.flatMap((h) => Array.from({ length: this.partitions }, (_, p) => this.client.zadd(this.keys.topicHooks(p, h.topic), 0, h.name))));
    await this.client.hset(this.keys.meta, 'hook_copies', 1);
    if (hooks.length > 0) {
      this.logger?.info({ hooks: hooks.length, partitions: this.partitions }, 'redis store: built the per-partition topic hook copies');
    }
  }

  /** The approval policy's version in every partition's slot (kept before planned claims existed). */
  private async ensurePolicyVersions(): Promise<void> {
    if ((await this.client.hget(this.keys.meta, 'policy_versions')) !== null) return;
    const version = (await this.client.hget(this.keys.approvalPolicy, 'version')) ?? '0';
    await Promise.all(Array.from({ length: this.partitions }, (_, p) => copyPolicyVersion(this.scripts, this.keys, p, version)));
    await this.client.hset(this.keys.meta, 'policy_versions', 1);
  }

  /** The run list indexes in this version's layout: the combined ones of earlier versions removed (list-indexes.ts). */
  private async ensureListIndexes(): Promise<void> {
    const removed = await ensureListIndexLayout(this.client, this.keys, this.partitions);
    if (removed > 0) this.logger?.info({ removed }, 'redis store: removed the combined run list indexes (status+hook, status+topic) of an earlier version');
  }

  private async ensureHookRevisions(): Promise<void> {
    if ((await this.client.hget(this.keys.meta, 'hook_revisions')) !== null) return;
    const records = Object.entries(await this.client.hgetall(this.keys.hooks));
    await Promise.all(
      records.flatMap(([name, raw]) =>
        Array.from({ length: this.partitions }, (_, p) => this.client.hset(this.keys.hookRevisions(p), name, hookRevision(raw))),
      ),
    );
    await this.client.hset(this.keys.meta, 'hook_revisions', 1);
    if (records.length > 0) {
      this.logger?.info({ hooks: records.length, partitions: this.partitions }, 'redis store: recorded the per-partition hook revisions');
    }
  }
}
