import type { Stores } from '../src';
import { MAX_HOOKS_PER_EVENT } from '../src';
import { T0, hook, rejection } from './fixtures';

const input = (topic: string, now: number, n = 1) => ({ topic, payload: { n }, now, dispatchGraceMs: 0 });

/**
 * keepDelivery: the delivery claim and the keep are one atomic step. Time is
 * the callers' `now` (the claim holds while its time is after `now`), so the
 * lapse is tested on an injected clock against both stores.
 */
export function describeDeliveryConformance(stores: () => Stores): void {
  describe('keepDelivery (claim and keep in one step)', () => {
    it('keeps and claims; a repeat of the id on the topic is a duplicate that writes nothing', async () => {
      const s = stores();
      await s.hooks.putHook(hook('h1', 'gh'));
      await s.hooks.putHook(hook('h2', 'gh'));
      const first = await s.runs.keepDelivery(input('gh', T0), { id: 'd1', ttlMs: 60_000 });
      if (first.status !== 'kept') throw new Error(`expected kept, got ${first.status}`);
      expect(first.runs.map((r) => r.hook)).toEqual(['h1', 'h2']);
      for (const k of first.runs) expect((await s.runs.get(k.id))?.delivery_id).toBe('d1');
      expect(await s.runs.keepDelivery(input('gh', T0 + 1, 2), { id: 'd1', ttlMs: 60_000 })).toEqual({ status: 'duplicate' });
      expect((await s.runs.list({}, 10)).runs).toHaveLength(2);
      // Per topic: the same id elsewhere is another delivery.
      await s.hooks.putHook(hook('o', 'other'));
      expect((await s.runs.keepDelivery(input('other', T0 + 2), { id: 'd1', ttlMs: 60_000 })).status).toBe('kept');
    });

    it("a claim lives in its door's namespace: a NATS claim on an id never makes the HTTP door's claim on it a duplicate, nor the reverse", async () => {
      const s = stores();
      await s.hooks.putHook(hook('h', 'gh'));
      const guid = '8f1b2c00-5f4e-11ef-9a52-0c0a9f3b1d2e';
      const at = (door: 'http' | 'nats', now: number) => ({ ...input('gh', now), door });
      expect((await s.runs.keepDelivery(at('nats', T0), { id: guid, ttlMs: 60_000 })).status).toBe('kept');
      expect((await s.runs.keepDelivery(at('http', T0 + 1), { id: guid, ttlMs: 60_000 })).status).toBe('kept');
      expect(await s.runs.keepDelivery(at('http', T0 + 2), { id: guid, ttlMs: 60_000 })).toEqual({ status: 'duplicate' });
      expect(await s.runs.keepDelivery(at('nats', T0 + 3), { id: guid, ttlMs: 60_000 })).toEqual({ status: 'duplicate' });
      // An id that spells the other namespace out is still its own door's.
      expect((await s.runs.keepDelivery(at('http', T0 + 4), { id: `nats:${guid}`, ttlMs: 60_000 })).status).toBe('kept');
      const runs = (await s.runs.list({ topic: 'gh' }, 10)).runs;
      expect(runs.map((r) => [r.door, r.delivery_id]).sort()).toEqual([
        ['http', guid],
        ['http', `nats:${guid}`],
        ['nats', guid],
      ]);
    });

    it('a topic without hooks is kept (no runs) and claimed', async () => {
      const s = stores();
      expect(await s.runs.keepDelivery(input('empty', T0), { id: 'x', ttlMs: 1_000 })).toEqual({ status: 'kept', runs: [] });
      expect(await s.runs.keepDelivery(input('empty', T0 + 1), { id: 'x', ttlMs: 1_000 })).toEqual({ status: 'duplicate' });
    });

    it('the claim holds until now + ttl, not after: a lapsed claim keeps again and holds anew', async () => {
      const s = stores();
      await s.hooks.putHook(hook('h', 'gh'));
      expect((await s.runs.keepDelivery(input('gh', T0), { id: 'short', ttlMs: 500 })).status).toBe('kept');
      expect((await s.runs.keepDelivery(input('gh', T0 + 499), { id: 'short', ttlMs: 500 })).status).toBe('duplicate');
      expect((await s.runs.keepDelivery(input('gh', T0 + 500), { id: 'short', ttlMs: 60_000 })).status).toBe('kept');
      expect((await s.runs.keepDelivery(input('gh', T0 + 10_000), { id: 'short', ttlMs: 60_000 })).status).toBe('duplicate');
      expect((await s.runs.list({}, 10)).runs).toHaveLength(2);
    });

    it('a refused keep (too many hooks) takes no claim: the retry after the fix keeps', async () => {
      const s = stores();
      for (let i = 0; i <= MAX_HOOKS_PER_EVENT; i += 1) await s.hooks.putHook(hook(`h${String(i).padStart(4, '0')}`, 'big'));
      expect((await rejection(s.runs.keepDelivery(input('big', T0), { id: 'd', ttlMs: 60_000 }))).kind).toBe('bad_input');
      await s.hooks.removeHook('h0000');
      const again = await s.runs.keepDelivery(input('big', T0 + 1), { id: 'd', ttlMs: 60_000 });
      expect(again.status === 'kept' && again.runs.length).toBe(MAX_HOOKS_PER_EVENT);
    }, 60_000);

    it('refuses a ttl that is not a positive integer, naming it', async () => {
      const e = await rejection(stores().runs.keepDelivery(input('t', T0), { id: 'd', ttlMs: 0 }));
      expect(e.kind).toBe('bad_input');
      expect(e.message).toContain('ttl');
    });

    it('ids with braces, colons and non-ASCII are claims like any other', async () => {
      const s = stores();
      for (const id of ['{a}', 'a:b:c', 'ü-日本', '']) {
        expect((await s.runs.keepDelivery(input('t', T0), { id, ttlMs: 1_000 })).status).toBe('kept');
        expect((await s.runs.keepDelivery(input('t', T0), { id, ttlMs: 1_000 })).status).toBe('duplicate');
      }
    });
  });
}
