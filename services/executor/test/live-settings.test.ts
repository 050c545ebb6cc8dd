/**
 * The live settings the executor reads at use time: a reload writes them into
 * the one settings object of the process (createLiveSettings, in place), and
 * the next attempt scheduled, the next tool call and the next approval use the
 * new values. Here the harness's settings object is that object.
 */
import { HookyardError, SETTINGS_REGISTRY, createLiveSettings, type SettingVariable, type Settings } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import { jsExecutionTool } from '@hookyard/tools';
import { harness, hook, tableJq, testTool } from './fixtures';

const downJq: JqEngine = {
  async check() {},
  async run() {
    throw new HookyardError('unavailable', 'jq worker pool is restarting');
  },
  async close() {},
};

/**
 * Applies `file` the way a reload does: createLiveSettings validates it whole
 * and names what it applies; those fields are written into `settings` in place.
 */
function reloadInto(settings: Settings, file: string): void {
  let text = '';
  const live = createLiveSettings({ env: { HOOKS_CONFIG_FILE: '/cfg.yaml' }, read: () => text });
  text = file;
  const r = live.reload('file');
  if (!r.ok) throw new Error(r.message);
  expect(r.applied.length).toBeGreaterThan(0);
  for (const c of r.applied) {
    const field = SETTINGS_REGISTRY[c.variable as SettingVariable].field as keyof Settings;
    (settings as Record<string, unknown>)[field] = live.settings[field];
  }
}

describe('executor: live settings apply from the next attempt, call or approval', () => {
  it('retry base, cap and max attempts: the next retry scheduled uses the new backoff, the next failure the new limit', async () => {
    const h = harness({ jq: downJq, tools: [testTool('t', async () => 'ran')] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '.x' } }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    let run = (await h.stores.runs.get(id!))!;
    expect(Date.parse(run.due_at!) - h.clock.now()).toBe(1000); // base 1000 (the harness's)
    h.clock.advance(1000);

    reloadInto(h.settings, 'HOOKS_RUN_RETRY_BASE_SECONDS: 4\nHOOKS_RUN_RETRY_CAP_SECONDS: 6\nHOOKS_RUN_MAX_ATTEMPTS: 3\n');
    await h.executor.handle(id!);
    run = (await h.stores.runs.get(id!))!;
    expect(run).toMatchObject({ status: 'retry_wait', attempts: 2 });
    expect(Date.parse(run.due_at!) - h.clock.now()).toBe(6000); // min(4000 * 2, 6000)
    h.clock.advance(6000);
    await h.executor.handle(id!);
    // 3 attempts in all now: the third failure holds the run (it would have been retried under 5).
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', attempts: 3, error: { kind: 'unavailable' } });
  });

  it('tool timeout: the next call is bounded by the new value', async () => {
    // Answers 200 ms after it was called: past a 50 ms bound, well within 30 s.
    const slow = testTool('slow', () => new Promise((resolve) => setTimeout(() => resolve('late'), 200)));
    const h = harness({ jq: tableJq({}), tools: [slow], settings: { toolTimeoutMs: 60_000 } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'slow' }));
    reloadInto(h.settings, 'HOOKS_TOOL_TIMEOUT_SECONDS: 0.05\n');
    const [a] = await h.keep('gh', {});
    await h.executor.handle(a!);
    expect(await h.stores.runs.get(a!)).toMatchObject({ status: 'failed', error: { kind: 'timeout', message: "tool 'slow' did not finish within 50 ms" } });
    reloadInto(h.settings, 'HOOKS_TOOL_TIMEOUT_SECONDS: 30\n');
    const [b] = await h.keep('gh', {});
    await h.executor.handle(b!);
    expect(await h.stores.runs.get(b!)).toMatchObject({ status: 'succeeded', result: 'late' });
  });

  it('tool timeout: each call is handed the live bound in its context (ctx.timeoutMs)', async () => {
    const probe = testTool('probe', async (call) => call.ctx.timeoutMs ?? null);
    const h = harness({ jq: tableJq({}), tools: [probe], settings: { toolTimeoutMs: 1000 } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'probe' }));
    const [a] = await h.keep('gh', {});
    await h.executor.handle(a!);
    expect(await h.stores.runs.get(a!)).toMatchObject({ status: 'succeeded', result: 1000 });
    reloadInto(h.settings, 'HOOKS_TOOL_TIMEOUT_SECONDS: 20\n');
    const [b] = await h.keep('gh', {});
    await h.executor.handle(b!);
    expect(await h.stores.runs.get(b!)).toMatchObject({ status: 'succeeded', result: 20_000 });
  });

  it('tool timeout: a js_execution snippet cut off at its bound fails the run as timeout, never succeeded', async () => {
    // Built as the deployment builds it (boot timeout, a cap); the reload lifts the executor's bound past the cap.
    const js = jsExecutionTool({ timeoutMs: 1000, maxTimeoutMs: 300 });
    try {
      const h = harness({ jq: tableJq({}), tools: [js], settings: { toolTimeoutMs: 1000 } });
      await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'js_execution', tool_kwargs: { code: 'while (true) {}' } }));
      reloadInto(h.settings, 'HOOKS_TOOL_TIMEOUT_SECONDS: 20\n');
      const [id] = await h.keep('gh', {});
      await h.executor.handle(id!);
      expect(await h.stores.runs.get(id!)).toMatchObject({
        status: 'failed',
        error: { kind: 'timeout', message: 'js_execution: the snippet ran past 300 ms and was interrupted' },
      });
    } finally {
      await js.close();
    }
  });

  it('approval timeout: an approve rule without timeout_seconds expires after HOOKS_APPROVAL_TIMEOUT_SECONDS as it is when the approval is requested', async () => {
    const h = harness({ jq: tableJq({}), tools: [testTool('deploy', async () => 'shipped')] });
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'approve' }], null, h.clock.now());
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'gh', tool: 'deploy' }));
    const expiry = async () => {
      const [id] = await h.keep('gh', {});
      await h.executor.handle(id!);
      const [i] = (await h.stores.interactions.list({ run: id! }, 10)).interactions;
      return Date.parse(i!.expires_at) - h.clock.now();
    };
    expect(await expiry()).toBe(3_600_000);
    reloadInto(h.settings, 'HOOKS_APPROVAL_TIMEOUT_SECONDS: 120\n');
    expect(await expiry()).toBe(120_000);
  });
});
