import { HOOKS_RUN_FAILED_TOPIC, ManualClock, createMetrics, loadSettings, silentLogger } from '@hookyard/core';
import type { Hook } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { startScheduler } from '../src/start';

/** The sweep over the real Redis store: every step is one Lua script there. */
const prefix = uniquePrefix('sched');
let url = '';
let stores: Stores;

beforeAll(async () => {
  url = await requireRedis();
  stores = await createRedisStores({ url, prefix, partitions: 3 });
});

afterAll(async () => {
  await stores?.close();
  await deleteRedisKeys(prefix, url);
});

function hook(name: string, topic: string): Hook {
  const at = new Date(0).toISOString();
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at };
}

it('dispatches due runs once per grace, takes over lapsed leases, reports failures, expires finished runs', async () => {
  const clock = new ManualClock();
  const settings = loadSettings({}, { sweepMs: 3_600_000, dispatchGraceMs: 15_000, leaseMs: 30_000, retentionMs: 60_000 });
  const published: string[] = [];
  const bus: RunBus = {
    kind: 'recording',
    publish: async (ids) => void published.push(...ids),
    subscribe: async () => {
      throw new Error('unused');
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
  const scheduler = await startScheduler({ settings, stores, bus, metrics: createMetrics({ defaultMetrics: false }), logger: silentLogger(), clock });
  try {
    await stores.hooks.putHook(hook('waits', 'due'));
    await stores.hooks.putHook(hook('lost', 'lapse'));
    await stores.hooks.putHook(hook('started', 'lapse-started'));
    await stores.hooks.putHook(hook('done', 'finish'));
    await stores.hooks.putHook(hook('alert', HOOKS_RUN_FAILED_TOPIC));
    const keep = async (topic: string) =>
      (await stores.runs.keepEvent({ topic, payload: {}, now: clock.now(), dispatchGraceMs: settings.dispatchGraceMs }))[0]!.id;
    const due = await keep('due');
    const lost = await keep('lapse');
    const started = await keep('lapse-started');
    const done = await keep('finish');
    await stores.runs.claim(lost, 'dead', settings.leaseMs, clock.now());
    const s = await stores.runs.claim(started, 'dead', settings.leaseMs, clock.now());
    await stores.runs.act(started, s!.token, { acted: 'start', input: {}, resumable: false }, clock.now());
    const d = await stores.runs.claim(done, 'exec', settings.leaseMs, clock.now());
    await stores.runs.complete(done, d!.token, 'succeeded', 'ok', clock.now());

    expect(await scheduler.sweepOnce()).toMatchObject({ dispatched: 0, retried: 0, failed: 0, expired: 0, errors: [] });
    clock.advance(settings.leaseMs + 1);
    const report = await scheduler.sweepOnce();
    expect(report).toMatchObject({ dispatched: 1, retried: 1, failed: 1, errors: [] });
    expect(await stores.runs.get(started)).toMatchObject({ status: 'failed' });
    const alerts = (await stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10)).runs;
    expect(alerts.map((r) => (r.payload as { run_id: string }).run_id)).toEqual([started]);
    expect(published.sort()).toEqual([due, lost].sort());
    // The alert was kept with the fail transition, due at once: the next sweep dispatches it.
    await scheduler.sweepOnce();
    expect(published).toContain(alerts[0]!.id);

    clock.advance(settings.retentionMs);
    expect((await scheduler.sweepOnce()).expired).toBe(1);
    expect(await stores.runs.get(done)).toBeNull();
    expect(await stores.runs.get(started)).toMatchObject({ status: 'failed' });
  } finally {
    await scheduler.stop();
  }
});
