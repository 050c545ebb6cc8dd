'use strict';
/**
 * End to end: runs completed per second (ingress, scheduler, executor as
 * separate processes; condition + start_expr + echo tool) and accept-to-start
 * latency at 25, 50 and 75 % of Hookyard's measured maximum, against express +
 * BullMQ (route adds a job, a worker with concurrency 50 runs the same echo) on
 * the same Redis at the same rates. Runs alternate.
 */
const path = require('node:path');
const { BENCH_DIR, ROOT, deps, log, sleep, summary, ratio, percentile } = require('../lib/common');
const { startScript, startAll } = require('../lib/procs');
const { runLoad } = require('../lib/load');
const { measureCpu } = require('../lib/cpu');
const { REDIS_URL, NATS_URL, measureRedis } = require('../lib/infra');
const { startStack, registerHook, runsOf, metricOver } = require('../lib/hookyard');

/** The Hookyard hook's start_expr: the tool's arguments from the payload, as a real hook would. */
const START_EXPR = { content: '{action: .action, number: .number}' };

const BULL = path.join(BENCH_DIR, 'bullmq-app.js');
/** Constant rates of the latency runs, as fractions of Hookyard's median maximum runs/s. */
const LATENCY_FRACTIONS = [0.25, 0.5, 0.75];
/**
 * Targets: p99 accept-to-start at most this times BullMQ's at the same rate (issue 36), p50 at most this many ms (issue 24),
 * runs/s at least this times BullMQ's (issue 36), CPU ms per run of the servers + Redis + NATS at most this times BullMQ's
 * app + worker + Redis (issue 36; the load generator and the rest of the machine left out).
 */
const P99_RATIO_TARGET = 3;
const P50_TARGET_MS = 5;
const RUNS_RATIO_TARGET = 1.0;
const CPU_RATIO_TARGET = 1.1;
/** The processes whose CPU a run costs, by system (cpuMsPerRun keys). */
const CPU_OF = { hookyard: ['ingress', 'scheduler', 'executor', 'all', 'redis', 'nats'], bullmq: ['app', 'worker', 'redis'] };
/** Targets (issue 24) per started run: Redis scripts (a count), Redis µs in them, the executor's CPU ms. */
const SCRIPTS_PER_RUN_TARGET = 3;
const SCRIPT_USEC_PER_RUN_TARGET = 300;
const EXECUTOR_CPU_MS_TARGET = 0.4;

async function startBull(prefix) {
  const env = { BENCH_REDIS_URL: REDIS_URL, BENCH_PREFIX: prefix, BENCH_CONCURRENCY: '50' };
  const app = startScript('bullmq-app', BULL, ['app'], env);
  const worker = startScript('bullmq-worker', BULL, ['worker'], env);
  await startAll([app, worker]);
  return { app, worker, procs: [app, worker] };
}

async function bullStats(worker, samples = false) {
  const res = await fetch(`${worker.url}/stats${samples ? '?samples=1' : ''}`);
  return res.json();
}

/**
 * Sends `load` while polling `probe` every 50 ms; returns the load result and the
 * time the probe first said all (events answered 2xx) x perEvent runs had finished,
 * at or after the last answer. A load of `amount` events is polled from its start,
 * against amount x perEvent until the load says how many were answered 2xx:
 * autocannon ends on its 1 s sampling tick, so waiting for it before the first
 * poll counted the time to the next whole second as the system's (5,000 events
 * whose runs were done in 1.7 s measured 2.04 s, and any rate came out near
 * n / 1.04 s or n / 2.04 s). A duration load (no amount), or a probe with
 * `afterLoad: true` (one that scrapes /metrics), is polled once the load ended.
 * A probe is {snapshot(), isDone(base, target), finished(base)}; it must cost the
 * system under test next to nothing (no /metrics scrape in the loop). `onDone`, when
 * given, is called at each poll that found the runs done; what it returned at the one
 * that counts comes back as `doneMark` (a CPU mark, so CPU is counted up to then).
 */
async function loadUntilDone(load, probe, perEvent, timeoutMs, onDone) {
  const base = await probe.snapshot();
  let target = null;
  let lastAnswerAt = null;
  // Times the probe said done (with onDone's mark); the first at or after the last answer is the end.
  const doneTimes = [];
  let doneAt = null;
  let doneMark;
  const poller = (async () => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const expect = target ?? (load.amount && !probe.afterLoad ? load.amount * perEvent : null);
      if (expect !== null) {
        // The time the answer came back: never before the runs were done.
        if (await probe.isDone(base, expect)) doneTimes.push({ at: Date.now(), mark: onDone?.() });
        // Before the load ended only its end can tell which of these counts: keep polling.
        if (lastAnswerAt !== null) {
          const first = doneTimes.find((t) => t.at >= lastAnswerAt);
          if (first !== undefined) {
            doneAt = first.at;
            doneMark = first.mark;
            return;
          }
        }
      }
      await sleep(50);
    }
  })();
  const res = await runLoad(load);
  target = res.ok * perEvent;
  // Polled in this process with the same clock; a load that answered nothing ends at its start.
  lastAnswerAt = res.lastAnswerAt || res.start;
  await poller;
  let finished = await probe.finished(base);
  if (doneAt === null) throw new Error(`only ${finished} of ${target} runs finished within ${timeoutMs} ms`);
  // The store says a run finished the moment its outcome is written; the executor counts it
  // (succeeded_total) once that write has answered, a little later: wait for the count to catch up.
  for (const end = Date.now() + 10_000; finished < target && Date.now() < end; finished = await probe.finished(base)) await sleep(100);
  if (finished < target) {
    const how = probe.describe ? `; runs by status: ${JSON.stringify(await probe.describe())}` : '';
    throw new Error(`${finished} of ${target} runs succeeded (the rest ended otherwise)${how}`);
  }
  return { load: res, doneAt, doneMark, finished };
}

/**
 * Hookyard's probe: runs still to do (pending + running + retry_wait) read from
 * Redis through the store API (16 ZCARDs), and the executors' succeeded counter
 * read once before and once after.
 */
async function hookyardProbe(stack) {
  const { createRedisStores } = require(path.join(ROOT, 'packages', 'store', 'dist'));
  const stores = await createRedisStores({ url: REDIS_URL, prefix: stack.prefix, partitions: 4 });
  // The executors' counter: the executor role's, or the one process of `serve --role all`.
  const executors = stack.procs.filter((p) => p.name.includes('executor') || p.name.endsWith('-all'));
  return {
    snapshot: () => metricOver(executors, 'succeeded_total'),
    async isDone() {
      const c = await stores.runs.counts();
      return c.pending + c.running + c.retry_wait === 0;
    },
    finished: async (base) => (await metricOver(executors, 'succeeded_total')) - base,
    describe: () => stores.runs.counts(),
    close: () => stores.close(),
  };
}

/** The process that serves the door: the ingress, or the one process of `serve --role all`. */
const doorOf = (stack) => stack.byRole.ingress || stack.byRole.all;

/** Hookyard's side of a comparison; `name` keys its results (the single-process section has two). */
async function hookyardSide(stack, name = 'hookyard') {
  return {
    name,
    kind: 'hookyard',
    stack,
    pids: Object.fromEntries(Object.entries(stack.byRole).map(([role, p]) => [role, p.pid])),
    url: (topic) => `${doorOf(stack).url}/universal_webhook/${topic}`,
    probe: await hookyardProbe(stack),
  };
}

function bullSide(bull) {
  const completed = async () => (await bullStats(bull.worker)).completed;
  return {
    name: 'bullmq',
    kind: 'bullmq',
    pids: { app: bull.app.pid, worker: bull.worker.pid },
    url: (topic) => `${bull.app.url}/universal_webhook/${topic}`,
    probe: {
      snapshot: completed,
      isDone: async (base, target) => (await completed()) - base >= target,
      finished: async (base) => (await completed()) - base,
      close: async () => undefined,
    },
  };
}

async function throughputRun(ctx, side, n) {
  const cpu = measureCpu(side.pids);
  const redis = await measureRedis();
  const load = { url: side.url('bench'), bodyBytes: 1024, connections: 50, amount: n };
  const r = await loadUntilDone(load, side.probe, 1, ctx.smoke ? 60_000 : 180_000, () => cpu.mark());
  const seconds = (r.doneAt - r.load.start) / 1000;
  // Up to the poll that found the runs done: not the load generator's wait for its tick, nor the counters' catch-up.
  const c = cpu.end(r.finished, r.load.cpuMs, r.doneMark);
  const redisPerRun = await redis.end(r.finished);
  const out = {
    events: r.load.ok,
    runsPerSecond: Math.round(r.finished / seconds),
    acceptedPerSecond: Math.round(r.load.perSecond),
    seconds,
    cpuMsPerRun: c.msPerRequest,
    machineBusyPercent: c.machineBusyPercent,
    redisPerRun,
  };
  log(
    `e2e ${side.name}: ${out.events} events, runs/s ${out.runsPerSecond} (accepted ${out.acceptedPerSecond}/s)${r.load.warning ? ` (${r.load.warning})` : ''}`,
  );
  return out;
}

/** Constant-rate load on a fresh topic; accept-to-start of every run/job it made, in ms. */
async function latencyRun(ctx, side, i, rate, bull) {
  const seconds = ctx.smoke ? 1 : 3;
  const stack = side.stack;
  let topic = 'bench';
  if (side.kind === 'hookyard') {
    topic = `lat${i}`;
    await registerHook(doorOf(stack).url, `lat${i}`, topic, { start_expr: START_EXPR });
  } else {
    await fetch(`${bull.worker.url}/reset`, { method: 'POST' });
  }
  // Hookyard: a plain NATS subscriber on the run subject sees when each id reached the bus,
  // which splits accept-to-start into door -> bus and bus -> claim.
  const tap = side.kind === 'hookyard' ? await busTap(stack.prefix) : null;
  let r;
  const cpu = measureCpu(side.pids);
  try {
    r = await loadUntilDone({ url: side.url(topic), bodyBytes: 1024, connections: 20, duration: seconds, overallRate: rate }, side.probe, 1, 120_000);
  } finally {
    if (tap) await tap.close();
  }
  let samples;
  let split = null;
  if (side.kind === 'hookyard') {
    const runs = await runsOf(doorOf(stack).url, `lat${i}`);
    samples = runs.filter((x) => x.started_at).map((x) => Date.parse(x.started_at) - Date.parse(x.created_at));
    const toBus = [];
    const toClaim = [];
    const toStart = [];
    for (const x of runs) {
      // The tool start: the `acted` line the executor writes just before it calls the tool.
      const acted = (x.history || []).find((h) => h.event === 'acted');
      if (acted && x.started_at) toStart.push(Date.parse(acted.at) - Date.parse(x.started_at));
      const at = tap.seen.get(x.id);
      if (at === undefined || !x.started_at) continue;
      toBus.push(at - Date.parse(x.created_at));
      toClaim.push(Date.parse(x.started_at) - at);
    }
    split = {
      doorToBusMs: { p50: percentile(toBus, 50), p99: percentile(toBus, 99) },
      busToClaimMs: { p50: percentile(toClaim, 50), p99: percentile(toClaim, 99) },
      claimToStartMs: { p50: percentile(toStart, 50), p99: percentile(toStart, 99) },
      seen: toBus.length,
    };
  } else {
    samples = (await bullStats(bull.worker, true)).samples;
  }
  const out = {
    offeredPerSecond: rate,
    sentPerSecond: Math.round(r.load.perSecond),
    samples: samples.length,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    maxMs: percentile(samples, 100),
    ...(split ? { split } : {}),
    cpuMsPerRun: cpu.end(r.finished, r.load.cpuMs).msPerRequest,
  };
  log(
    `e2e latency ${side.name} at ${rate}/s: p50 ${out.p50Ms} ms p99 ${out.p99Ms} ms (${out.samples} runs)` +
      (split
        ? `; door->bus p50 ${split.doorToBusMs.p50} p99 ${split.doorToBusMs.p99}, bus->claim p50 ${split.busToClaimMs.p50} p99 ${split.busToClaimMs.p99}, claim->tool start p50 ${split.claimToStartMs.p50} p99 ${split.claimToStartMs.p99}`
        : '') +
      `; CPU ms/run ${JSON.stringify(out.cpuMsPerRun)}`,
  );
  return out;
}

/** Records when each run id is published on the prefix's run subject (core NATS subscriber; consumes nothing). */
async function busTap(prefix) {
  const { connect } = deps.nats();
  const nc = await connect({ servers: NATS_URL });
  const seen = new Map();
  const sub = nc.subscribe(`${prefix}.runs.ready.>`, {
    callback: (err, msg) => {
      if (err) return;
      const at = Date.now();
      try {
        for (const id of JSON.parse(new TextDecoder().decode(msg.data))) if (!seen.has(id)) seen.set(id, at);
      } catch {
        /* not an id list */
      }
    },
  });
  await nc.flush();
  return {
    seen,
    async close() {
      sub.unsubscribe();
      await nc.close();
    },
  };
}

async function e2e(ctx) {
  const prefix = ctx.newPrefix('e2e');
  const stack = await startStack(prefix, ['ingress', 'scheduler', 'executor'], { HOOKS_MAX_WORKERS: '50' });
  ctx.track(stack.procs);
  const bull = await startBull(prefix);
  ctx.track(bull.procs);
  await registerHook(doorOf(stack).url, 'b1', 'bench', { start_expr: START_EXPR });
  const sides = [await hookyardSide(stack), bullSide(bull)];
  const n = ctx.smoke ? 100 : 5000;

  if (!ctx.smoke) for (const s of sides) await throughputRun(ctx, s, 300); // warm-up
  const tput = { hookyard: [], bullmq: [] };
  for (let i = 0; i < ctx.runs; i++) {
    for (const s of i % 2 === 0 ? sides : [...sides].reverse()) tput[s.name].push(await throughputRun(ctx, s, n));
  }
  const hyRate = summary(tput.hookyard.map((r) => r.runsPerSecond));
  const bqRate = summary(tput.bullmq.map((r) => r.runsPerSecond));
  // Both systems get the same offered rates: fractions of Hookyard's measured max.
  const rates = LATENCY_FRACTIONS.map((fraction) => ({ fraction, offered: Math.max(10, Math.round(hyRate.median * fraction)) }));
  const lat = rates.map(() => ({ hookyard: [], bullmq: [] }));
  for (let i = 0; i < ctx.runs; i++) {
    for (const [k, rate] of rates.entries()) {
      const order = (i + k) % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) lat[k][s.name].push(await latencyRun(ctx, s, `${i}f${k}`, rate.offered, bull));
    }
  }
  // Optional: accept-to-start at other offered rates (one run each), to find the knee.
  const curve = [];
  for (const rate of ctx.latencyRates || []) {
    for (const s of sides) curve.push({ system: s.name, ...(await latencyRun(ctx, s, `r${rate}`, rate, bull)) });
  }
  for (const side of sides) await side.probe.close();
  await ctx.stop([...stack.procs, ...bull.procs]);
  const latencyOf = (l) => ({
    p50Ms: hyOr(l, 'p50Ms'),
    p99Ms: hyOr(l, 'p99Ms'),
    maxMs: hyOr(l, 'maxMs'),
    samples: l.map((x) => x.samples),
    ...(l.some((x) => x.split) ? { split: l.map((x) => x.split) } : {}),
  });
  const pack = (t) => ({
    runsPerSecond: hyOr(t, 'runsPerSecond'),
    cpuMsPerRun: medians(t.map((x) => x.cpuMsPerRun)),
    redisPerRun: t.length ? t[t.length - 1].redisPerRun : null,
    machineBusyPercent: hyOr(t, 'machineBusyPercent'),
    acceptedPerSecond: hyOr(t, 'acceptedPerSecond'),
  });
  const latency = rates.map((rate, k) => {
    const hy = latencyOf(lat[k].hookyard);
    const bq = latencyOf(lat[k].bullmq);
    const p99Ratio = ratio(hy.p99Ms.median, bq.p99Ms.median);
    return {
      fraction: rate.fraction,
      offeredPerSecond: rate.offered,
      hookyard: hy,
      bullmq: bq,
      p99Ratio: { value: p99Ratio, target: P99_RATIO_TARGET, met: p99Ratio != null && p99Ratio <= P99_RATIO_TARGET },
      p50: { valueMs: hy.p50Ms.median, targetMs: P50_TARGET_MS, met: hy.p50Ms.median != null && hy.p50Ms.median <= P50_TARGET_MS },
      stages: hy.split ? stageMedians(hy.split) : null,
    };
  });
  const r = ratio(hyRate.median, bqRate.median);
  // Scripts per run: EVALSHA and EVAL calls over each throughput run's runs (the sweeps' share included).
  const scriptsOf = (t) => {
    const rows = t.redisPerRun || {};
    const calls = ['evalsha', 'eval'].reduce((a, k) => a + (rows[k] ? rows[k].callsPer : 0), 0);
    const usec = ['evalsha', 'eval'].reduce((a, k) => a + (rows[k] ? rows[k].usecPer : 0), 0);
    return { calls: Math.round(calls * 100) / 100, usec: Math.round(usec) };
  };
  const scripts = tput.hookyard.map(scriptsOf);
  const scriptCalls = summary(scripts.map((x) => x.calls));
  const scriptUsec = summary(scripts.map((x) => x.usec));
  // CPU per run of each system (its servers, Redis, and NATS for Hookyard), pair by pair.
  const cpuPairs = tput.hookyard.map((x, i) => ratio(cpuPerRun(x.cpuMsPerRun, 'hookyard'), cpuPerRun(tput.bullmq[i].cpuMsPerRun, 'bullmq')));
  const cpuH = summary(tput.hookyard.map((x) => cpuPerRun(x.cpuMsPerRun, 'hookyard')));
  const cpuB = summary(tput.bullmq.map((x) => cpuPerRun(x.cpuMsPerRun, 'bullmq')));
  const cpuRatio = ratio(cpuH.median, cpuB.median);
  const executorCpu = summary(tput.hookyard.map((x) => (x.cpuMsPerRun ? x.cpuMsPerRun.executor : null)).filter((v) => v != null));
  return {
    perRun: {
      scripts: { value: scriptCalls, target: SCRIPTS_PER_RUN_TARGET, met: scriptCalls.median != null && scriptCalls.median <= SCRIPTS_PER_RUN_TARGET },
      scriptUsec: { value: scriptUsec, target: SCRIPT_USEC_PER_RUN_TARGET, met: scriptUsec.median != null && scriptUsec.median <= SCRIPT_USEC_PER_RUN_TARGET },
      executorCpuMs: { value: executorCpu, target: EXECUTOR_CPU_MS_TARGET, met: executorCpu.median != null && executorCpu.median <= EXECUTOR_CPU_MS_TARGET },
    },
    method:
      `${n} events (1 KB JSON, 50 connections, as fast as autocannon sends) per run; runs/s = runs finished / (time from the first request to the last run finished, polled every 50 ms: Hookyard through the store's run counts in Redis, BullMQ through the worker's completed counter); ` +
      `then constant rates (evenly paced by the load generator: request i due at i / rate, latency from when it was due) of ${LATENCY_FRACTIONS.map((f) => `${f * 100} %`).join(', ')} of Hookyard's median max (${rates.map((x) => `${x.offered}/s`).join(', ')}) for ${ctx.smoke ? 1 : 3} s each on both; accept-to-start from each run's created_at/started_at (Hookyard) and job.timestamp/processedOn (BullMQ). ` +
      `${ctx.runs} runs alternating. Hookyard: HOOKS_MAX_WORKERS=50, one executor, a condition and a start_expr on the hook; BullMQ worker concurrency 50.`,
    events: n,
    hookyard: pack(tput.hookyard),
    bullmq: pack(tput.bullmq),
    latency,
    ratio: {
      value: r,
      pairs: summary(tput.hookyard.map((x, i) => ratio(x.runsPerSecond, tput.bullmq[i].runsPerSecond))),
      target: RUNS_RATIO_TARGET,
      met: r != null && r >= RUNS_RATIO_TARGET,
    },
    cpuPerRun: {
      hookyardMs: cpuH,
      bullmqMs: cpuB,
      value: cpuRatio,
      pairs: summary(cpuPairs),
      counted: CPU_OF,
      target: CPU_RATIO_TARGET,
      met: cpuRatio != null && cpuRatio <= CPU_RATIO_TARGET,
    },
    ...(curve.length ? { latencyCurve: curve } : {}),
  };
}

/** CPU ms per run summed over a system's processes (CPU_OF), from a cpuMsPerRun table; null when one is missing. */
function cpuPerRun(table, system) {
  const keys = CPU_OF[system].filter((k) => table && table[k] != null);
  if (!table || !keys.some((k) => k !== 'redis' && k !== 'nats')) return null;
  return Math.round(keys.reduce((a, k) => a + table[k], 0) * 1000) / 1000;
}

/** Per stage, the median over the runs of each run's p50 and p99. */
function stageMedians(splits) {
  const out = {};
  for (const stage of ['doorToBusMs', 'busToClaimMs', 'claimToStartMs']) {
    out[stage] = { p50: summary(splits.map((x) => x[stage].p50)).median, p99: summary(splits.map((x) => x[stage].p99)).median };
  }
  return out;
}

/** Per key, the median over the runs. */
function medians(list) {
  const keys = [...new Set(list.flatMap((x) => Object.keys(x || {})))];
  return Object.fromEntries(keys.map((k) => [k, summary(list.map((x) => x && x[k])).median]));
}

function hyOr(list, key) {
  return summary(list.map((x) => x[key]));
}

module.exports = { e2e, startBull, loadUntilDone, hookyardProbe, hookyardSide, throughputRun, latencyRun, cpuPerRun, START_EXPR };
