'use strict';
/**
 * Cost as work grows: the same figures with 10,000, 100,000 (and, as an
 * option, 1,000,000) runs kept in Redis, to show which stay flat.
 *  - door and claim: events accepted per second and runs finished per second
 *    (autocannon at full speed on a hook's topic; the executor claims, runs
 *    echo and completes each), Redis µs of scripts and CPU ms per run;
 *  - one list page: p99 of GET /api/hook-runs?limit=50, with a status filter,
 *    a hook filter and both;
 *  - Redis memory per kept run: INFO used_memory before and after each fill,
 *    over the runs filled (the server is shared: other clients' writes count
 *    too), and MEMORY USAGE of the prefix's keys over the runs kept (run
 *    hashes from a sample, every other key exactly), which no other client moves.
 * Runs are filled by fillRuns (packages/store/test/list-perf.js: pipelined
 * writes of the store's own key layout and fields; status mix 70 % succeeded,
 * 20 hooks on 5 topics), bounded by --list-fill-seconds. Ingress and executor
 * only: a scheduler's sweep would dispatch the filled pending and retry_wait
 * runs (of hooks nobody registered) to the executor during the measurement.
 */
const path = require('node:path');
const { ROOT, log, percentile, summary, ratio } = require('../lib/common');
const { REDIS_URL, redisClient, measureRedis } = require('../lib/infra');
const { measureCpu } = require('../lib/cpu');
const { startStack, registerHook, metricOver, TOKEN } = require('../lib/hookyard');
const { loadUntilDone } = require('./e2e');

/** A figure is "flat" when its value at the largest size is within this share of its value at the smallest. */
const FLAT_WITHIN = 0.25;
const QUERIES = ['limit=50', 'status=failed&limit=50', 'hook=h3&limit=50', 'status=failed&hook=h3&limit=50'];

async function usedMemory() {
  const r = redisClient();
  try {
    return Number((/used_memory:(\d+)/.exec(await r.info('memory')) || [])[1]);
  } finally {
    r.disconnect();
  }
}

/**
 * Bytes of the prefix's keys (MEMORY USAGE): the hashes (one per run) from a
 * sample of `sample`, scaled to their number; every other key (the indexes)
 * exactly. Answers {hashKeys, hashBytes, otherKeys, otherBytes}.
 */
async function prefixBytes(prefix, sample = 500) {
  const r = redisClient();
  try {
    const hashes = [];
    const others = [];
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 20000);
      cursor = next;
      if (!keys.length) continue;
      const pipe = r.pipeline();
      for (const k of keys) pipe.type(k);
      const types = await pipe.exec();
      keys.forEach((k, i) => (types[i][1] === 'hash' ? hashes : others).push(k));
    } while (cursor !== '0');
    const usage = async (keys, exact) => {
      const pipe = r.pipeline();
      for (const k of keys) pipe.call('MEMORY', 'USAGE', k, ...(exact ? ['SAMPLES', '0'] : []));
      return (await pipe.exec()).reduce((a, [, v]) => a + (Number(v) || 0), 0);
    };
    const step = Math.max(1, Math.floor(hashes.length / sample));
    const picked = hashes.filter((_, i) => i % step === 0);
    const hashBytes = picked.length ? Math.round(((await usage(picked, false)) / picked.length) * hashes.length) : 0;
    return { hashKeys: hashes.length, hashBytes, otherKeys: others.length, otherBytes: await usage(others, true) };
  } finally {
    r.disconnect();
  }
}

/** One sequential client reading first pages for `seconds`; p50/p99 in ms. */
async function pageLatency(base, query, seconds) {
  const times = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const t = performance.now();
    const res = await fetch(`${base}/api/hook-runs?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await res.json();
    times.push(performance.now() - t);
    if (res.status !== 200 || !Array.isArray(body.runs) || body.runs.length === 0)
      throw new Error(`list page ${query} answered ${res.status} with ${JSON.stringify(body).slice(0, 200)}`);
  }
  return { requests: times.length, p50Ms: +percentile(times, 50).toFixed(2), p99Ms: +percentile(times, 99).toFixed(2) };
}

/** Door and claim: `n` events at full speed; events accepted/s, runs finished/s, Redis script µs and CPU ms per run. */
async function doorAndClaim(stack, n, timeoutMs) {
  const executor = [stack.byRole.executor];
  const probe = {
    // A /metrics scrape per poll: not during the load.
    afterLoad: true,
    snapshot: () => metricOver(executor, 'succeeded_total'),
    isDone: async (base, target) => (await metricOver(executor, 'succeeded_total')) - base >= target,
    finished: async (base) => (await metricOver(executor, 'succeeded_total')) - base,
  };
  const cpu = measureCpu({ ingress: stack.byRole.ingress.pid, executor: stack.byRole.executor.pid });
  const redis = await measureRedis();
  const r = await loadUntilDone(
    { url: `${stack.byRole.ingress.url}/universal_webhook/cost`, bodyBytes: 1024, connections: 50, amount: n },
    probe,
    1,
    timeoutMs,
  );
  const c = cpu.end(r.finished, r.load.cpuMs);
  const rows = await redis.end(r.finished);
  const scriptUsec = ['evalsha', 'eval'].reduce((a, k) => a + (rows[k] ? rows[k].usecPer : 0), 0);
  return {
    events: r.load.ok,
    acceptedPerSecond: Math.round(r.load.perSecond),
    runsPerSecond: Math.round(r.finished / ((r.doneAt - r.load.start) / 1000)),
    scriptUsecPerRun: Math.round(scriptUsec),
    redisPerRun: rows,
    cpuMsPerRun: c.msPerRequest,
    machineBusyPercent: c.machineBusyPercent,
  };
}

/** "flat", or how far the figure moved from the smallest size to the largest (`higherIsBetter` for rates). */
function flatness(first, last, higherIsBetter) {
  const r = ratio(last, first);
  if (r == null) return { ratio: null, verdict: '–' };
  const flat = higherIsBetter ? r >= 1 - FLAT_WITHIN : r <= 1 + FLAT_WITHIN;
  return { ratio: r, verdict: flat ? 'flat' : `${higherIsBetter ? 'falls' : 'grows'} to ${r}x` };
}

async function cost(ctx) {
  const { fillRuns } = require(path.join(ROOT, 'packages', 'store', 'test', 'list-perf.js'));
  const prefix = ctx.newPrefix('cost');
  const steps = ctx.smoke ? [1000, 5000] : ctx.listSteps;
  const stack = await startStack(prefix, ['ingress', 'executor'], { HOOKS_MAX_WORKERS: '50' }, 'cost');
  const base = stack.byRole.ingress.url;
  const events = ctx.smoke ? 200 : 3000;
  const pageSeconds = ctx.smoke ? 0.3 : 1;
  const out = [];
  let filled = 0;
  let byDoor = 0;
  let fillMs = 0;
  const now = Date.now();
  try {
    await registerHook(base, 'cost', 'cost');
    // Warm-up: JIT and pools, so the smallest size is not also the cold one.
    byDoor += (await doorAndClaim(stack, ctx.smoke ? 50 : 500, 60_000)).events;
    for (const want of steps) {
      const before = await usedMemory();
      const fillFrom = filled;
      // Four fillers at once (one waits on its pipeline's round trips more than Redis works), in 10,000-run chunks,
      // older than what is there (ids sort by creation), until `want` runs are filled or the fill budget is spent.
      while (filled < want && fillMs < ctx.listFillSeconds * 1000) {
        const t = Date.now();
        const chunks = [];
        for (let k = 0; k < 4 && filled < want; k++) {
          const chunk = Math.min(10_000, want - filled);
          chunks.push(fillRuns({ url: REDIS_URL, prefix, partitions: 4, n: chunk, now: now - filled }));
          filled += chunk;
        }
        await Promise.all(chunks);
        fillMs += Date.now() - t;
      }
      if (out.length && out[out.length - 1].filled === filled) break;
      const memoryPerRun = filled > fillFrom ? Math.round(((await usedMemory()) - before) / (filled - fillFrom)) : null;
      log(`cost: ${filled} runs filled (fill ${fillMs} ms so far${filled < want ? `; the ${ctx.listFillSeconds} s budget stopped short of ${want}` : ''})`);
      const keys = await prefixBytes(prefix);
      const kept = filled + byDoor;
      const row = {
        filled,
        kept,
        redisBytesPerRun: memoryPerRun,
        keyBytesPerRun: {
          total: Math.round((keys.hashBytes + keys.otherBytes) / kept),
          hash: Math.round(keys.hashBytes / kept),
          indexes: Math.round(keys.otherBytes / kept),
        },
        keys,
        door: [],
        lists: {},
      };
      for (let i = 0; i < ctx.runs; i++) {
        row.door.push(await doorAndClaim(stack, events, ctx.smoke ? 60_000 : 180_000));
        byDoor += row.door[row.door.length - 1].events;
      }
      for (const q of QUERIES) {
        const runs = [];
        for (let i = 0; i < ctx.runs; i++) runs.push(await pageLatency(base, q, pageSeconds));
        row.lists[q] = { p50Ms: summary(runs.map((r) => r.p50Ms)), p99Ms: summary(runs.map((r) => r.p99Ms)), requests: runs.map((r) => r.requests) };
      }
      const med = (k) => summary(row.door.map((d) => d[k]));
      row.acceptedPerSecond = med('acceptedPerSecond');
      row.runsPerSecond = med('runsPerSecond');
      row.scriptUsecPerRun = med('scriptUsecPerRun');
      log(
        `cost ${filled} kept: door ${row.acceptedPerSecond.median}/s, runs ${row.runsPerSecond.median}/s, scripts ${row.scriptUsecPerRun.median} µs/run, ` +
          `${memoryPerRun} B/run (used_memory), ${row.keyBytesPerRun.total} B/run (MEMORY USAGE: ${row.keyBytesPerRun.hash} run hash + ${row.keyBytesPerRun.indexes} indexes); list p99 ${QUERIES.map((q) => `${q} ${row.lists[q].p99Ms.median} ms`).join(', ')}`,
      );
      out.push(row);
    }
  } finally {
    await ctx.stop(stack.procs);
  }
  const first = out[0];
  const last = out[out.length - 1];
  const flat = {
    doorEventsPerSecond: flatness(first.acceptedPerSecond.median, last.acceptedPerSecond.median, true),
    runsPerSecond: flatness(first.runsPerSecond.median, last.runsPerSecond.median, true),
    scriptUsecPerRun: flatness(first.scriptUsecPerRun.median, last.scriptUsecPerRun.median, false),
    redisBytesPerRun: flatness(first.keyBytesPerRun.total, last.keyBytesPerRun.total, false),
    ...Object.fromEntries(QUERIES.map((q) => [`list p99 ${q}`, flatness(first.lists[q].p99Ms.median, last.lists[q].p99Ms.median, false)])),
  };
  return {
    method:
      `runs filled by fillRuns (packages/store/test/list-perf.js: the store's key layout and fields, pipelined, four fillers; status mix 70 % succeeded, 20 hooks h0..h19 on 5 topics) ` +
      `up to each size, bounded by a ${ctx.listFillSeconds} s fill budget; ingress and executor as separate processes (no scheduler: its sweep would dispatch the filled ` +
      `pending runs). At each size: ${events} events (1 KB JSON, 50 connections, autocannon at full speed) to a registered hook (echo), events/s from the first request ` +
      `to the last answer, runs/s to the last run succeeded (the executor's counter), Redis µs of EVALSHA+EVAL per run (INFO commandstats, shared server); ` +
      `list pages read by one sequential client for ${pageSeconds} s per query; ${ctx.runs} run(s) each. Sizes grow in one order (a fill cannot be taken back cheaply), ` +
      `so a drift of the machine falls on the larger sizes. "flat": the largest size within ${FLAT_WITHIN * 100} % of the smallest.`,
    target: steps[steps.length - 1],
    reached: filled,
    fillBudgetSeconds: ctx.listFillSeconds,
    fillMs,
    steps: out,
    flat,
  };
}

module.exports = { cost, FLAT_WITHIN };
