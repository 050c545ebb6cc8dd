import { STATE_HISTORY_MAX, openDeclaration } from '@hookyard/core';
import type { StateAttribution } from '@hookyard/core';
import type { Stores } from '../src';
import { T0, rejection } from './fixtures';

/** Builds fresh stores with a state document cap (the suite closes them). */
export type StateStoresFactory = (options: { stateMaxBytes?: number }) => Promise<Stores>;

const pr = { scope: 'github', kind: 'pull_request', key: 'acme/api#7' };
const byHook = (run: string, hook = 'ci'): StateAttribution => ({ door: 'hook', actor: run, hook });
const byApi: StateAttribution = { door: 'api', actor: 'operator:ab12cd34', hook: null };
const iso = (ms: number) => new Date(ms).toISOString();

/** Fresh stores with the states this suite writes declared open (a state never declared is not written). */
async function declared(factory: StateStoresFactory, options: { stateMaxBytes?: number }): Promise<Stores> {
  const stores = await factory(options);
  for (const kind of [pr.kind, 'issue']) await stores.declarations.putDeclaration(openDeclaration(pr.scope, kind, 'the conformance suite'), T0);
  return stores;
}

/** Subject state: versioned documents, compare-and-set, merge, attributed bounded history, the cap, listing. */
export function describeStateConformance(name: string, factory: StateStoresFactory): void {
  describe(`${name} state store`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await declared(factory, {});
    });
    afterEach(async () => {
      await stores.close();
    });

    it('has no state until written; a set creates version 1 with its attributed write', async () => {
      const { states } = stores;
      expect(await states.get(pr)).toBeNull();
      const r = await states.set(pr, { checks: 'pending' }, { ...byHook('run-1'), now: T0 });
      const want = {
        ...pr,
        document: { checks: 'pending' },
        version: 1,
        created_at: iso(T0),
        updated_at: iso(T0),
        history: [{ version: 1, op: 'set', door: 'hook', actor: 'run-1', hook: 'ci', at: iso(T0) }],
      };
      expect(r).toEqual(want);
      expect(await states.get(pr)).toEqual(want);
      expect(await states.get({ ...pr, key: 'acme/api#8' })).toBeNull();
      expect(await states.get({ ...pr, kind: 'issue' })).toBeNull();
    });

    it('each write bumps the version; history names door, actor and hook, oldest first', async () => {
      const { states } = stores;
      await states.set(pr, { a: 1 }, { ...byHook('run-1'), now: T0 });
      await states.merge(pr, { b: 2 }, { ...byHook('run-2', 'review'), now: T0 + 1 });
      const r = await states.set(pr, { c: 3 }, { ...byApi, now: T0 + 2 });
      expect(r.version).toBe(3);
      expect(r.document).toEqual({ c: 3 });
      expect(r.created_at).toBe(iso(T0));
      expect(r.updated_at).toBe(iso(T0 + 2));
      expect(r.history).toEqual([
        { version: 1, op: 'set', door: 'hook', actor: 'run-1', hook: 'ci', at: iso(T0) },
        { version: 2, op: 'merge', door: 'hook', actor: 'run-2', hook: 'review', at: iso(T0 + 1) },
        { version: 3, op: 'set', door: 'api', actor: 'operator:ab12cd34', hook: null, at: iso(T0 + 2) },
      ]);
    });

    it('merge is a JSON merge patch: objects deep, null removes, arrays replace; onto {} when absent', async () => {
      const { states } = stores;
      const first = await states.merge(pr, { labels: ['x'], checks: { lint: 'ok' } }, { ...byHook('r1'), now: T0 });
      expect([first.version, first.document]).toEqual([1, { labels: ['x'], checks: { lint: 'ok' } }]);
      const r = await states.merge(pr, { labels: ['y'], checks: { test: 'failed', lint: null }, title: 't' }, { ...byHook('r2'), now: T0 });
      expect(r.document).toEqual({ labels: ['y'], checks: { test: 'failed' }, title: 't' });
    });

    it('payload keys never reach a prototype: __proto__ stays a plain key through set and merge', async () => {
      const { states } = stores;
      const doc = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}') as Record<string, unknown>;
      await states.set(pr, doc, { ...byHook('r1'), now: T0 });
      const r = await states.merge(pr, JSON.parse('{"__proto__": {"more": 1}}') as Record<string, unknown>, { ...byHook('r2'), now: T0 });
      expect(Object.getPrototypeOf(r.document)).toBe(Object.prototype);
      expect(Object.keys(r.document).sort()).toEqual(['__proto__', 'constructor']);
      expect(JSON.stringify(r.document)).toBe('{"__proto__":{"polluted":true,"more":1},"constructor":{"prototype":{"x":1}}}');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('if_version: applies on that version (0: none yet); otherwise conflict naming the kept version, nothing written', async () => {
      const { states } = stores;
      expect((await states.set(pr, { n: 1 }, { ...byApi, ifVersion: 0, now: T0 })).version).toBe(1);
      const again = await rejection(states.set(pr, { n: 9 }, { ...byApi, ifVersion: 0, now: T0 }));
      expect(again.kind).toBe('conflict');
      expect(again.message).toContain('is at version 1, not version 0');
      const stale = await rejection(states.merge(pr, { n: 9 }, { ...byHook('r'), ifVersion: 5, now: T0 }));
      expect([stale.kind, stale.message.includes('at version 1, not version 5')]).toEqual(['conflict', true]);
      expect((await states.get(pr))?.document).toEqual({ n: 1 });
      expect((await states.merge(pr, { m: 2 }, { ...byHook('r'), ifVersion: 1, now: T0 })).version).toBe(2);
      const none = await rejection(states.set({ ...pr, key: 'other' }, { n: 1 }, { ...byApi, ifVersion: 3, now: T0 }));
      expect(none.message).toContain('has no document (version 0), not version 3');
      expect((await rejection(states.set(pr, {}, { ...byApi, ifVersion: -1, now: T0 }))).kind).toBe('bad_input');
    });

    it('concurrent sets against one version: exactly one applies; concurrent merges without one all apply', async () => {
      const { states } = stores;
      await states.set(pr, {}, { ...byApi, now: T0 });
      const sets = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => states.set(pr, { i }, { ...byHook(`r${i}`), ifVersion: 1, now: T0 })));
      expect(sets.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const losers = sets.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      for (const l of losers) expect((l.reason as { kind: string }).kind).toBe('conflict');
      const merges = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => states.merge(pr, { [`k${i}`]: i }, { ...byHook(`m${i}`), now: T0 })));
      expect(merges.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const kept = await states.get(pr);
      expect(kept?.version).toBe(6);
      expect(kept?.document).toMatchObject({ k0: 0, k1: 1, k2: 2, k3: 3 });
    });

    it(`keeps the last ${STATE_HISTORY_MAX} writes`, async () => {
      const { states } = stores;
      for (let i = 1; i <= STATE_HISTORY_MAX + 5; i += 1) await states.set(pr, { i }, { ...byHook(`r${i}`), now: T0 + i });
      const kept = await states.get(pr);
      expect(kept?.version).toBe(STATE_HISTORY_MAX + 5);
      expect(kept?.history).toHaveLength(STATE_HISTORY_MAX);
      expect(kept?.history[0]).toMatchObject({ version: 6, actor: 'r6' });
      expect(kept?.history[STATE_HISTORY_MAX - 1]).toMatchObject({ version: STATE_HISTORY_MAX + 5, actor: `r${STATE_HISTORY_MAX + 5}` });
    });

    it('remove: the removed version, or null when there was none; if_version guards it; a new set starts at 1', async () => {
      const { states } = stores;
      expect(await states.remove(pr, { ...byApi, now: T0 })).toBeNull();
      await states.set(pr, { a: 1 }, { ...byApi, now: T0 });
      await states.set(pr, { a: 2 }, { ...byApi, now: T0 });
      const e = await rejection(states.remove(pr, { ...byApi, ifVersion: 1, now: T0 }));
      expect([e.kind, e.message.includes('at version 2, not version 1')]).toEqual(['conflict', true]);
      expect(await states.remove(pr, { ...byApi, ifVersion: 2, now: T0 })).toEqual({ version: 2 });
      expect(await states.get(pr)).toBeNull();
      expect((await states.list(pr.scope, pr.kind, 10)).states).toEqual([]);
      const r = await states.set(pr, { b: 1 }, { ...byApi, now: T0 + 5 });
      expect([r.version, r.history.length, r.created_at]).toEqual([1, 1, iso(T0 + 5)]);
    });

    it('refuses a document that is not an object', async () => {
      const { states } = stores;
      for (const bad of [null, [1], 'x', 3]) {
        const e = await rejection(states.set(pr, bad as unknown as Record<string, unknown>, { ...byApi, now: T0 }));
        expect([e.kind, e.message.includes('must be a JSON object')]).toEqual(['bad_input', true]);
      }
      expect((await rejection(states.merge(pr, [1] as unknown as Record<string, unknown>, { ...byApi, now: T0 }))).kind).toBe('bad_input');
      expect(await states.get(pr)).toBeNull();
    });

    it('what a caller gets back is a copy', async () => {
      const { states } = stores;
      const r = await states.set(pr, { list: [1] }, { ...byApi, now: T0 });
      (r.document.list as number[]).push(2);
      r.history.pop();
      const kept = await states.get(pr);
      expect([kept?.document, kept?.history.length]).toEqual([{ list: [1] }, 1]);
    });

    it('lists one scope and kind by key, cursor paged, with version and last writer', async () => {
      const { states } = stores;
      const keys = ['b', 'a', 'd{x}', 'c:1', 'e'];
      for (const key of keys) await states.set({ ...pr, key }, { key }, { ...byHook(`run-${key}`), now: T0 });
      await states.set({ ...pr, kind: 'issue', key: 'z' }, {}, { ...byApi, now: T0 });
      await states.set({ ...pr, key: 'a' }, { again: true }, { ...byApi, now: T0 + 9 });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await states.list(pr.scope, pr.kind, 2, cursor);
        seen.push(...page.states.map((s) => s.key));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor);
      expect(seen).toEqual(['a', 'b', 'c:1', 'd{x}', 'e']);
      expect(pages).toBe(3);
      const first = (await states.list(pr.scope, pr.kind, 1)).states[0];
      expect(first).toEqual({ ...pr, key: 'a', version: 2, updated_at: iso(T0 + 9), updated_by: byApi });
      expect((await states.list(pr.scope, 'issue', 10)).states.map((s) => s.key)).toEqual(['z']);
      expect(await states.list('nobody', 'none', 10)).toEqual({ states: [], nextCursor: null });
      expect((await rejection(states.list(pr.scope, pr.kind, 10, 'not a cursor!'))).kind).toBe('bad_input');
    });
  });

  describe(`${name} state store document cap`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await declared(factory, { stateMaxBytes: 64 });
    });
    afterEach(async () => {
      await stores.close();
    });

    it('refuses a set or a merge past HOOKS_STATE_MAX_BYTES with bad_input naming it and the size; nothing written', async () => {
      const { states } = stores;
      await states.set(pr, { a: 'x'.repeat(40) }, { ...byApi, now: T0 });
      const big = await rejection(states.set(pr, { a: 'x'.repeat(70) }, { ...byApi, now: T0 }));
      expect(big.kind).toBe('bad_input');
      expect(big.message).toMatch(/would be \d+ bytes, more than 64 \(HOOKS_STATE_MAX_BYTES\)/);
      const grown = await rejection(states.merge(pr, { b: 'y'.repeat(20) }, { ...byApi, now: T0 }));
      expect([grown.kind, grown.message.includes('HOOKS_STATE_MAX_BYTES')]).toEqual(['bad_input', true]);
      expect((await states.get(pr))?.version).toBe(1);
      // Bytes, not characters: 30 three-byte characters are 90 bytes.
      expect((await rejection(states.set(pr, { a: '€'.repeat(30) }, { ...byApi, now: T0 }))).kind).toBe('bad_input');
    });
  });
}
