import { HOOKS_RUN_FAILED_TOPIC, HookyardError, ManualClock, createLogger, createMetrics, loadSettings } from '@hookyard/core';
import type { Hook, Settings } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import type { RunSummary } from '@hookyard/bus';
import { SWEEP_BATCH } from '../src/sweep';
import { startScheduler, type SchedulerHandle } from '../src/start';

function hook(name: string, topic: string): Hook {
  const at = new Date(0).toISOString();
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at };
}

/** A bus that only records what it was asked to publish. */
function recordingBus(): RunBus & { published: string[] } {
  const published: string[] = [];
  return {
    kind: 'recording',
    published,
    async publish(ids) {
      published.push(...ids);
    },
    async subscribe() {
      throw new Error('the scheduler never subscribes');
    },
    async ping() {},
    async close() {},
  };
}

async function setup(opts: { settings?: Partial<Settings>; stores?: (s: Stores) => Stores } = {}) {
  const clock = new ManualClock();
  // A sweep interval far beyond the test: only sweepOnce() sweeps.
  const settings = loadSettings({}, { sweepMs: 3_600_000, dispatchGraceMs: 15_000, leaseMs: 30_000, retentionMs: 60_000, ...opts.settings });
  const base = createMemoryStores();
  const stores = opts.stores ? opts.stores(base) : base;
  const bus = recordingBus();
  const metrics = createMetrics({ defaultMetrics: false });
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  const events: RunSummary[] = [];
  const scheduler = await startScheduler({ settings, stores, bus, metrics, logger, clock, events: { publish: async (s) => void events.push(s) } });
  const keep = async (topic: string) =>
    (await stores.runs.keepEvent({ topic, payload: { n: 1 }, now: clock.now(), dispatchGraceMs: settings.dispatchGraceMs })).map((k) => k.id);
  return { clock, settings, stores, bus, metrics, lines, events, scheduler, keep };
}

const running: SchedulerHandle[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function gauge(m: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await m.get()).values[0]?.value ?? 0;
}

describe('scheduler sweep', () => {
  it('reaps expired interactions: resolved expired, their runs due and published; the parked gauge counts the rest', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const park = async (ttlMs: number) => {
      const [id] = await t.keep('gh');
      const c = await t.stores.runs.claim(id!, 'w', 30_000, t.clock.now());
      const { interaction } = await t.stores.interactions.park({
        run: id!,
        token: c!.token,
        kind: 'wait',
        tool: 'wait',
        argsHash: 'x',
        onTimeout: 'fail',
        expiresAt: t.clock.now() + ttlMs,
        now: t.clock.now(),
      });
      return { id: id!, interaction: interaction.id };
    };
    const soon = await park(60_000);
    const later = await park(600_000);
    expect(await t.scheduler.sweepOnce()).toMatchObject({ interactionsExpired: 0, errors: [] });
    expect(await gauge(t.metrics.parked)).toBe(2);
    t.bus.published.length = 0;
    t.clock.advance(60_000);
    expect(await t.scheduler.sweepOnce()).toMatchObject({ interactionsExpired: 1, errors: [] });
    expect(t.bus.published).toContain(soon.id);
    expect(await t.stores.interactions.get(soon.interaction)).toMatchObject({ status: 'expired', resolution: { via: 'expiry' } });
    expect((await t.stores.runs.get(soon.id))?.status).toBe('pending');
    expect((await t.stores.runs.get(later.id))?.status).toBe('parked');
    // The woken run is announced (only it).
    expect(t.events.map((e) => [e.run_id, e.event, e.status])).toEqual([[soon.id, 'woken', 'pending']]);
    expect(await gauge(t.metrics.parked)).toBe(1);
  });

  it('dispatches a due run nobody claimed once per grace window', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const [id] = await t.keep('gh');

    // Within the grace the door's own publish covers it.
    expect((await t.scheduler.sweepOnce()).dispatched).toBe(0);
    t.clock.advance(15_000);
    expect(await t.scheduler.sweepOnce()).toMatchObject({ dispatched: 1, errors: [] });
    expect((await t.scheduler.sweepOnce()).dispatched).toBe(0);
    t.clock.advance(15_000);
    expect((await t.scheduler.sweepOnce()).dispatched).toBe(1);
    expect(t.bus.published).toEqual([id, id]);
    expect(await gauge(t.metrics.pending)).toBe(1);

    // Once claimed it is no longer due.
    await t.stores.runs.claim(id!, 'exec', t.settings.leaseMs, t.clock.now());
    t.clock.advance(15_000);
    expect((await t.scheduler.sweepOnce()).dispatched).toBe(0);
  });

  it('loops while a step returns a full batch', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    for (let i = 0; i < SWEEP_BATCH + 5; i += 1) await t.keep('gh');
    t.clock.advance(15_000);
    expect((await t.scheduler.sweepOnce()).dispatched).toBe(SWEEP_BATCH + 5);
    expect(new Set(t.bus.published).size).toBe(SWEEP_BATCH + 5);
  });

  it('takes over a lapsed lease and publishes the run at once', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const [id] = await t.keep('gh');
    await t.stores.runs.claim(id!, 'dead-worker', t.settings.leaseMs, t.clock.now());
    t.clock.advance(t.settings.leaseMs + 1);
    const report = await t.scheduler.sweepOnce();
    expect(report).toMatchObject({ retried: 1, failed: 0 });
    expect(t.bus.published).toContain(id);
    const lapsed = await t.stores.runs.get(id!);
    expect(lapsed).toMatchObject({ status: 'retry_wait', attempts: 1, lease: null });
    expect(await gauge(t.metrics.leaseLapsed)).toBe(1);
    // Announced as a scheduled retry, due at once, with the lapse as its error.
    expect(t.events.map((e) => [e.run_id, e.event, e.status, e.due_at, e.error_kind])).toEqual([
      [id, 'retry_scheduled', 'retry_wait', lapsed!.due_at, lapsed!.error!.kind],
    ]);
    // A new worker can claim it right away.
    expect(await t.stores.runs.claim(id!, 'exec-2', t.settings.leaseMs, t.clock.now())).not.toBeNull();
  });

  it('holds a lapsed started run as failed and reports it like any failed run', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    await t.stores.hooks.putHook(hook('alert', HOOKS_RUN_FAILED_TOPIC));
    const [id] = await t.keep('gh');
    const c = await t.stores.runs.claim(id!, 'dead-worker', t.settings.leaseMs, t.clock.now());
    await t.stores.runs.act(id!, c!.token, { acted: 'start', input: {}, resumable: false }, t.clock.now());
    t.clock.advance(t.settings.leaseMs + 1);
    expect(await t.scheduler.sweepOnce()).toMatchObject({ failed: 1, retried: 0, replayed: 0 });
    expect(await t.stores.runs.get(id!)).toMatchObject({ status: 'failed', acted: 'start' });
    expect(t.lines.find((l) => l.msg === 'hook run failed')).toMatchObject({ level: 50, run: id, hook: 'h', topic: 'gh' });
    expect(t.events.map((e) => [e.run_id, e.event, e.status])).toEqual([[id, 'finished', 'failed']]);
    const alerts = (await t.stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10)).runs;
    expect(alerts.map((r) => (r.payload as { run_id: string }).run_id)).toEqual([id]);
    // Kept with the fail transition, due at once: the next sweep dispatches it.
    expect(t.bus.published).toEqual([]);
    await t.scheduler.sweepOnce();
    expect(t.bus.published).toEqual([alerts[0]!.id]);
    expect(await gauge(t.metrics.heldFailed)).toBe(1);
  });

  it('replays a lapsed crash-resumable start', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const [id] = await t.keep('gh');
    const c = await t.stores.runs.claim(id!, 'dead-worker', t.settings.leaseMs, t.clock.now());
    await t.stores.runs.act(id!, c!.token, { acted: 'start', input: { a: 1 }, resumable: true }, t.clock.now());
    t.clock.advance(t.settings.leaseMs + 1);
    expect(await t.scheduler.sweepOnce()).toMatchObject({ replayed: 1, failed: 0 });
    expect(t.bus.published).toEqual([id]);
  });

  it('expires finished runs after retention and never expires failed ones', async () => {
    const t = await setup();
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('ok', 'gh'));
    await t.stores.hooks.putHook(hook('bad', 'gh'));
    const ids = await t.keep('gh');
    for (const id of ids) {
      const c = await t.stores.runs.claim(id, 'exec', t.settings.leaseMs, t.clock.now());
      if (c!.run.hook === 'ok') await t.stores.runs.complete(id, c!.token, 'succeeded', 1, t.clock.now());
      else await t.stores.runs.fail(id, c!.token, { kind: 'bad_input', message: 'x' }, t.clock.now());
    }
    t.clock.advance(t.settings.retentionMs - 1);
    expect((await t.scheduler.sweepOnce()).expired).toBe(0);
    t.clock.advance(2);
    expect((await t.scheduler.sweepOnce()).expired).toBe(1);
    t.clock.advance(100 * t.settings.retentionMs);
    expect((await t.scheduler.sweepOnce()).expired).toBe(0);
    const left = await Promise.all(ids.map((id) => t.stores.runs.get(id)));
    expect(left.filter((r) => r !== null).map((r) => [r.hook, r.status])).toEqual([['bad', 'failed']]);
  });

  it('reports a step that throws and still runs the others', async () => {
    const down = (s: Stores): Stores => ({
      ...s,
      runs: Object.assign(Object.create(s.runs) as Stores['runs'], {
        sweepDue: async () => {
          throw new HookyardError('unavailable', 'connect ECONNREFUSED 127.0.0.1:6379');
        },
      }),
    });
    const t = await setup({ stores: down });
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const [id] = await t.keep('gh');
    await t.stores.runs.claim(id!, 'dead-worker', t.settings.leaseMs, t.clock.now());
    t.clock.advance(t.settings.leaseMs + 1);
    const report = await t.scheduler.sweepOnce();
    expect(report.errors).toEqual(['due: unavailable: connect ECONNREFUSED 127.0.0.1:6379']);
    expect(report.retried).toBe(1);
    expect(t.lines.find((l) => l.msg.includes('sweep step failed'))).toMatchObject({ level: 50, step: 'due' });
  });

  it('stop() waits for a sweep in progress', async () => {
    let releaseSweep!: () => void;
    const held = new Promise<void>((r) => (releaseSweep = r));
    let counted = false;
    const slow = (s: Stores): Stores => ({
      ...s,
      runs: Object.assign(Object.create(s.runs) as Stores['runs'], {
        counts: async () => {
          await held;
          counted = true;
          return s.runs.counts();
        },
      }),
    });
    const t = await setup({ stores: slow });
    const sweeping = t.scheduler.sweepOnce();
    let stopped = false;
    const stopping = t.scheduler.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    releaseSweep();
    await stopping;
    expect(counted).toBe(true);
    await sweeping;
  });

  it('sweeps on its own every sweepMs', async () => {
    const t = await setup({ settings: { sweepMs: 10 } });
    running.push(t.scheduler);
    await t.stores.hooks.putHook(hook('h', 'gh'));
    const [id] = await t.keep('gh');
    t.clock.advance(15_000);
    for (let i = 0; i < 200 && t.bus.published.length === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(t.bus.published).toEqual([id]);
  });
});
