import { openDeclaration } from '@hookyard/core';
import type { RemoteToolRecord } from '@hookyard/core';
import { T0, hook, useStores } from './fixtures';
import type { StoresFactory } from './fixtures';
import { describeApprovalPolicyConformance } from './conformance-policy';
import { describeAgentStoreConformance } from './conformance-agents';
import { describeTriggerLinkConformance } from './conformance-links';

const tool = (name: string): RemoteToolRecord => ({
  name,
  kind: 'http',
  endpoint: 'http://127.0.0.1:9/x',
  method: 'POST',
  timeout_ms: 1000,
  headers: {},
  body_properties: { a: 1 },
  protocol: 'openai',
  created_at: 'c',
  updated_at: 'u',
});

export function describeHookStoreConformance(name: string, factory: StoresFactory): void {
  describe(`${name}: hook, verifier, template, tool stores`, () => {
    const stores = useStores(factory);
    describeApprovalPolicyConformance(stores);
    describeTriggerLinkConformance(stores);
    describeAgentStoreConformance(stores);

    it('putHook creates, then replaces and returns the previous record', async () => {
      const { hooks } = stores();
      expect(await hooks.putHook(hook('h1', 'orders'))).toEqual({ created: true, previous: null });
      const second = await hooks.putHook(hook('h1', 'orders', { tool: 'print' }));
      expect(second.created).toBe(false);
      expect(second.previous?.tool).toBe('echo');
      expect((await hooks.getHook('h1'))?.tool).toBe('print');
      expect(await hooks.getHook('ghost')).toBeNull();
    });

    it('a replaced hook with a new topic moves: off the old topic, on the new one', async () => {
      const { hooks, runs } = stores();
      await hooks.putHook(hook('h1', 'old'));
      await hooks.putHook(hook('h2', 'old'));
      await hooks.putHook(hook('h1', 'new'));
      expect((await hooks.hooksOnTopic('old')).map((h) => h.name)).toEqual(['h2']);
      expect((await hooks.hooksOnTopic('new')).map((h) => h.name)).toEqual(['h1']);
      const kept = await runs.keepEvent({ topic: 'old', payload: {}, now: T0, dispatchGraceMs: 0 });
      expect(kept.map((k) => k.hook)).toEqual(['h2']);
    });

    it('keepEvent sees hooks as registered, replaced, moved and removed, on every event', async () => {
      const { hooks, runs } = stores();
      // Many events, so a store that keeps each event in one of several partitions is seen in all of them.
      const keptOn = async (topic: string) => {
        const seen = new Set<string>();
        for (let i = 0; i < 24; i += 1) {
          const kept = await runs.keepEvent({ topic, payload: { i }, now: T0 + i, dispatchGraceMs: 0 });
          seen.add(kept.map((k) => k.hook).join(','));
        }
        return [...seen];
      };
      await hooks.putHook(hook('a', 't1'));
      await hooks.putHook(hook('b', 't1'));
      expect(await keptOn('t1')).toEqual(['a,b']);
      await hooks.putHook(hook('a', 't1', { tool: 'print' }));
      expect(await keptOn('t1')).toEqual(['a,b']);
      await hooks.putHook(hook('a', 't2'));
      expect(await keptOn('t1')).toEqual(['b']);
      expect(await keptOn('t2')).toEqual(['a']);
      await hooks.putHook(hook('a', 't1'));
      expect(await keptOn('t1')).toEqual(['a,b']);
      expect(await keptOn('t2')).toEqual(['']);
      expect(await hooks.removeHook('b')).toBe(true);
      expect(await keptOn('t1')).toEqual(['a']);
      expect(await hooks.removeHook('a')).toBe(true);
      expect(await keptOn('t1')).toEqual(['']);
      await hooks.putHook(hook('b', 't1'));
      expect(await keptOn('t1')).toEqual(['b']);
    });

    it("a claim answers the revision of its run's hook: the record's, changing with it and only with it", async () => {
      const { hooks, runs } = stores();
      const claimOn = async (topic: string, i: number) => {
        const [kept] = await runs.keepEvent({ topic, payload: { i }, now: T0, dispatchGraceMs: 0 });
        const claimed = await runs.claim(kept!.id, 'w', 1_000, T0);
        return claimed!.hookRevision;
      };
      await hooks.putHook(hook('h1', 't'));
      const first = await hooks.getHookRevision('h1');
      expect(first?.hook).toEqual(hook('h1', 't'));
      expect(first?.revision).toMatch(/^[A-Za-z0-9_-]{16}$/);
      // Every partition answers it (many events, so a store with several partitions is seen in all of them).
      for (let i = 0; i < 12; i += 1) expect(await claimOn('t', i)).toBe(first!.revision);
      // The same record again: the same revision.
      await hooks.putHook(hook('h1', 't'));
      expect(await claimOn('t', 20)).toBe(first!.revision);
      // A changed record: a new revision, answered by every later claim and by getHookRevision with the new record.
      await hooks.putHook(hook('h1', 't', { tool: 'print' }));
      const second = await hooks.getHookRevision('h1');
      expect(second?.hook.tool).toBe('print');
      expect(second?.revision).not.toBe(first!.revision);
      for (let i = 30; i < 42; i += 1) expect(await claimOn('t', i)).toBe(second!.revision);
      // A moved hook keeps answering its revision; a removed one answers none.
      await hooks.putHook(hook('h1', 'moved', { tool: 'print' }));
      const moved = await hooks.getHookRevision('h1');
      expect(await claimOn('moved', 50)).toBe(moved!.revision);
      const [left] = await runs.keepEvent({ topic: 'moved', payload: {}, now: T0, dispatchGraceMs: 0 });
      expect(await hooks.removeHook('h1')).toBe(true);
      expect((await runs.claim(left!.id, 'w', 1_000, T0))?.hookRevision).toBeNull();
      expect(await hooks.getHookRevision('h1')).toBeNull();
      // Registered again with the first record: its revision again (a revision names a record, not a write).
      await hooks.putHook(hook('h1', 't'));
      expect(await claimOn('t', 60)).toBe(first!.revision);
    });

    it('hooksOnTopic is sorted by name; listHooks lists all; removeHook takes it off its topic', async () => {
      const { hooks } = stores();
      for (const n of ['zeta', 'alpha', 'mid']) await hooks.putHook(hook(n, 't1'));
      await hooks.putHook(hook('other', 't2'));
      expect((await hooks.hooksOnTopic('t1')).map((h) => h.name)).toEqual(['alpha', 'mid', 'zeta']);
      expect((await hooks.listHooks()).map((h) => h.name)).toEqual(['alpha', 'mid', 'other', 'zeta']);
      expect(await hooks.removeHook('mid')).toBe(true);
      expect(await hooks.removeHook('mid')).toBe(false);
      expect((await hooks.hooksOnTopic('t1')).map((h) => h.name)).toEqual(['alpha', 'zeta']);
      expect(await hooks.hooksOnTopic('nobody')).toEqual([]);
    });

    it('keeps the whole hook record, nested fields included', async () => {
      const { hooks, declarations } = stores();
      await declarations.putDeclaration(openDeclaration('s', 'k', 'bound by the hook below'), T0);
      const h = hook('full', 't', {
        condition: { content: '.a == 1' },
        start_expr: { id: 'tpl', kwargs: { x: [1, 2] } },
        subject: { scope: 's', kind: 'k', key_expr: { content: '.id' } },
        tools_allow: ['*', '!x'],
        tool_kwargs: {},
      });
      await hooks.putHook(h);
      expect(await hooks.getHook('full')).toEqual(h);
    });

    it('verifier bindings: put (created flag), get, list, remove', async () => {
      const { hooks } = stores();
      const v = { topic: 'gh', kind: 'github' as const, settings: {}, secrets: ['env:HOOKS_SECRET_S'], created_at: 'c', updated_at: 'u' };
      expect(await hooks.putVerifier(v)).toEqual({ created: true });
      expect(await hooks.putVerifier({ ...v, secrets: ['env:HOOKS_SECRET_S', 'env:HOOKS_SECRET_T'] })).toEqual({ created: false });
      expect((await hooks.getVerifier('gh'))?.secrets).toEqual(['env:HOOKS_SECRET_S', 'env:HOOKS_SECRET_T']);
      expect((await hooks.listVerifiers()).map((b) => b.topic)).toEqual(['gh']);
      expect(await hooks.removeVerifier('gh')).toBe(true);
      expect(await hooks.getVerifier('gh')).toBeNull();
      expect(await hooks.removeVerifier('gh')).toBe(false);
    });

    it('dedupe keys: put (created flag), get, replace, remove; one topic never reads another', async () => {
      const { hooks } = stores();
      const d = { topic: 'orders', expr: '.headers["x-event-id"]', horizon_seconds: 86_400, created_at: 'c', updated_at: 'u' };
      expect(await hooks.getDedupe('orders')).toBeNull();
      expect(await hooks.putDedupe(d)).toEqual({ created: true });
      expect(await hooks.getDedupe('orders')).toEqual(d);
      expect(await hooks.putDedupe({ ...d, expr: '.body.id', horizon_seconds: 60, updated_at: 'u2' })).toEqual({ created: false });
      expect(await hooks.getDedupe('orders')).toEqual({ ...d, expr: '.body.id', horizon_seconds: 60, updated_at: 'u2' });
      expect(await hooks.getDedupe('orders-2')).toBeNull();
      // A dedupe key is not a verifier binding: the topic stays open.
      expect(await hooks.getVerifier('orders')).toBeNull();
      expect(await hooks.removeDedupe('orders')).toBe(true);
      expect(await hooks.getDedupe('orders')).toBeNull();
      expect(await hooks.removeDedupe('orders')).toBe(false);
    });

    it('templates: put, get, list, remove', async () => {
      const { hooks } = stores();
      await hooks.putTemplate({ id: 'b', content: '.b' });
      await hooks.putTemplate({ id: 'a', content: '.a', description: 'd' });
      expect(await hooks.getTemplate('a')).toEqual({ id: 'a', content: '.a', description: 'd' });
      expect((await hooks.listTemplates()).map((t) => t.id)).toEqual(['a', 'b']);
      expect(await hooks.removeTemplate('a')).toBe(true);
      expect(await hooks.getTemplate('a')).toBeNull();
    });

    it('tools: put (created flag), get, list, remove', async () => {
      const { tools } = stores();
      expect(await tools.putTool(tool('svc'))).toEqual({ created: true });
      expect(await tools.putTool({ ...tool('svc'), timeout_ms: 5 })).toEqual({ created: false });
      await tools.putTool(tool('abc'));
      expect((await tools.getTool('svc'))?.timeout_ms).toBe(5);
      expect((await tools.listTools()).map((t) => t.name)).toEqual(['abc', 'svc']);
      expect(await tools.removeTool('svc')).toBe(true);
      expect(await tools.getTool('svc')).toBeNull();
    });

    it('pending registrations: kept under a random id, taken once, never listed or callable by name', async () => {
      const { tools } = stores();
      const id = await tools.putPendingTool(tool('pets'), 60_000);
      const other = await tools.putPendingTool(tool('pets'), 60_000);
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(other).not.toBe(id);
      expect(await tools.listTools()).toEqual([]);
      expect(await tools.getTool('pets')).toBeNull();
      expect(await tools.takePendingTool(id)).toEqual(tool('pets'));
      expect(await tools.takePendingTool(id)).toBeNull();
      expect(await tools.takePendingTool('pets')).toBeNull();
      expect(await tools.takePendingTool('nope:*')).toBeNull();
      expect(await tools.takePendingTool(other)).toEqual(tool('pets'));
    });

    it('discovery status: the last success and the last error are both kept; removing the tool removes its status', async () => {
      const { tools } = stores();
      await tools.putTool(tool('pets'));
      await tools.putTool(tool('constructor'));
      expect(await tools.discoveryStatuses()).toEqual([]);
      await tools.noteDiscovery('pets', { at: '2026-01-01T00:00:00.000Z', tools: 3 });
      await tools.noteDiscovery('pets', { at: '2026-01-01T00:01:00.000Z', error: { kind: 'unavailable', message: 'connect ECONNREFUSED' } });
      await tools.noteDiscovery('constructor', { at: '2026-01-01T00:02:00.000Z', error: { kind: 'forbidden', message: 'loopback' } });
      expect(await tools.discoveryStatuses()).toEqual([
        { name: 'constructor', last_success: null, last_error: { at: '2026-01-01T00:02:00.000Z', kind: 'forbidden', message: 'loopback' } },
        {
          name: 'pets',
          last_success: { at: '2026-01-01T00:00:00.000Z', tools: 3 },
          last_error: { at: '2026-01-01T00:01:00.000Z', kind: 'unavailable', message: 'connect ECONNREFUSED' },
        },
      ]);
      // A later success replaces the success only.
      await tools.noteDiscovery('pets', { at: '2026-01-01T00:03:00.000Z', tools: 4 });
      expect((await tools.discoveryStatuses()).find((d) => d.name === 'pets')).toMatchObject({
        last_success: { tools: 4 },
        last_error: { kind: 'unavailable' },
      });
      expect(await tools.removeTool('pets')).toBe(true);
      expect((await tools.discoveryStatuses()).map((d) => d.name)).toEqual(['constructor']);
    });

    it('ping answers', async () => {
      await expect(stores().ping()).resolves.toBeUndefined();
    });
  });
}
