import type { ApprovalRule } from '@hookyard/core';
import { T0, rejection } from './fixtures';
import type { Stores } from '../src';

const rules: ApprovalRule[] = [
  {
    name: 'prod deploys',
    tools: ['deploy'],
    when: '.args.env == "prod"',
    action: 'approve',
    timeout_seconds: 600,
    on_timeout: 'deny',
    answer_hooks: ['slack-answers'],
  },
  { tools: ['*', '!echo'], action: 'deny', message: 'ask first' },
];

/** The deployment's approval policy: versioned, replaced whole, compare-and-set on an expected version. */
export function describeApprovalPolicyConformance(stores: () => Stores): void {
  describe('approval policy', () => {
    it('is version 0 with no rules until set', async () => {
      expect(await stores().hooks.getApprovalPolicy()).toEqual({ version: 0, rules: [], updated_at: null });
    });

    it('each put replaces the rules whole and bumps the version by one', async () => {
      const { hooks } = stores();
      const first = await hooks.putApprovalPolicy(rules, null, T0);
      expect(first).toEqual({ version: 1, rules, updated_at: new Date(T0).toISOString() });
      expect(await hooks.getApprovalPolicy()).toEqual(first);
      const second = await hooks.putApprovalPolicy([rules[1]!], null, T0 + 1000);
      expect(second).toEqual({ version: 2, rules: [rules[1]], updated_at: new Date(T0 + 1000).toISOString() });
      expect(await hooks.getApprovalPolicy()).toEqual(second);
      expect((await hooks.putApprovalPolicy([], null, T0 + 2000)).version).toBe(3);
      expect((await hooks.getApprovalPolicy()).rules).toEqual([]);
    });

    it('with an expected version, applies only on that version; otherwise conflict naming the kept one and nothing changes', async () => {
      const { hooks } = stores();
      expect((await hooks.putApprovalPolicy(rules, 0, T0)).version).toBe(1);
      const stale = await rejection(hooks.putApprovalPolicy([], 0, T0 + 1));
      expect(stale.kind).toBe('conflict');
      expect(stale.message).toContain('version 1');
      expect(stale.message).toContain('version 0');
      expect(await hooks.getApprovalPolicy()).toEqual({ version: 1, rules, updated_at: new Date(T0).toISOString() });
      expect((await hooks.putApprovalPolicy([], 1, T0 + 2)).version).toBe(2);
    });

    it('concurrent puts against one expected version: exactly one applies', async () => {
      const { hooks } = stores();
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => hooks.putApprovalPolicy([{ tools: [`t${i}`], action: 'deny' }], 0, T0)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect((await hooks.getApprovalPolicy()).version).toBe(1);
    });

    it('what a caller gets back is a copy: changing it changes nothing kept', async () => {
      const { hooks } = stores();
      const got = await hooks.putApprovalPolicy(structuredClone(rules), null, T0);
      got.rules[0]!.tools.push('mutated');
      (await hooks.getApprovalPolicy()).rules.pop();
      expect((await hooks.getApprovalPolicy()).rules).toEqual(rules);
    });
  });
}
