import { ManualClock } from '@hookyard/core';
import type { Hook } from '@hookyard/core';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { HookCache } from '../src/hook-cache';
import { harness, hook, tableJq, testTool } from './fixtures';

/** The memory stores with their hook reads counted. */
function countedStores(base: Stores = createMemoryStores()): { stores: Stores; reads: string[] } {
  const reads: string[] = [];
  const hooks = Object.assign(Object.create(base.hooks) as Stores['hooks'], {
    getHook: (name: string) => (reads.push(`getHook ${name}`), base.hooks.getHook(name)),
    getHookRevision: (name: string) => (reads.push(`getHookRevision ${name}`), base.hooks.getHookRevision(name)),
  });
  return { stores: { ...base, hooks }, reads };
}

describe('HookCache', () => {
  const h1 = hook({ name: 'h1', topic: 't', tool: 'echo' });

  it('reuses the record it read while the revision asked for is the one it read, and reads on any other', async () => {
    const { stores, reads } = countedStores();
    const cache = new HookCache(stores.hooks, new ManualClock());
    await stores.hooks.putHook(h1);
    const r1 = (await stores.hooks.getHookRevision('h1'))!.revision;
    reads.length = 0;
    expect(await cache.get('h1', r1)).toEqual(h1);
    expect(await cache.get('h1', r1)).toEqual(h1);
    expect(reads).toEqual(['getHookRevision h1']);
    await stores.hooks.putHook({ ...h1, tool: 'print' });
    const r2 = (await stores.hooks.getHookRevision('h1'))!.revision;
    reads.length = 0;
    expect((await cache.get('h1', r2))?.tool).toBe('print');
    expect((await cache.get('h1', r2))?.tool).toBe('print');
    expect(reads).toEqual(['getHookRevision h1']);
  });

  it('reads, keeping nothing, when no revision is known; a gone hook is null and forgotten', async () => {
    const { stores, reads } = countedStores();
    const cache = new HookCache(stores.hooks, new ManualClock());
    await stores.hooks.putHook(h1);
    const r1 = (await stores.hooks.getHookRevision('h1'))!.revision;
    reads.length = 0;
    expect(await cache.get('h1', null)).toEqual(h1);
    expect(await cache.get('h1', null)).toEqual(h1);
    expect(reads).toEqual(['getHook h1', 'getHook h1']);
    expect(cache.size).toBe(0);
    await cache.get('h1', r1);
    await stores.hooks.removeHook('h1');
    expect(await cache.get('h1', 'a-revision-gone')).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('reads a kept record again once it is older than maxAgeMs, even at the same revision', async () => {
    const { stores, reads } = countedStores();
    const clock = new ManualClock();
    const cache = new HookCache(stores.hooks, clock, { maxAgeMs: 1_000 });
    await stores.hooks.putHook(h1);
    const r1 = (await stores.hooks.getHookRevision('h1'))!.revision;
    reads.length = 0;
    await cache.get('h1', r1);
    clock.advance(999);
    await cache.get('h1', r1);
    expect(reads).toHaveLength(1);
    clock.advance(1);
    await cache.get('h1', r1);
    expect(reads).toHaveLength(2);
  });

  it('shares one read among concurrent lookups, and keeps at most maxEntries records', async () => {
    const { stores, reads } = countedStores();
    const cache = new HookCache(stores.hooks, new ManualClock(), { maxEntries: 2 });
    const revisions: Record<string, string> = {};
    for (const name of ['a', 'b', 'c']) {
      await stores.hooks.putHook(hook({ name, topic: 't', tool: 'echo' }));
      revisions[name] = (await stores.hooks.getHookRevision(name))!.revision;
    }
    reads.length = 0;
    const got = await Promise.all(Array.from({ length: 5 }, () => cache.get('a', revisions.a!)));
    expect(got.map((h) => h?.name)).toEqual(['a', 'a', 'a', 'a', 'a']);
    expect(reads).toEqual(['getHookRevision a']);
    await cache.get('b', revisions.b!);
    await cache.get('c', revisions.c!);
    expect(cache.size).toBe(2);
    reads.length = 0;
    await cache.get('a', revisions.a!); // the oldest went
    expect(reads).toEqual(['getHookRevision a']);
  });

  it('hands out frozen records: an attempt cannot change the hook the next one reads', async () => {
    const { stores } = countedStores();
    const cache = new HookCache(stores.hooks, new ManualClock());
    await stores.hooks.putHook(hook({ name: 'h1', topic: 't', tool: 'echo', tool_kwargs: { a: { b: 1 } } }));
    const r1 = (await stores.hooks.getHookRevision('h1'))!.revision;
    const got = (await cache.get('h1', r1))!;
    expect(() => {
      (got as { tool: string }).tool = 'other';
    }).toThrow(TypeError);
    expect(() => {
      (got.tool_kwargs.a as Record<string, unknown>).b = 2;
    }).toThrow(TypeError);
    expect((await cache.get('h1', r1))?.tool_kwargs).toEqual({ a: { b: 1 } });
  });
});

describe('the executor reads a hook between claim and tool only when it changed', () => {
  it('many runs of an unchanged hook read it once; the first run after a change reads the new record', async () => {
    let counted: { reads: string[] } | undefined;
    const tool = testTool('t', async ({ args }) => args);
    const h = harness({
      jq: tableJq({}),
      tools: [tool],
      stores: (s) => {
        const c = countedStores(s);
        counted = c;
        return c.stores;
      },
    });
    const reads = counted!.reads;
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', tool_kwargs: { v: 1 } }));
    for (let i = 0; i < 5; i += 1) for (const id of await h.keep('gh', { i })) await h.executor.handle(id);
    expect(reads).toEqual(['getHookRevision h']);
    expect(tool.calls.map((c) => c.args)).toEqual(Array.from({ length: 5 }, () => ({ v: 1 })));
    const changed: Hook = hook({ name: 'h', topic: 'gh', tool: 't', tool_kwargs: { v: 2 } });
    await h.stores.hooks.putHook(changed);
    for (let i = 0; i < 3; i += 1) for (const id of await h.keep('gh', { i })) await h.executor.handle(id);
    expect(reads).toEqual(['getHookRevision h', 'getHookRevision h']);
    expect(tool.calls.slice(5).map((c) => c.args)).toEqual([{ v: 2 }, { v: 2 }, { v: 2 }]);
  });
});
