/**
 * The upgrade of a Redis store written before issue 36, whose run list indexes
 * had combined status+hook and status+topic sets beside all, h, t and s (which
 * it kept as today's code does). Start-up removes the combined ones once; the
 * lists answer the same before and after, and nothing else is touched.
 */
import Redis from 'ioredis';
import type { Run } from '@hookyard/core';
import { createRedisStores } from '../src';
import type { RunFilter, Stores } from '../src';
import { requireRedis, uniquePrefix } from '../../../test/support/services';
import { T0, hook } from './fixtures';

const prefix = uniquePrefix('ixup');
/** Another deployment whose prefix starts with this one's and `:p`: the removal must not take its keys. */
const neighbour = `${prefix}:pz`;

async function keysOf(admin: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out.sort();
}

async function pages(s: Stores, filter: RunFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i += 1) {
    const page = await s.runs.list(filter, limit, cursor);
    ids.push(...page.runs.map((r) => r.id));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error('list never ended');
}

const FILTERS: RunFilter[] = [
  {},
  { status: 'pending' },
  { status: 'succeeded', hook: 'a' },
  { status: 'pending', topic: 'orders' },
  { status: 'running', hook: 'b', topic: 'orders' },
  { status: 'failed', topic: 'users' },
  { hook: 'u', topic: 'users' },
  { hook: 'a', topic: 'users' },
];

describe('redis: the combined list indexes of an earlier version removed at start', () => {
  let url = '';
  let admin: Redis;
  const open: Stores[] = [];
  const start = async () => {
    const s = await createRedisStores({ url, prefix, partitions: 3 });
    open.push(s);
    return s;
  };
  beforeAll(async () => {
    url = await requireRedis();
    admin = new Redis(url);
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    for (const k of [...(await keysOf(admin, `{${prefix}*`)), ...(await keysOf(admin, `{${neighbour}*`))]) await admin.del(k);
    admin.disconnect();
  });

  it('lists answer the same runs in the same order, the stale keys are gone, nothing else is, and it runs once', async () => {
    const s = await start();
    for (const [name, topic] of [
      ['a', 'orders'],
      ['b', 'orders'],
      ['u', 'users'],
    ] as const)
      await s.hooks.putHook(hook(name, topic));
    const ids: string[] = [];
    for (let i = 0; i < 18; i += 1) {
      const kept = await s.runs.keepEvent({ topic: i % 3 === 0 ? 'users' : 'orders', payload: { i }, now: T0 + i, dispatchGraceMs: 0 });
      ids.push(...kept.map((k) => k.id));
    }
    for (const [i, id] of ids.entries()) {
      if (i % 3 === 0) continue;
      const c = await s.runs.claim(id, 'w', 60_000, T0 + 100);
      if (i % 3 === 1) await s.runs.complete(id, c!.token, 'succeeded', null, T0 + 101);
      else if (i % 4 === 2) await s.runs.fail(id, c!.token, { kind: 'bad_input', message: 'no' }, T0 + 101);
    }
    const runs = (await Promise.all(ids.map((id) => s.runs.get(id)))).map((r) => r!);
    const want = (f: RunFilter) =>
      runs
        .filter((r: Run) => (!f.status || r.status === f.status) && (!f.hook || r.hook === f.hook) && (!f.topic || r.topic === f.topic))
        .map((r) => r.id)
        .sort()
        .reverse();
    expect(new Set(runs.map((r) => r.status))).toEqual(new Set(['pending', 'running', 'succeeded', 'failed']));

    // The combined indexes as the earlier version kept them: each run in the set of its status and hook, and of its status and topic.
    const combined = new Set<string>();
    for (const r of runs) {
      const tag = `{${prefix}:p${Number.parseInt(r.id.slice(22, 24), 36)}}`;
      for (const key of [`${tag}:ix:sh:${r.status}:${r.hook}`, `${tag}:ix:st:${r.status}:${r.topic}`]) {
        await admin.zadd(key, 0, r.id);
        combined.add(key);
      }
    }
    await admin.zadd(`{${neighbour}:p0}:ix:sh:pending:a`, 0, 'x');
    await admin.hdel(`{${prefix}}:meta`, 'list_indexes');
    const before = await keysOf(admin, `{${prefix}*`);
    expect(before).toEqual(expect.arrayContaining([...combined]));
    // Today's code over the earlier layout (an older replica's data, before the removal ran): the same answers.
    for (const f of FILTERS) expect([f, await pages(s, f, 2)]).toEqual([f, want(f)]);

    await start();
    const after = await keysOf(admin, `{${prefix}*`);
    expect(after).toEqual(before.filter((k) => !combined.has(k)));
    expect(after.filter((k) => /:ix:s[ht]:/.test(k))).toEqual([`{${neighbour}:p0}:ix:sh:pending:a`]);
    expect(await admin.exists(`{${neighbour}:p0}:ix:sh:pending:a`)).toBe(1);
    expect(await admin.hget(`{${prefix}}:meta`, 'list_indexes')).toBe('2');
    for (const f of FILTERS) expect([f, await pages(s, f, 2)]).toEqual([f, want(f)]);

    // Recorded: a later start leaves a combined key an older replica wrote after the removal.
    const late = `{${prefix}:p0}:ix:sh:pending:a`;
    await admin.zadd(late, 0, ids[0]!);
    await start();
    expect(await admin.exists(late)).toBe(1);
  });
});
