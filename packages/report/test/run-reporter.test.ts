import { HOOKS_RUN_FAILED_TOPIC, ManualClock, createLogger, createMetrics, unavailable, type Hook, type RunHead } from '@hookyard/core';
import type { RunBus, RunSummary } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createRunReporter, type RunReporterDeps } from '@hookyard/report';

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

const ERROR = 50;
const WARN = 40;

function hook(name: string, topic: string): Hook {
  const at = new Date(0).toISOString();
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at };
}

/** A reporter over the in-memory store, a bus that records what it was asked to publish, and a captured log. */
function setup(over: Partial<RunReporterDeps> = {}) {
  const stores = createMemoryStores();
  const clock = new ManualClock(Date.parse('2025-01-01T00:00:00Z'));
  const metrics = createMetrics({ defaultMetrics: false });
  const lines: LogLine[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) } });
  const published: string[][] = [];
  const bus: Pick<RunBus, 'publish'> = { publish: async (ids) => void published.push([...ids]) };
  const events: RunSummary[] = [];
  const reporter = createRunReporter({
    runs: stores.runs,
    bus,
    metrics,
    logger,
    clock,
    dispatchGraceMs: 5000,
    events: { publish: async (s) => void events.push(s) },
    ...over,
  });
  return { stores, clock, metrics, lines, published, events, reporter };
}

/** Keeps one run of `greet` on `demo`, claims it and fails it: the run as the store left it. */
async function failedRun(stores: Stores, now: number): Promise<RunHead> {
  await stores.hooks.putHook(hook('greet', 'demo'));
  const [kept] = await stores.runs.keepEvent({ topic: 'demo', payload: { n: 1 }, now, dispatchGraceMs: 5000 });
  const claimed = await stores.runs.claim(kept!.id, 'worker-1', 30_000, now);
  return stores.runs.fail(kept!.id, claimed!.token, { kind: 'bad_input', message: 'no such field' }, now + 10);
}

describe('createRunReporter', () => {
  it('reports a failed run: one ERROR line naming it, the failed counter by kind, its summary to the sink', async () => {
    const { stores, clock, metrics, lines, events, reporter } = setup();
    const run = await failedRun(stores, clock.now());
    await reporter.finished(run);

    const errors = lines.filter((l) => l.level === ERROR);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: 'hook run failed',
      run: run.id,
      hook: 'greet',
      topic: 'demo',
      attempt: 1,
      kind: 'bad_input',
      message: 'no such field',
    });
    expect(await metrics.registry.getSingleMetricAsString('tai42_hook_runs_failed_total')).toContain('hook="greet",kind="bad_input"} 1');
    expect(events).toEqual([expect.objectContaining({ run_id: run.id, event: 'finished', status: 'failed', error_kind: 'bad_input', duration_ms: 10 })]);
  });

  it('logs no error for a run that succeeded, and counts it', async () => {
    const { stores, clock, metrics, lines, events, reporter } = setup();
    await stores.hooks.putHook(hook('greet', 'demo'));
    const [kept] = await stores.runs.keepEvent({ topic: 'demo', payload: {}, now: clock.now(), dispatchGraceMs: 5000 });
    const claimed = await stores.runs.claim(kept!.id, 'worker-1', 30_000, clock.now());
    const run = await stores.runs.complete(kept!.id, claimed!.token, 'succeeded', { ok: true }, clock.now());
    await reporter.finished(run);

    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
    expect(await metrics.registry.getSingleMetricAsString('tai42_hook_runs_succeeded_total')).toContain('hook="greet"} 1');
    expect(events.map((e) => e.status)).toEqual(['succeeded']);
  });

  it('never throws when the sink refuses: the miss is a warning', async () => {
    const { stores, clock, lines, reporter } = setup({
      events: {
        publish: async () => {
          throw unavailable('NATS away');
        },
      },
    });
    const run = await failedRun(stores, clock.now());
    await expect(reporter.finished(run)).resolves.toBeUndefined();
    expect(lines.filter((l) => l.level === WARN).map((l) => l.msg)).toEqual(['could not publish the run event']);
  });

  it('fires a platform event: one kept run per hook on the topic, published and announced as accepted', async () => {
    const { stores, metrics, published, events, reporter } = setup();
    await stores.hooks.putHook(hook('page-oncall', HOOKS_RUN_FAILED_TOPIC));
    await stores.hooks.putHook(hook('open-ticket', HOOKS_RUN_FAILED_TOPIC));
    await reporter.platformEvent(HOOKS_RUN_FAILED_TOPIC, { run: 'r-1' }, { run: 'r-1', hook: 'greet' });

    expect(published).toHaveLength(1);
    expect(published[0]).toHaveLength(2);
    const runs = await Promise.all(published[0]!.map((id) => stores.runs.get(id)));
    expect(runs.map((r) => r?.hook).sort()).toEqual(['open-ticket', 'page-oncall']);
    expect(events.map((e) => [e.event, e.topic, e.status])).toEqual([
      ['accepted', HOOKS_RUN_FAILED_TOPIC, 'pending'],
      ['accepted', HOOKS_RUN_FAILED_TOPIC, 'pending'],
    ]);
    expect(await metrics.registry.getSingleMetricAsString('tai42_hook_runs_dispatched_total')).toContain('source="event"} 2');
  });

  it('a platform event that cannot be kept is a warning naming the run, not a throw', async () => {
    const { lines, published, reporter } = setup({
      runs: {
        keepEvent: async () => {
          throw unavailable('store away');
        },
      },
    });
    await expect(reporter.platformEvent('hooks_approval_requested', {}, { run: 'r-9', hook: 'greet' })).resolves.toBeUndefined();
    expect(published).toEqual([]);
    expect(lines.filter((l) => l.level === WARN)).toEqual([
      expect.objectContaining({ run: 'r-9', hook: 'greet', kind: 'unavailable', msg: 'could not fire the hooks_approval_requested platform event' }),
    ]);
  });

  it('announces only when it has a sink', () => {
    expect(setup().reporter.announcing).toBe(true);
    expect(setup({ events: undefined }).reporter.announcing).toBe(false);
  });
});
