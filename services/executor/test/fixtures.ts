import { ManualClock, badInput, createLogger, createMetrics, loadSettings, openDeclaration } from '@hookyard/core';
import type { Door, Hook, Logger, Settings } from '@hookyard/core';
import { createMemoryBus, type RunBus } from '@hookyard/bus';
import type { JqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { LocalRepo, type LocalTool, type ToolCallContext, type ToolInfo } from '@hookyard/tools';
import type { RunSummary } from '@hookyard/bus';
import { RunExecutor } from '../src/run-executor';
import { createRunReporter } from '@hookyard/report';

/**
 * A jq engine answering a fixed table of expressions, so each test says
 * exactly what its condition and door contract return (or throw).
 */
export function tableJq(table: Record<string, (input: unknown, vars: Record<string, unknown>) => unknown[]>): JqEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async check() {},
    async run(expr, input, options) {
      calls.push(expr);
      const fn = table[expr];
      if (!fn) throw badInput(`jq: unknown expression ${JSON.stringify(expr)} in this test`);
      return fn(input, options?.vars ?? {});
    },
    async close() {},
  };
}

export interface ToolCall {
  args: Record<string, unknown>;
  ctx: ToolCallContext;
}

/** Declares open the states named "scope/kind": a hook binds only a declared state (registration refuses another). */
export async function declareOpen(stores: Stores, ...names: string[]): Promise<void> {
  for (const name of names) {
    const [scope, kind] = name.split('/');
    await stores.declarations.putDeclaration(openDeclaration(scope!, kind!, 'bound by these tests'), 0);
  }
}

/** A local tool whose body the test writes; every call is recorded. */
export function testTool(name: string, body: (call: ToolCall, n: number) => Promise<unknown>, info: Partial<ToolInfo> = {}): LocalTool & { calls: ToolCall[] } {
  const calls: ToolCall[] = [];
  return {
    calls,
    info: { name, description: 'test tool', parameters: { type: 'object' }, provider: 'local', ...info },
    async run(args, ctx) {
      calls.push({ args, ctx });
      return body({ args, ctx }, calls.length);
    },
  };
}

export function hook(fields: Partial<Hook> & Pick<Hook, 'name' | 'topic' | 'tool'>): Hook {
  const at = new Date(0).toISOString();
  return { tool_kwargs: {}, created_at: at, updated_at: at, ...fields };
}

export interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) } });
  return { logger, lines };
}

export interface Harness {
  settings: Settings;
  stores: Stores;
  bus: RunBus;
  clock: ManualClock;
  metrics: ReturnType<typeof createMetrics>;
  lines: LogLine[];
  logger: Logger;
  events: RunSummary[];
  executor: RunExecutor;
  /** Keeps an event on a topic and returns the ids of its runs (door `api`, not verified, unless `provenance` says otherwise). */
  keep(topic: string, payload: unknown, provenance?: { door: Door; verified: boolean }): Promise<string[]>;
}

export function harness(opts: {
  jq: JqEngine;
  /** The tools, or a function building them over the harness's stores and clock (the state tools). */
  tools: LocalTool[] | ((stores: Stores, clock: ManualClock) => LocalTool[]);
  settings?: Partial<Settings>;
  stores?: (s: Stores) => Stores;
  /** The executor's wait between two tries of an outcome write (default: a timer); gets the harness clock. */
  sleep?: (ms: number, clock: ManualClock) => Promise<void>;
}): Harness {
  const clock = new ManualClock();
  const settings = loadSettings({}, { instanceId: 'exec-1', retryBaseMs: 1000, retryCapMs: 3000, maxAttempts: 5, ...opts.settings });
  const base = createMemoryStores();
  const stores = opts.stores ? opts.stores(base) : base;
  const bus = createMemoryBus();
  const metrics = createMetrics({ defaultMetrics: false });
  const { logger, lines } = capturingLogger();
  const events: RunSummary[] = [];
  const reporter = createRunReporter({
    runs: stores.runs,
    bus,
    metrics,
    logger,
    clock,
    dispatchGraceMs: settings.dispatchGraceMs,
    events: { publish: async (s) => void events.push(s) },
  });
  const sleep = opts.sleep ? (ms: number) => opts.sleep!(ms, clock) : undefined;
  const executor = new RunExecutor({
    settings,
    stores,
    jq: opts.jq,
    tools: new LocalRepo(typeof opts.tools === 'function' ? opts.tools(stores, clock) : opts.tools),
    metrics,
    logger,
    clock,
    reporter,
    sleep,
    dispatch: (ids) => bus.publish(ids),
  });
  return {
    settings,
    stores,
    bus,
    clock,
    metrics,
    lines,
    logger,
    events,
    executor,
    async keep(topic, payload, provenance) {
      const kept = await stores.runs.keepEvent({ topic, payload, now: clock.now(), dispatchGraceMs: settings.dispatchGraceMs, ...provenance });
      return kept.map((k) => k.id);
    },
  };
}

/** The value of a counter for one label set (0 when never incremented). */
export async function counter(
  metric: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> },
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return hit?.value ?? 0;
}

/** A promise with its resolve handle, to hold a tool or a store step until the test lets it go. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Waits (bounded: about 2.5 s) until `check` holds, while the executor works on its own promises. */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}
