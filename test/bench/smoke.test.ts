/**
 * The benchmark suite still works: `node test/bench/run.js --smoke` runs every
 * section once, briefly, against the real Redis and JetStream, exits 0 and
 * writes results.json with each section present. No speed is asserted.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireNats, requireRedis } from '../support/services';
import { requireBuiltCli } from '../support/processes';

// The agent section adds ~40 s on a busy 2-core machine (every section together took ~165 s there).
jest.setTimeout(360_000);

const SECTIONS = ['door', 'e2e', 'single', 'conditions', 'growth', 'cost', 'memory', 'catalogue', 'agent', 'waiters', 'counters'];

describe('benchmark suite (smoke)', () => {
  let out: string;

  beforeAll(async () => {
    await requireRedis();
    await requireNats();
    requireBuiltCli();
    out = mkdtempSync(join(tmpdir(), 'hookyard-bench-'));
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs every section and writes results.json', async () => {
    const child = spawn(process.execPath, [join(__dirname, 'run.js'), '--smoke', '--out', out], {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 340_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`bench smoke exited ${code}:\n${log.slice(-6000)}`);

    const file = join(out, 'results.json');
    expect(existsSync(file)).toBe(true);
    const results = JSON.parse(readFileSync(file, 'utf8')) as {
      mode: string;
      machine: Record<string, unknown>;
      sections: Record<string, Record<string, unknown>>;
    };
    expect(results.mode).toBe('smoke');
    expect(results.machine).toEqual(
      expect.objectContaining({ cores: expect.any(Number), node: expect.any(String), redis: expect.any(String), nats: expect.any(String) }),
    );
    for (const name of SECTIONS) {
      expect(results.sections[name]).toBeDefined();
      expect(results.sections[name]).not.toHaveProperty('error');
    }
    expect(results.sections.door).toEqual(expect.objectContaining({ hookyard: expect.any(Object), ceiling: expect.any(Object), ratio: expect.any(Object) }));
    expect(results.sections.e2e).toEqual(expect.objectContaining({ hookyard: expect.any(Object), bullmq: expect.any(Object), ratio: expect.any(Object) }));
    expect(results.sections.growth).toEqual(expect.objectContaining({ hooks: expect.any(Object), fanOut: expect.any(Object), payloads: expect.any(Object) }));
    expect(results.sections.memory).toEqual(
      expect.objectContaining({ soak: expect.any(Object), peakRssMiB: expect.any(Object), idle: expect.objectContaining({ rssMiB: expect.any(Object) }) }),
    );
    // CPU per run of both systems, each a sum over its processes, and their ratio.
    const e2e = results.sections.e2e as { cpuPerRun: { hookyardMs: { median: number }; bullmqMs: { median: number }; value: number } };
    expect(e2e.cpuPerRun.hookyardMs.median).toBeGreaterThan(0);
    expect(e2e.cpuPerRun.bullmqMs.median).toBeGreaterThan(0);
    expect(e2e.cpuPerRun.value).toBeGreaterThan(0);
    // The single-process shape ran the same events as the three-process one.
    const single = results.sections.single as Record<'single' | 'three', { runsPerSecond: { median: number }; samples: number[] }>;
    for (const shape of [single.single, single.three]) {
      expect(shape.runsPerSecond.median).toBeGreaterThan(0);
      expect(shape.samples.every((n) => n > 0)).toBe(true);
    }
    // Cost as work grows: each size was filled in turn and measured (door, claim, the list queries).
    const cost = results.sections.cost as {
      reached: number;
      steps: { filled: number; runsPerSecond: { median: number }; keyBytesPerRun: { hash: number; indexes: number }; lists: Record<string, unknown> }[];
    };
    expect(cost.steps.map((s) => s.filled)).toEqual([1000, 5000]);
    expect(cost.reached).toBe(5000);
    for (const step of cost.steps) {
      expect(step.runsPerSecond.median).toBeGreaterThan(0);
      expect(Object.keys(step.lists)).toHaveLength(4);
      expect(step.keyBytesPerRun.hash).toBeGreaterThan(0);
      expect(step.keyBytesPerRun.indexes).toBeGreaterThan(0);
    }
    // The waiters: the calls really waited in each window (counted as open approvals), run events flowed past them, and they all ended denied.
    const waiters = results.sections.waiters as {
      few: { waiting: number; runs: { waiting: number; events: number; runEventsOnNats: number }[] };
      many: { waiting: number; runs: { waiting: number; events: number; runEventsOnNats: number }[] };
      ended: Record<string, number>;
      ratio: { value: number };
    };
    expect(waiters.few.runs.map((r) => r.waiting)).toEqual([5, 5]);
    expect(waiters.many.runs.map((r) => r.waiting)).toEqual([50, 50]);
    for (const r of [...waiters.few.runs, ...waiters.many.runs]) {
      expect(r.events).toBeGreaterThan(0);
      expect(r.runEventsOnNats).toBeGreaterThan(0);
    }
    expect(waiters.ended).toEqual({ denied: 50 });
    expect(waiters.ratio.value).toBeGreaterThan(0);
    // The agent door: both systems answered every call at each rate and at saturation (each answer echoes its arguments).
    const agent = results.sections.agent as {
      rates: { rate: number; hookyard: { failures: number[]; calls: number[] }; direct: { failures: number[]; calls: number[] } }[];
      saturation: { hookyard: { failures: number[]; calls: number[] }; direct: { failures: number[]; calls: number[] }; ratio: { value: number } };
    };
    expect(agent.rates.map((r) => r.rate)).toEqual([50, 200]);
    for (const side of [...agent.rates.flatMap((r) => [r.hookyard, r.direct]), agent.saturation.hookyard, agent.saturation.direct]) {
      expect(side.failures.every((n) => n === 0)).toBe(true);
      expect(side.calls.every((n) => n > 0)).toBe(true);
    }
    expect(agent.saturation.ratio.value).toBeGreaterThan(0);
    // The counters add Redis commands to the same scripts (a count, not a timing): more commands, no more scripts.
    const counters = results.sections.counters as {
      commandsPerRun: Record<'on' | 'off', { median: number }>;
      scriptsPerRun: Record<'on' | 'off', { median: number }>;
    };
    expect(counters.commandsPerRun.on.median).toBeGreaterThan(counters.commandsPerRun.off.median);
    expect(counters.scriptsPerRun.on.median).toBe(counters.scriptsPerRun.off.median);
    expect(existsSync(join(out, 'RESULTS.md'))).toBe(true);
  });
});
