/**
 * The store conformance suites against a real three-master Redis Cluster
 * (started from redis-server binaries): a cluster refuses any script or
 * command whose keys span slots (CROSSSLOT), so passing here proves the key
 * layout slot-safe, not just assumed. The keys end up on every master.
 */
import { Cluster } from 'ioredis';
import type { StateStore } from '@hookyard/core';
import { createRedisStores, migrateFreeFormStates } from '../src';
import type { Stores } from '../src';
import { keysPerNode, startRedisCluster, type RedisCluster } from '../../../test/support/clusters';
import { uniquePrefix } from '../../../test/support/services';
import {
  describeBucketConformance,
  describeDeclarationConformance,
  describeHookStoreConformance,
  describeInteractionConformance,
  describeRunListConformance,
  describeRunStoreConformance,
} from './conformance';
import { T0, hook } from './fixtures';

let cluster: RedisCluster | undefined;
const suitePrefix = uniquePrefix('cstore');
let n = 0;
/** Three partitions (three hash tags per prefix), so paging and sweeps cross slots and nodes. */
const factory = async (): Promise<Stores> => createRedisStores({ url: cluster!.url, cluster: true, prefix: `${suitePrefix}x${(n += 1)}`, partitions: 3 });

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

describeRunStoreConformance('redis cluster', factory);
describeRunListConformance('redis cluster', factory);
describeHookStoreConformance('redis cluster', factory);
describeDeclarationConformance('redis cluster', factory);
describeInteractionConformance('redis cluster', factory);
describeBucketConformance('redis cluster', factory);

describe('redis cluster: the proof is real', () => {
  it('the cluster refuses keys of two partitions in one script, so every script above kept to one slot', async () => {
    const admin = new Cluster([{ host: '127.0.0.1', port: Number(new URL(cluster!.url).port) }]);
    try {
      const err = await admin.eval("return redis.call('GET', KEYS[1])", 2, `{${suitePrefix}:p0}:x`, `{${suitePrefix}:p1}:x`).then(
        () => null,
        (e: Error) => e,
      );
      expect(String(err)).toMatch(/CROSSSLOT/);
    } finally {
      admin.disconnect();
    }
  });

  it('spreads a deployment over all three masters', async () => {
    const s = await createRedisStores({ url: cluster!.url, cluster: true, prefix: `${suitePrefix}spread`, partitions: 12 });
    try {
      await s.hooks.putHook(hook('h', 't'));
      for (let i = 0; i < 60; i += 1) await s.runs.keepEvent({ topic: 't', payload: { i }, now: T0 + i, dispatchGraceMs: 0 });
      const page = await s.runs.list({ topic: 't' }, 100, null);
      expect(page.runs).toHaveLength(60);
    } finally {
      await s.close();
    }
    const perNode = await keysPerNode(cluster!);
    expect(perNode.every((k) => k > 0)).toBe(true);
  });

  it('start removes the combined list indexes of an earlier version from every master, and lists answer the same', async () => {
    const prefix = `${suitePrefix}ixup`;
    const s = await createRedisStores({ url: cluster!.url, cluster: true, prefix, partitions: 12 });
    const admin = new Cluster([{ host: '127.0.0.1', port: Number(new URL(cluster!.url).port) }]);
    try {
      await s.hooks.putHook(hook('h', 't'));
      for (let i = 0; i < 24; i += 1) await s.runs.keepEvent({ topic: 't', payload: { i }, now: T0 + i, dispatchGraceMs: 0 });
      const listed = (await s.runs.list({ status: 'pending', hook: 'h' }, 100)).runs.map((r) => r.id);
      expect(listed).toHaveLength(24);
      // As the earlier version kept them, in each run's partition (12 hash tags over the three masters).
      const combined = listed.flatMap((id) => {
        const tag = `{${prefix}:p${Number.parseInt(id.slice(22, 24), 36)}}`;
        return [`${tag}:ix:sh:pending:h`, `${tag}:ix:st:pending:t`].map((key) => ({ key, id }));
      });
      for (const { key, id } of combined) await admin.zadd(key, 0, id);
      await admin.hdel(`{${prefix}}:meta`, 'list_indexes');
      const again = await createRedisStores({ url: cluster!.url, cluster: true, prefix, partitions: 12 });
      try {
        expect(await Promise.all(combined.map(({ key }) => admin.exists(key)))).toEqual(combined.map(() => 0));
        expect((await again.runs.list({ status: 'pending', hook: 'h' }, 100)).runs.map((r) => r.id)).toEqual(listed);
      } finally {
        await again.close();
      }
    } finally {
      admin.disconnect();
      await s.close();
    }
  });

  it('the upgrade finds the kinds holding documents on every master, and declares them open', async () => {
    const s = await createRedisStores({ url: cluster!.url, cluster: true, prefix: `${suitePrefix}upgrade`, partitions: 3 });
    try {
      const kinds = Array.from({ length: 12 }, (_, i) => `k${i}`);
      // Written as the code before declared states wrote them: put_state, under the declaration checks.
      const kept = (s.states as unknown as { inner: StateStore }).inner;
      for (const kind of kinds) await kept.set({ scope: 'gh', kind, key: 'x' }, { a: 1 }, { door: 'api', actor: 'operator:x', hook: null, now: T0 });
      expect((await s.states.kinds()).map((k) => k.kind).sort()).toEqual([...kinds].sort());
      const m = await migrateFreeFormStates(s, T0);
      expect(m.declared).toEqual(kinds.map((k) => `gh/${k}`).sort());
    } finally {
      await s.close();
    }
  });
});
