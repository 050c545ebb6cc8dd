import { HOOKS_RUN_FAILED_TOPIC } from '@hookyard/core';
import type { RunStore, Stores } from '@hookyard/store';
import { LocalRepo } from '@hookyard/tools';
import { startExecutor } from '../src/start';
import { gate, harness, hook, tableJq, testTool, until } from './fixtures';

describe('executor: start and stop', () => {
  it('hands back an un-acted run as due, fails a started non-resumable one, replays a resumable one', async () => {
    const evaluating = gate<unknown[]>();
    const never = gate<unknown>();
    const jq = tableJq({ '.slow': () => [] });
    // The condition of `unacted` hangs in jq: the attempt is interrupted before its hook acts.
    const slowJq = { ...jq, run: (expr: string, input: unknown) => (expr === '.slow' ? evaluating.promise : jq.run(expr, input)) };
    const plain = testTool('plain', () => never.promise);
    const resumable = testTool('resumable', () => never.promise, { crashResumable: true });
    const alert = testTool('alert', async () => 'ok');
    const h = harness({ jq: slowJq, tools: [plain, resumable, alert], settings: { maxWorkers: 4 } });
    await h.stores.hooks.putHook(hook({ name: 'unacted', topic: 'gh', tool: 'plain', condition: { content: '.slow' } }));
    await h.stores.hooks.putHook(hook({ name: 'started', topic: 'gh', tool: 'plain' }));
    await h.stores.hooks.putHook(hook({ name: 'replays', topic: 'gh', tool: 'resumable' }));
    await h.stores.hooks.putHook(hook({ name: 'alert', topic: HOOKS_RUN_FAILED_TOPIC, tool: 'alert' }));

    const events: string[] = [];
    const handle = await startExecutor({
      settings: h.settings,
      stores: h.stores,
      bus: h.bus,
      jq: slowJq,
      tools: new LocalRepo([plain, resumable, alert]),
      metrics: h.metrics,
      logger: h.logger,
      clock: h.clock,
      events: { publish: async (s) => void events.push(`${s.event}:${s.hook}:${s.status}`) },
    });
    const ids = await h.keep('gh', {});
    await h.bus.publish(ids);
    await until(() => handle.inFlight() === 3 && plain.calls.length === 1 && resumable.calls.length === 1);

    await handle.stop(20);
    expect(handle.inFlight()).toBe(0);
    const byHook = Object.fromEntries((await Promise.all(ids.map((id) => h.stores.runs.get(id)))).map((r) => [r!.hook, r!]));
    expect(byHook.unacted).toMatchObject({ status: 'retry_wait', attempts: 1, acted: '', due_at: new Date(h.clock.now()).toISOString() });
    expect(byHook.started).toMatchObject({ status: 'failed', attempts: 1, acted: 'start', error: { kind: 'outcome_unknown' } });
    expect(byHook.replays).toMatchObject({ status: 'pending', attempts: 1, acted: 'start' });
    // Each claim is announced; of the three handed back, only the one held failed is an outcome.
    expect(events.filter((e) => e.startsWith('started:')).sort()).toEqual(['started:replays:running', 'started:started:running', 'started:unacted:running']);
    expect(events.filter((e) => !e.startsWith('started:'))).toEqual(['finished:started:failed']);
    const failedEvents = await h.stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10);
    expect(failedEvents.runs.map((r) => (r.payload as { run_id: string }).run_id)).toEqual([byHook.started!.id]);

    // No new work after stop: a delivery now claims nothing.
    await h.bus.publish([byHook.unacted!.id]);
    await new Promise((r) => setImmediate(r));
    expect((await h.stores.runs.get(byHook.unacted!.id))!.attempts).toBe(1);
    evaluating.open([true]);
    never.open('late');
  });

  it('lets a run that finishes within the grace finish', async () => {
    const done = gate<string>();
    const tool = testTool('t', () => done.promise);
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const handle = await startExecutor({
      settings: h.settings,
      stores: h.stores,
      bus: h.bus,
      jq: tableJq({}),
      tools: new LocalRepo([tool]),
      metrics: h.metrics,
      logger: h.logger,
      clock: h.clock,
    });
    const ids = await h.keep('gh', {});
    await h.bus.publish(ids);
    await until(() => tool.calls.length === 1);
    const stopped = handle.stop(10_000);
    done.open('finished');
    await stopped;
    expect(await h.stores.runs.get(ids[0]!)).toMatchObject({ status: 'succeeded', result: 'finished' });
  });

  it('makes no claim once stopping: the run stays pending with no attempt used', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    h.executor.close();
    await h.executor.handle(id!);
    expect(tool.calls).toHaveLength(0);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'pending', attempts: 0, acted: '' });
    expect(run!.history.map((e) => e.event)).not.toContain('claimed');
  });

  /** Stores whose claim waits for `held` before it is sent (every other verb goes straight to the base store). */
  function heldClaims(held: Promise<void>, sent: () => void): (s: Stores) => Stores {
    return (s) => {
      const runs = new Proxy(s.runs, {
        get(target, key) {
          if (key === 'claim') {
            return async (...args: Parameters<RunStore['claim']>) => {
              sent();
              await held;
              return target.claim(...args);
            };
          }
          const v = Reflect.get(target, key) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      return { ...s, runs };
    };
  }

  it('runs a claim that raced stop() within the grace, using no extra attempt (max attempts 2)', async () => {
    const held = gate();
    let claiming = false;
    const tool = testTool('t', async () => 'ran');
    let base!: Stores;
    const held$ = heldClaims(held.promise, () => (claiming = true));
    const h = harness({ jq: tableJq({}), tools: [tool], settings: { maxAttempts: 2 }, stores: (s) => held$((base = s)) });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    // Attempt #1 failed before acting and is due again: attempt #2 is its last.
    const first = await base.runs.claim(id!, 'exec-0', h.settings.leaseMs, h.clock.now());
    await h.stores.runs.scheduleRetry(id!, first!.token, { kind: 'unavailable', message: 'blip' }, h.clock.now(), h.clock.now());

    const handle = await startExecutor({
      settings: h.settings,
      stores: h.stores,
      bus: h.bus,
      jq: tableJq({}),
      tools: new LocalRepo([tool]),
      metrics: h.metrics,
      logger: h.logger,
      clock: h.clock,
    });
    await h.bus.publish([id!]);
    await until(() => claiming);
    const stopped = handle.stop(10_000);
    held.open();
    await stopped;
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 2, result: 'ran' });
    expect(run!.history.map((e) => e.event)).not.toContain('released');
    expect(tool.calls).toHaveLength(1);
  });

  it('hands back a claim that lands only after the grace ended, without starting work', async () => {
    const held = gate();
    let claiming = false;
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: tableJq({}), tools: [tool], stores: heldClaims(held.promise, () => (claiming = true)) });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    const work = h.executor.handle(id!);
    await until(() => claiming);
    expect(await h.executor.handBackAll('shutdown')).toBe(0);
    held.open();
    await work;
    expect(tool.calls).toHaveLength(0);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'retry_wait', attempts: 1, acted: '' });
  });
});
