import { failureFingerprint, type Run } from '@hookyard/core';
import type { RunFilter, Stores } from '../src';
import { T0, hook, rejection, useStores } from './fixtures';
import type { StoresFactory } from './fixtures';

async function pages(s: Stores, filter: RunFilter, limit: number): Promise<Run[][]> {
  const out: Run[][] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i += 1) {
    const page = await s.runs.list(filter, limit, cursor);
    out.push(page.runs);
    cursor = page.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('list never ended');
}

/**
 * 12 events over two topics (3 hooks on `orders`, 1 on `users`), some in the
 * same millisecond; a few runs finished so status filters have something to do.
 */
async function fill(s: Stores): Promise<Run[]> {
  for (const [n, t] of [
    ['a', 'orders'],
    ['b', 'orders'],
    ['c', 'orders'],
    ['u', 'users'],
  ] as const)
    await s.hooks.putHook(hook(n, t));
  const ids: string[] = [];
  for (let i = 0; i < 12; i += 1) {
    const now = T0 + Math.floor(i / 2) * 10;
    const kept = await s.runs.keepEvent({ topic: i % 3 === 0 ? 'users' : 'orders', payload: { i }, now, dispatchGraceMs: 0 });
    ids.push(...kept.map((k) => k.id));
  }
  for (const id of ids.filter((_, i) => i % 4 === 0)) {
    const c = await s.runs.claim(id, 'w', 1_000, T0 + 100);
    await s.runs.complete(id, c!.token, 'succeeded', null, T0 + 101);
  }
  await s.runs.claim(ids[1]!, 'w', 1_000, T0 + 100);
  const all = await Promise.all(ids.map((id) => s.runs.get(id)));
  return all.map((r) => r!).sort((x, y) => (x.id < y.id ? 1 : -1));
}

export function describeRunListConformance(name: string, factory: StoresFactory): void {
  describe(`${name}: run list`, () => {
    const stores = useStores(factory);

    it('pages newest first with no duplicates or gaps', async () => {
      const s = stores();
      const all = await fill(s);
      expect(all).toHaveLength(4 * 1 + 8 * 3);
      for (const limit of [1, 4, 7, 100]) {
        const got = await pages(s, {}, limit);
        expect(got.flat().map((r) => r.id)).toEqual(all.map((r) => r.id));
        for (const page of got.slice(0, -1)) expect(page).toHaveLength(limit);
      }
      const ids = all.map((r) => r.id);
      expect(all.map((r) => r.created_at)).toEqual([...all.map((r) => r.created_at)].sort().reverse());
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('filters by status, hook and topic, combined with AND, across pages', async () => {
      const s = stores();
      const all = await fill(s);
      const cases: RunFilter[] = [
        { status: 'succeeded' },
        { status: 'pending' },
        { status: 'running' },
        { hook: 'a' },
        { topic: 'users' },
        { status: 'pending', hook: 'b' },
        { status: 'succeeded', topic: 'orders' },
        { hook: 'u', topic: 'users' },
        { hook: 'u', topic: 'orders' },
        { status: 'pending', hook: 'c', topic: 'orders' },
        { status: 'failed' },
      ];
      for (const filter of cases) {
        const want = all.filter(
          (r) => (!filter.status || r.status === filter.status) && (!filter.hook || r.hook === filter.hook) && (!filter.topic || r.topic === filter.topic),
        );
        const got = (await pages(s, filter, 3)).flat();
        expect([filter, got.map((r) => r.id)]).toEqual([filter, want.map((r) => r.id)]);
      }
      expect(all.filter((r) => r.status === 'running')).toHaveLength(1);
    });

    it('filters by since and until (inclusive, on the creation time) and by delivery id, with the others, across pages', async () => {
      const s = stores();
      const all = await fill(s);
      const at = (r: Run) => Date.parse(r.created_at);
      const cases: RunFilter[] = [
        { since: T0 + 20 },
        { until: T0 + 20 },
        { since: T0 + 10, until: T0 + 30 },
        { since: T0 + 11, until: T0 + 29 },
        { since: T0 + 10, until: T0 + 10, hook: 'a' },
        { since: T0 + 30, status: 'pending' },
        { until: T0 - 1 },
        { since: T0 + 1000 },
      ];
      for (const filter of cases) {
        const want = all.filter(
          (r) =>
            (!filter.status || r.status === filter.status) &&
            (!filter.hook || r.hook === filter.hook) &&
            (filter.since === undefined || at(r) >= filter.since) &&
            (filter.until === undefined || at(r) <= filter.until),
        );
        const got = (await pages(s, filter, 2)).flat();
        expect([filter, got.map((r) => r.id)]).toEqual([filter, want.map((r) => r.id)]);
      }
      expect(all.filter((r) => at(r) >= T0 + 10 && at(r) <= T0 + 30).length).toBeGreaterThan(0);
      const kept = await s.runs.keepEvent({ topic: 'orders', payload: {}, deliveryId: 'gh-delivery-1', now: T0 + 5, dispatchGraceMs: 0 });
      await s.runs.keepEvent({ topic: 'orders', payload: {}, deliveryId: 'gh-delivery-2', now: T0 + 6, dispatchGraceMs: 0 });
      const got = (await pages(s, { deliveryId: 'gh-delivery-1' }, 2)).flat();
      expect(got.map((r) => r.id).sort()).toEqual(kept.map((k) => k.id).sort());
      expect((await pages(s, { deliveryId: 'gh-delivery-1', hook: 'b' }, 2)).flat().map((r) => r.hook)).toEqual(['b']);
    });

    it('filters by error kind and message fingerprint (checked on each run), with the others, across pages', async () => {
      const s = stores();
      await s.hooks.putHook(hook('fa', 'fails'));
      await s.hooks.putHook(hook('fb', 'fails'));
      const failures: [string, 'unavailable' | 'bad_input'][] = [
        ['connect ECONNREFUSED 10.0.0.5:8080', 'unavailable'],
        ['quota exceeded for ann@example.com', 'bad_input'],
        ['connect ECONNREFUSED 10.0.0.7:9090', 'unavailable'],
        ['quota exceeded for bob@example.com', 'unavailable'],
        ['connect ECONNREFUSED 10.0.0.9:80', 'bad_input'],
        ['connect ECONNREFUSED 10.0.0.2:443', 'unavailable'],
      ];
      for (const [i, [message, kind]] of failures.entries()) {
        const kept = await s.runs.keepEvent({ topic: 'fails', payload: { i }, now: T0 + i, dispatchGraceMs: 0 });
        for (const k of kept) {
          const c = await s.runs.claim(k.id, 'w', 1_000, T0 + 100);
          await s.runs.fail(k.id, c!.token, { kind, message }, T0 + 101);
        }
      }
      // One run of the group's hook that has not failed: no error, so no error filter matches it.
      await s.runs.keepEvent({ topic: 'fails', payload: {}, now: T0 + 50, dispatchGraceMs: 0 });
      const all = (await pages(s, { topic: 'fails' }, 100)).flat();
      const refused = failureFingerprint('connect ECONNREFUSED 10.0.0.1:1');
      const cases: RunFilter[] = [
        { errorKind: 'unavailable' },
        { fingerprint: refused },
        { status: 'failed', hook: 'fa', errorKind: 'unavailable', fingerprint: refused },
        { hook: 'fb', errorKind: 'bad_input', fingerprint: refused },
        { errorKind: 'timeout' },
        { fingerprint: '0000000000000000' },
      ];
      for (const filter of cases) {
        const want = all.filter(
          (r) =>
            r.error !== null &&
            (!filter.hook || r.hook === filter.hook) &&
            (!filter.errorKind || r.error.kind === filter.errorKind) &&
            (!filter.fingerprint || failureFingerprint(r.error.message) === filter.fingerprint),
        );
        const got = (await pages(s, filter, 1)).flat();
        expect([filter, got.map((r) => r.id)]).toEqual([filter, want.map((r) => r.id)]);
      }
      const group = (await pages(s, { status: 'failed', hook: 'fa', errorKind: 'unavailable', fingerprint: refused }, 2)).flat();
      expect(group.map((r) => r.error?.message)).toEqual([
        'connect ECONNREFUSED 10.0.0.2:443',
        'connect ECONNREFUSED 10.0.0.7:9090',
        'connect ECONNREFUSED 10.0.0.5:8080',
      ]);
    });

    it('a filter on status and hook whose runs are few among many of each: every match, newest first, no page past its limit', async () => {
      const s = stores();
      await s.hooks.putHook(hook('many', 'busy'));
      await s.hooks.putHook(hook('few', 'busy'));
      const kept: string[] = [];
      for (let i = 0; i < 30; i += 1)
        kept.push(...(await s.runs.keepEvent({ topic: 'busy', payload: { i }, now: T0 + i, dispatchGraceMs: 0 })).map((k) => k.id));
      // Every run of `many` and three of `few` succeed: `succeeded` and `few` are both large, their overlap small.
      const runs = (await Promise.all(kept.map((id) => s.runs.get(id)))).map((r) => r!);
      const few = runs.filter((r) => r.hook === 'few').map((r) => r.id);
      const done = [...runs.filter((r) => r.hook === 'many').map((r) => r.id), few[2]!, few[11]!, few[23]!];
      for (const id of done) {
        const c = await s.runs.claim(id, 'w', 1_000, T0 + 100);
        await s.runs.complete(id, c!.token, 'succeeded', null, T0 + 101);
      }
      const want = [few[2]!, few[11]!, few[23]!].sort().reverse();
      for (const limit of [1, 2, 5]) {
        const got = await pages(s, { status: 'succeeded', hook: 'few' }, limit);
        expect(got.flat().map((r) => r.id)).toEqual(want);
        for (const page of got) expect(page.length).toBeLessThanOrEqual(limit);
      }
      expect((await pages(s, { status: 'pending', hook: 'many', topic: 'busy' }, 4)).flat()).toEqual([]);
      expect((await pages(s, { status: 'pending', topic: 'busy' }, 4)).flat().map((r) => r.id)).toEqual(
        few
          .filter((id) => !done.includes(id))
          .sort()
          .reverse(),
      );
    });

    it('a hook moved to another topic: its old runs keep their topic for the filter', async () => {
      const s = stores();
      await s.hooks.putHook(hook('mover', 'before'));
      const [old] = await s.runs.keepEvent({ topic: 'before', payload: {}, now: T0, dispatchGraceMs: 0 });
      await s.hooks.putHook(hook('mover', 'after'));
      const [fresh] = await s.runs.keepEvent({ topic: 'after', payload: {}, now: T0 + 1, dispatchGraceMs: 0 });
      expect((await s.runs.list({ hook: 'mover', topic: 'before' }, 10)).runs.map((r) => r.id)).toEqual([old!.id]);
      expect((await s.runs.list({ hook: 'mover' }, 10)).runs.map((r) => r.id)).toEqual([fresh!.id, old!.id]);
    });

    it('an empty result has no cursor; a garbage cursor is bad_input', async () => {
      const s = stores();
      expect(await s.runs.list({ hook: 'none' }, 10)).toEqual({ runs: [], nextCursor: null });
      expect((await rejection(s.runs.list({}, 10, 'not a cursor'))).kind).toBe('bad_input');
    });
  });
}
