import type { TriggerLink } from '@hookyard/core';
import { T0, hook, rejection } from './fixtures';
import type { Stores } from '../src';

const hashOf = (n: number) => n.toString(16).padStart(64, '0');
let seq = 0;
/** A fresh link of `hook`. */
function link(hookName: string, extra: Partial<TriggerLink> = {}): TriggerLink {
  seq += 1;
  return {
    id: `tl_test${seq}`,
    hook: hookName,
    label: `link ${seq}`,
    created_at: new Date(T0 + seq).toISOString(),
    created_by: 'operator:0a1b2c3d',
    expires_at: null,
    uses: 0,
    last_used_at: null,
    max_uses: null,
    revoked: false,
    ...extra,
  };
}

/** Trigger links: kept hashed, used atomically, revoked at once, removed with their hook; one run of one hook. */
export function describeTriggerLinkConformance(stores: () => Stores): void {
  describe('trigger links', () => {
    it('a use finds the link by its token hash and counts it; a wrong hash is unknown', async () => {
      const { hooks } = stores();
      await hooks.putHook(hook('tl-a', 'tl-topic'));
      const l = link('tl-a');
      await hooks.putTriggerLink(l, hashOf(1));
      expect(await hooks.listTriggerLinks('tl-a')).toEqual([l]);
      expect(await hooks.useTriggerLink(hashOf(1), T0)).toEqual({ ok: true, link: { ...l, uses: 1, last_used_at: new Date(T0).toISOString() } });
      expect(await hooks.useTriggerLink(hashOf(2), T0)).toEqual({ ok: false, reason: 'unknown' });
      // The last use is the latest one's time; a refused use leaves it.
      await hooks.useTriggerLink(hashOf(1), T0 + 5000);
      const used = { ...l, uses: 2, last_used_at: new Date(T0 + 5000).toISOString() };
      expect(await hooks.listTriggerLinks('tl-a')).toEqual([used]);
      await hooks.revokeTriggerLink('tl-a', l.id);
      expect(await hooks.useTriggerLink(hashOf(1), T0 + 9000)).toEqual({ ok: false, reason: 'revoked' });
      expect(await hooks.listTriggerLinks('tl-a')).toEqual([{ ...used, revoked: true }]);
      expect(await hooks.listTriggerLinks('other')).toEqual([]);
    });

    it('a link of a hook that is not registered is refused not_found, and nothing is kept', async () => {
      const { hooks } = stores();
      const e = await rejection(hooks.putTriggerLink(link('ghost'), hashOf(3)));
      expect([e.kind, e.message]).toEqual(['not_found', 'no hook named "ghost"']);
      expect(await hooks.useTriggerLink(hashOf(3), T0)).toEqual({ ok: false, reason: 'unknown' });
    });

    it('max_uses holds under concurrent uses: exactly max_uses succeed, the rest are used_up', async () => {
      const { hooks } = stores();
      await hooks.putHook(hook('tl-b', 'tl-topic'));
      await hooks.putTriggerLink(link('tl-b', { max_uses: 3 }), hashOf(4));
      const uses = await Promise.all(Array.from({ length: 12 }, () => hooks.useTriggerLink(hashOf(4), T0)));
      expect(uses.filter((u) => u.ok)).toHaveLength(3);
      expect(uses.filter((u) => !u.ok).map((u) => (u.ok ? '' : u.reason))).toEqual(Array(9).fill('used_up'));
      expect((await hooks.listTriggerLinks('tl-b'))[0]!.uses).toBe(3);
      // A use given back (its run could not be kept) may be taken again.
      await hooks.returnTriggerLinkUse((await hooks.listTriggerLinks('tl-b'))[0]!.id);
      expect((await hooks.useTriggerLink(hashOf(4), T0)).ok).toBe(true);
      expect(await hooks.useTriggerLink(hashOf(4), T0)).toEqual({ ok: false, reason: 'used_up' });
    });

    it('expires at expires_at on the caller clock; revoked at once, by its own hook only', async () => {
      const { hooks } = stores();
      await hooks.putHook(hook('tl-c', 'tl-topic'));
      const l = link('tl-c', { expires_at: new Date(T0 + 1000).toISOString() });
      await hooks.putTriggerLink(l, hashOf(5));
      expect((await hooks.useTriggerLink(hashOf(5), T0 + 999)).ok).toBe(true);
      expect(await hooks.useTriggerLink(hashOf(5), T0 + 1000)).toEqual({ ok: false, reason: 'expired' });
      const m = link('tl-c');
      await hooks.putTriggerLink(m, hashOf(6));
      expect(await hooks.revokeTriggerLink('other', m.id)).toBeNull();
      expect(await hooks.revokeTriggerLink('tl-c', 'tl_nonexistentnonexist')).toBeNull();
      expect(await hooks.revokeTriggerLink('tl-c', m.id)).toEqual({ ...m, revoked: true });
      expect(await hooks.revokeTriggerLink('tl-c', m.id)).toEqual({ ...m, revoked: true });
      expect(await hooks.useTriggerLink(hashOf(6), T0)).toEqual({ ok: false, reason: 'revoked' });
      expect((await hooks.listTriggerLinks('tl-c')).map((x) => [x.id, x.revoked])).toEqual([
        [l.id, false],
        [m.id, true],
      ]);
    });

    it('removing a hook removes its links: a hook registered again under the name starts with none', async () => {
      const { hooks } = stores();
      await hooks.putHook(hook('tl-d', 'tl-topic'));
      await hooks.putHook(hook('tl-e', 'tl-topic'));
      await hooks.putTriggerLink(link('tl-d'), hashOf(7));
      const keep = link('tl-e');
      await hooks.putTriggerLink(keep, hashOf(8));
      await hooks.removeHook('tl-d');
      await hooks.putHook(hook('tl-d', 'tl-topic'));
      expect(await hooks.listTriggerLinks('tl-d')).toEqual([]);
      expect(await hooks.useTriggerLink(hashOf(7), T0)).toEqual({ ok: false, reason: 'unknown' });
      expect(await hooks.listTriggerLinks('tl-e')).toEqual([keep]);
    });

    it('keepHookRun keeps one run of the named hook only, recording door and link; none for a hook not on the topic', async () => {
      const { hooks, runs } = stores();
      await hooks.putHook(hook('tl-f', 'tl-shared'));
      await hooks.putHook(hook('tl-g', 'tl-shared'));
      const input = { topic: 'tl-shared', payload: { a: 1 }, now: T0, dispatchGraceMs: 0, door: 'trigger' as const, verified: false, triggerLink: 'tl_x' };
      const kept = await runs.keepHookRun(input, 'tl-g');
      expect(kept.map((k) => k.hook)).toEqual(['tl-g']);
      const run = (await runs.get(kept[0]!.id))!;
      expect([run.hook, run.topic, run.door, run.verified, run.trigger_link, run.payload, run.status]).toEqual([
        'tl-g',
        'tl-shared',
        'trigger',
        false,
        'tl_x',
        { a: 1 },
        'pending',
      ]);
      expect(run.history[0]!.detail).toBe('event on tl-shared through the trigger door, not verified, by trigger link tl_x');
      expect(await runs.sweepDue(T0, 10, 1000)).toEqual([kept[0]!.id]);
      // The head an outcome write answers carries the link too.
      const c = await runs.claim(kept[0]!.id, 'w', 1_000, T0);
      expect(await runs.complete(kept[0]!.id, c!.token, 'succeeded', null, T0 + 1)).toMatchObject({ door: 'trigger', trigger_link: 'tl_x' });
      expect(await runs.keepHookRun({ ...input, now: T0 + 1 }, 'ghost')).toEqual([]);
      await hooks.putHook(hook('tl-g', 'tl-moved'));
      expect(await runs.keepHookRun({ ...input, now: T0 + 2 }, 'tl-g')).toEqual([]);
      // A run kept by a door other than a link has none.
      const [plain] = await runs.keepEvent({ topic: 'tl-shared', payload: {}, now: T0 + 3, dispatchGraceMs: 0 });
      expect((await runs.get(plain!.id))!.trigger_link).toBeNull();
    });
  });
}
