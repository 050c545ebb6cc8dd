'use strict';
/**
 * The single-process shape a small deployment runs: `hookyard serve --role
 * all` on Redis and JetStream, beside the three-process shape (ingress,
 * scheduler, executor), on the same machine in the same run, alternating
 * (ABBA): runs completed per second at full speed, CPU ms per run (the
 * Hookyard processes, Redis and NATS), and accept-to-start p50/p99 at one
 * evenly paced rate (half the three-process shape's median max). The same hook
 * as e2e (condition, start_expr, echo) on each shape's own prefix.
 */
const { log, summary, ratio } = require('../lib/common');
const { startStack, registerHook } = require('../lib/hookyard');
const { hookyardSide, throughputRun, latencyRun, cpuPerRun, START_EXPR } = require('./e2e');

/** The paced rate of the latency runs, as a fraction of the three-process shape's median max runs/s. */
const LATENCY_FRACTION = 0.5;

function describe(tput, lat) {
  return {
    runsPerSecond: summary(tput.map((x) => x.runsPerSecond)),
    cpuMsPerRun: summary(tput.map((x) => cpuPerRun(x.cpuMsPerRun, 'hookyard'))),
    cpuByProcess: tput.map((x) => x.cpuMsPerRun),
    machineBusyPercent: summary(tput.map((x) => x.machineBusyPercent)),
    p50Ms: summary(lat.map((x) => x.p50Ms)),
    p99Ms: summary(lat.map((x) => x.p99Ms)),
    samples: lat.map((x) => x.samples),
    ...(lat.some((x) => x.split) ? { split: lat.map((x) => x.split) } : {}),
  };
}

async function single(ctx) {
  const pThree = ctx.newPrefix('shape3');
  const pOne = ctx.newPrefix('shape1');
  // Labelled apart ('three-*', 'single-all'), so the e2e roles' peaks stay those of the e2e stacks.
  const three = await startStack(pThree, ['ingress', 'scheduler', 'executor'], { HOOKS_MAX_WORKERS: '50' }, 'three');
  let one = null;
  const sides = [];
  try {
    one = await startStack(pOne, ['all'], { HOOKS_MAX_WORKERS: '50' }, 'single');
    await registerHook(three.byRole.ingress.url, 'b1', 'bench', { start_expr: START_EXPR });
    await registerHook(one.byRole.all.url, 'b1', 'bench', { start_expr: START_EXPR });
    sides.push(await hookyardSide(three, 'three'), await hookyardSide(one, 'single'));
    const n = ctx.smoke ? 100 : 3000;
    if (!ctx.smoke) for (const s of sides) await throughputRun(ctx, s, 300); // warm-up
    const tput = { three: [], single: [] };
    for (let i = 0; i < ctx.runs; i++) for (const s of i % 2 === 0 ? sides : [...sides].reverse()) tput[s.name].push(await throughputRun(ctx, s, n));
    const rate = Math.max(10, Math.round(summary(tput.three.map((x) => x.runsPerSecond)).median * LATENCY_FRACTION));
    const lat = { three: [], single: [] };
    for (let i = 0; i < ctx.runs; i++) for (const s of i % 2 === 0 ? [...sides].reverse() : sides) lat[s.name].push(await latencyRun(ctx, s, `s${i}`, rate));
    const t = describe(tput.three, lat.three);
    const o = describe(tput.single, lat.single);
    const out = {
      method:
        `${n} events (1 KB JSON, 50 connections, autocannon at full speed) per throughput run, then an evenly paced ${rate}/s (${LATENCY_FRACTION * 100} % of the ` +
        `three-process shape's median max) for ${ctx.smoke ? 1 : 3} s per latency run; ${ctx.runs} run(s) each, alternating. Both shapes on Redis and JetStream, ` +
        `HOOKS_MAX_WORKERS=50, the e2e hook (condition, start_expr, echo). CPU per run: the Hookyard processes + Redis + NATS (not the load generator).`,
      events: n,
      offeredPerSecond: rate,
      three: t,
      single: o,
      runsRatio: ratio(o.runsPerSecond.median, t.runsPerSecond.median),
      cpuRatio: ratio(o.cpuMsPerRun.median, t.cpuMsPerRun.median),
    };
    log(
      `single: runs/s ${o.runsPerSecond.median} (all) vs ${t.runsPerSecond.median} (three roles); CPU ms/run ${o.cpuMsPerRun.median} vs ${t.cpuMsPerRun.median}; ` +
        `p50/p99 at ${rate}/s ${o.p50Ms.median}/${o.p99Ms.median} vs ${t.p50Ms.median}/${t.p99Ms.median} ms`,
    );
    return out;
  } finally {
    for (const s of sides) await s.probe.close();
    await ctx.stop([...three.procs, ...(one ? one.procs : [])]);
  }
}

module.exports = { single };
