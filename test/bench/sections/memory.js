'use strict';
/**
 * Memory: peak RSS (VmHWM) of every role seen in the other sections, and RSS
 * drift of the three roles over a soak at a moderate constant rate: median RSS
 * of the first minute versus the last minute (first/last third when shorter).
 */
const { log, sleep, summary } = require('../lib/common');
const { runLoad } = require('../lib/load');
const { startStack, registerHook, metricOver } = require('../lib/hookyard');

const MiB = 2 ** 20;
const mib = (b) => (b == null ? null : Math.round((b / MiB) * 10) / 10);

async function memory(ctx) {
  const prefix = ctx.newPrefix('mem');
  const stack = await startStack(prefix, ['ingress', 'scheduler', 'executor'], { HOOKS_MAX_WORKERS: '50' });
  ctx.track(stack.procs);
  await registerHook(stack.byRole.ingress.url, 'b1', 'bench');
  const seconds = ctx.soakSeconds;
  const rate = ctx.soakRate;
  const series = Object.fromEntries(stack.procs.map((p) => [p.name, []]));
  const executors = stack.procs.filter((p) => p.name.includes('executor'));
  const base = await metricOver(executors, 'succeeded_total');
  log(`memory: soak ${seconds} s at ${rate} events/s`);
  let sampling = true;
  const sampler = (async () => {
    const t0 = Date.now();
    while (sampling) {
      const t = (Date.now() - t0) / 1000;
      for (const p of stack.procs) {
        const m = p.memory();
        if (m) series[p.name].push([t, m.rss]);
      }
      await sleep(1000);
    }
  })();
  const load = await runLoad({
    url: `${stack.byRole.ingress.url}/universal_webhook/bench`,
    bodyBytes: 1024,
    connections: 10,
    duration: seconds,
    overallRate: rate,
  });
  sampling = false;
  await sampler;
  const finished = (await metricOver(executors, 'succeeded_total')) - base;
  const window = Math.min(60, seconds / 3);
  const drift = {};
  for (const [name, pts] of Object.entries(series)) {
    const last = pts.length ? pts[pts.length - 1][0] : 0;
    const first = summary(pts.filter(([t]) => t <= window).map(([, v]) => v)).median;
    const end = summary(pts.filter(([t]) => t >= last - window).map(([, v]) => v)).median;
    drift[name] = {
      firstWindowMedianMiB: mib(first),
      lastWindowMedianMiB: mib(end),
      driftMiB: mib(end - first),
      driftPercent: first ? Math.round(((end - first) / first) * 1000) / 10 : null,
      samples: pts.length,
    };
    log(`memory ${name}: ${drift[name].firstWindowMedianMiB} -> ${drift[name].lastWindowMedianMiB} MiB`);
  }
  await ctx.stop(stack.procs);
  const peaks = Object.fromEntries(Object.entries(ctx.peaks).map(([k, v]) => [k, mib(v)]));
  return {
    method: `${seconds} s at ${rate} events/s (autocannon overallRate, 10 connections, 1 KB), RSS sampled every 1 s from /proc/<pid>/status; windows of ${window} s`,
    soak: { seconds, offeredPerSecond: rate, sent: load.ok, failures: load.non2xx + load.errors, runsFinished: finished, drift },
    peakRssMiB: peaks,
  };
}

module.exports = { memory };
