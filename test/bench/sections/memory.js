'use strict';
/**
 * Memory: peak RSS (VmHWM) of every role seen in the other sections, RSS
 * drift of the three roles over a soak at a moderate constant rate (median RSS
 * of the first minute versus the last minute, first/last third when shorter),
 * and what parked runs cost the executor: its heap before and after N runs
 * parked on a `wait` (a parked run holds no lease and no worker slot, so it
 * should cost nothing there).
 */
const { fetchMetric, log, sleep, summary, until } = require('../lib/common');
const { runLoad } = require('../lib/load');
const { startStack, registerHook, metricOver, api } = require('../lib/hookyard');
const { collectGarbage, INSPECT_FLAG } = require('../lib/inspector');

/**
 * The executor's live heap: its heap used right after full collections forced
 * through the inspector, the lowest of a few samples over `ms`, so garbage not
 * yet collected does not count (an idle process may go minutes without a full
 * collection of its own).
 */
async function liveHeap(executor, ms) {
  await collectGarbage(executor);
  let low = Infinity;
  let n = 0;
  for (const end = Date.now() + ms; Date.now() < end; n++) {
    low = Math.min(low, await fetchMetric(executor.url, 'hookyard_nodejs_heap_size_used_bytes'));
    await sleep(100);
  }
  return { bytes: low, samples: n };
}

async function parkedCost(ctx, stack) {
  const executor = stack.byRole.executor;
  const ingress = stack.byRole.ingress.url;
  const n = ctx.smoke ? 200 : 5000;
  const settleMs = ctx.smoke ? 500 : 2000;
  await api(ingress, 'POST', '/api/hooks', { name: 'parks', topic: 'parks', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 } });
  // Warm the path once (JIT, caches) so the figure is the runs, not the first use.
  const parkedSince = async (base) => (await metricOver([executor], 'parked_total')) - base;
  const warm = await runLoad({ url: `${ingress}/universal_webhook/parks`, bodyBytes: 1024, connections: 10, amount: 200 });
  await until(async () => ((await parkedSince(0)) >= warm.ok ? true : undefined), 60_000, 'the warm-up runs to park');
  // The same load twice, measured the same way: N runs that park, then N runs that finish
  // (the echo hook on 'bench'); garbage the collector has not reached yet costs both alike.
  const grow = async (topic, done) => {
    const before = await liveHeap(executor, settleMs);
    const base = await done(0);
    const load = await runLoad({ url: `${ingress}/universal_webhook/${topic}`, bodyBytes: 1024, connections: 10, amount: n });
    await until(async () => ((await done(base)) >= load.ok ? true : undefined), 120_000, `${load.ok} runs on ${topic}`);
    const after = await liveHeap(executor, settleMs);
    return { ok: load.ok, before, after, perRun: (after.bytes - before.bytes) / Math.max(1, load.ok) };
  };
  const rssBefore = executor.memory().rss;
  const parked = await grow('parks', parkedSince);
  const rssAfter = executor.memory().rss;
  const finished = await grow('bench', async (base) => (await metricOver([executor], 'succeeded_total')) - base);
  const mib = (b) => Math.round((b / 2 ** 20) * 10) / 10;
  const out = {
    method: `${parked.ok} events on a topic whose one hook calls the built-in wait tool (timeout 3600 s), after 200 to warm up, then as many on a topic whose hook calls echo (the control: runs that finish); executor heap used from its /metrics (hookyard_nodejs_heap_size_used_bytes) right after two full collections forced through its inspector (started with ${INSPECT_FLAG}), the lowest sample of ${settleMs / 1000} s every 100 ms, before and after each; the cost of a parked run is its heap growth per run less the control's`,
    parked: parked.ok,
    samples: parked.before.samples + parked.after.samples + finished.before.samples + finished.after.samples,
    heapBeforeMiB: mib(parked.before.bytes),
    heapAfterMiB: mib(parked.after.bytes),
    rssBeforeMiB: mib(rssBefore),
    rssAfterMiB: mib(rssAfter),
    parkedHeapBytesPerRun: Math.round(parked.perRun),
    finishedHeapBytesPerRun: Math.round(finished.perRun),
    heapBytesPerRun: Math.round(parked.perRun - finished.perRun),
  };
  log(
    `memory parked: ${out.parked} runs parked, executor heap ${out.heapBeforeMiB} -> ${out.heapAfterMiB} MiB; per run ${out.parkedHeapBytesPerRun} bytes parked, ${out.finishedHeapBytesPerRun} finished (control): ${out.heapBytesPerRun} bytes per parked run`,
  );
  return out;
}

const MiB = 2 ** 20;
const mib = (b) => (b == null ? null : Math.round((b / MiB) * 10) / 10);

/** Idle RSS of each process: `settleSeconds` after start with no load, the median of samples every 250 ms over one more second. */
async function idleRss(procs, settleSeconds) {
  await sleep(settleSeconds * 1000);
  const samples = Object.fromEntries(procs.map((p) => [p.name, []]));
  for (let i = 0; i < 5; i++) {
    for (const p of procs) {
      const m = p.memory();
      if (m) samples[p.name].push(m.rss);
    }
    await sleep(250);
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, mib(summary(v).median)]));
}

async function memory(ctx) {
  const prefix = ctx.newPrefix('mem');
  // The executor's inspector (loopback, a free port) lets the parked-run figure force full collections.
  const stack = await startStack(prefix, ['ingress', 'scheduler', 'executor'], { HOOKS_MAX_WORKERS: '50' }, 'hookyard', {
    executor: { NODE_OPTIONS: INSPECT_FLAG },
  });
  ctx.track(stack.procs);
  await registerHook(stack.byRole.ingress.url, 'b1', 'bench');
  const idleSettleSeconds = ctx.smoke ? 1 : 10;
  const idle = await idleRss(stack.procs, idleSettleSeconds);
  log(
    `memory idle RSS ${idleSettleSeconds} s after start: ${Object.entries(idle)
      .map(([k, v]) => `${k} ${v} MiB`)
      .join(', ')}`,
  );
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
  const parked = await parkedCost(ctx, stack);
  await ctx.stop(stack.procs);
  const peaks = Object.fromEntries(Object.entries(ctx.peaks).map(([k, v]) => [k, mib(v)]));
  return {
    method: `${seconds} s at ${rate} events/s (evenly paced, 10 keep-alive connections, 1 KB), RSS sampled every 1 s from /proc/<pid>/status; windows of ${window} s`,
    soak: {
      seconds,
      offeredPerSecond: rate,
      sent: load.ok,
      failures: load.non2xx + load.errors,
      unsolicited: load.unsolicited ?? 0,
      runsFinished: finished,
      drift,
    },
    peakRssMiB: peaks,
    idle: { settleSeconds: idleSettleSeconds, rssMiB: idle },
    parked,
  };
}

module.exports = { memory, parkedCost };
