import Redis from 'ioredis';
import { createRedisStores } from '../src';
import type { Stores } from '../src';
import { requireRedis, uniquePrefix } from '../../../test/support/services';
import { describeHookStoreConformance, describeRunListConformance, describeRunStoreConformance } from './conformance';
import { T0, hook, rejection } from './fixtures';

const suitePrefix = uniquePrefix('store');
let url = '';
let n = 0;
/** Three partitions, so paging and sweeps cross partitions. */
const factory = async (): Promise<Stores> => createRedisStores({ url, prefix: `${suitePrefix}x${(n += 1)}`, partitions: 3 });

beforeAll(async () => {
  url = await requireRedis();
});

afterAll(async () => {
  const admin = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `{${suitePrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await admin.del(...keys);
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
});

describeRunStoreConformance('redis', factory);
describeRunListConformance('redis', factory);
describeHookStoreConformance('redis', factory);

describe('redis specifics', () => {
  it('spreads events over partitions; a run id names its partition', async () => {
    const s = await factory();
    try {
      await s.hooks.putHook(hook('h', 't'));
      const ids: string[] = [];
      for (let i = 0; i < 30; i += 1) ids.push(...(await s.runs.keepEvent({ topic: 't', payload: { i }, now: T0 + i, dispatchGraceMs: 0 })).map((k) => k.id));
      expect(new Set(ids.map((id) => id.slice(22, 24))).size).toBeGreaterThan(1);
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await s.runs.list({ topic: 't' }, 7, cursor);
        listed.push(...page.runs.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toEqual([...ids].sort().reverse());
    } finally {
      await s.close();
    }
  });

  it('a store whose Redis is unreachable refuses keepEvent with unavailable, and fast', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused.
    const s = await createRedisStores({ url: 'redis://127.0.0.1:1', prefix: suitePrefix, partitions: 2 });
    try {
      const e = await rejection(s.runs.keepEvent({ topic: 't', payload: {}, now: T0, dispatchGraceMs: 0 }));
      expect(e.kind).toBe('unavailable');
      expect(e.message).toContain('keep_event');
      expect((await rejection(s.ping())).kind).toBe('unavailable');
      expect((await rejection(s.hooks.claimDelivery('t', 'd', 1000))).kind).toBe('unavailable');
    } finally {
      await s.close();
    }
  }, 4_000);

  it('rejects a prefix with braces and a partition count out of range', async () => {
    expect((await rejection(createRedisStores({ url, prefix: 'a{b', partitions: 1 }))).kind).toBe('bad_input');
    expect((await rejection(createRedisStores({ url, prefix: 'ok', partitions: 0 }))).kind).toBe('bad_input');
  });
});
