'use strict';
/**
 * Growth: how figures move with what is kept.
 *  - door throughput with few vs many hooks registered on OTHER topics (two ingresses, alternating);
 *  - runs/s with 1, 10 and 100 hooks on one topic (per-run cost);
 *  - door throughput with 1 KB, 64 KB and 1 MB bodies (against the ceiling).
 * The list page with many runs kept moved to the cost section (sections/cost.js).
 */
const path = require('node:path');
const { ROOT, log, summary, ratio } = require('../lib/common');
const { REDIS_URL } = require('../lib/infra');
const { startStack, registerHook } = require('../lib/hookyard');
const { alternate, startCeiling } = require('./door');
const { loadUntilDone, hookyardProbe } = require('./e2e');

function storeDist() {
  return require(path.join(ROOT, 'packages', 'store', 'dist'));
}

/** Registers `n` hooks on other topics through the store API, `width` writes in flight. */
async function fillHooks(prefix, n, width = 256) {
  const { createRedisStores } = storeDist();
  const stores = await createRedisStores({ url: REDIS_URL, prefix, partitions: 4 });
  const t0 = Date.now();
  try {
    const now = new Date().toISOString();
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < n) {
          const i = next++;
          await stores.hooks.putHook({
            name: `other-${i}`,
            topic: `other-${i % 1000}`,
            tool: 'echo',
            tool_kwargs: {},
            condition: { content: '.action == "opened"' },
            created_at: now,
            updated_at: now,
          });
        }
      }),
    );
  } finally {
    await stores.close();
  }
  return Date.now() - t0;
}

async function hooksGrowth(ctx) {
  const many = ctx.smoke ? 1000 : 100_000;
  const pa = ctx.newPrefix('gfew');
  const pb = ctx.newPrefix('gmany');
  const fewMs = await fillHooks(pa, 10);
  const manyMs = await fillHooks(pb, many);
  log(`growth: registered 10 and ${many} hooks on other topics through the store API (${manyMs} ms for ${many})`);
  const a = await startStack(pa, ['ingress'], {}, 'hooks10');
  ctx.track(a.procs);
  const b = await startStack(pb, ['ingress'], {}, `hooks${many}`);
  ctx.track(b.procs);
  await registerHook(a.byRole.ingress.url, 'b1', 'bench');
  await registerHook(b.byRole.ingress.url, 'b1', 'bench');
  const res = await alternate(
    ctx,
    'growth/hooks',
    { name: 'hooks10', url: `${a.byRole.ingress.url}/universal_webhook/bench`, pid: a.byRole.ingress.pid },
    { name: `hooks${many}`, url: `${b.byRole.ingress.url}/universal_webhook/bench`, pid: b.byRole.ingress.pid },
    { bodyBytes: 1024, connections: 50, duration: ctx.smoke ? 1 : 2.5 },
  );
  await ctx.stop([...a.procs, ...b.procs]);
  await ctx.clean([pa, pb]);
  return {
    otherHooks: [10, many],
    fillMs: { 10: fewMs, [many]: manyMs },
    few: res.a,
    many: res.b,
    ratioManyOverFew: ratio(res.b.perSecond.median, res.a.perSecond.median),
  };
}

async function fanOut(ctx) {
  const prefix = ctx.newPrefix('gfan');
  const stack = await startStack(prefix, ['ingress', 'scheduler', 'executor'], { HOOKS_MAX_WORKERS: '50' });
  ctx.track(stack.procs);
  const ingress = stack.byRole.ingress.url;
  const counts = [1, 10, 100];
  for (const c of counts) for (let h = 0; h < c; h++) await registerHook(ingress, `f${c}-${h}`, `fan${c}`);
  const totalRuns = ctx.smoke ? 100 : 2000;
  const probe = await hookyardProbe(stack);
  const per = Object.fromEntries(counts.map((c) => [c, []]));
  if (!ctx.smoke) {
    // Warm-up, so the first configuration measured is not the cold one.
    await loadUntilDone({ url: `${ingress}/universal_webhook/fan10`, bodyBytes: 1024, connections: 20, amount: 30 }, probe, 10, 60_000);
  }
  for (let i = 0; i < ctx.runs; i++) {
    for (const c of i % 2 === 0 ? counts : [...counts].reverse()) {
      const events = Math.max(1, Math.round(totalRuns / c));
      const r = await loadUntilDone(
        { url: `${ingress}/universal_webhook/fan${c}`, bodyBytes: 1024, connections: Math.min(50, events), amount: events },
        probe,
        c,
        180_000,
      );
      const seconds = (r.doneAt - r.load.start) / 1000;
      const rps = r.finished / seconds;
      per[c].push({ runsPerSecond: Math.round(rps), msPerRun: Math.round((1000 / rps) * 1000) / 1000, eventsPerSecond: Math.round(r.load.ok / seconds) });
      log(`growth/fan-out ${c} hooks: ${Math.round(rps)} runs/s (${r.finished} runs)`);
    }
  }
  await probe.close();
  await ctx.stop(stack.procs);
  await ctx.clean([prefix]);
  return Object.fromEntries(
    counts.map((c) => [
      `${c}`,
      {
        hooksOnTopic: c,
        runsPerSecond: summary(per[c].map((x) => x.runsPerSecond)),
        msPerRun: summary(per[c].map((x) => x.msPerRun)),
        eventsPerSecond: summary(per[c].map((x) => x.eventsPerSecond)),
      },
    ]),
  );
}

async function payloadGrowth(ctx) {
  const prefix = ctx.newPrefix('gbody');
  const stack = await startStack(prefix, ['ingress'], { HOOKS_BODY_MAX_BYTES: String(2 * 1024 * 1024) }, 'body');
  ctx.track(stack.procs);
  const ceiling = await startCeiling(prefix, 'body-ceiling');
  ctx.track([ceiling]);
  await registerHook(stack.byRole.ingress.url, 'b1', 'bench');
  const out = {};
  for (const [label, bytes] of [
    ['1KB', 1024],
    ['64KB', 64 * 1024],
    ['1MB', 1024 * 1024],
  ]) {
    const res = await alternate(
      ctx,
      `growth/body ${label}`,
      { name: 'hookyard', url: `${stack.byRole.ingress.url}/universal_webhook/bench`, pid: stack.byRole.ingress.pid },
      { name: 'ceiling', url: `${ceiling.url}/universal_webhook/bench`, pid: ceiling.pid },
      { bodyBytes: bytes, connections: bytes > 100_000 ? 10 : 50, duration: ctx.smoke ? 1 : 2, warmup: bytes === 1024 },
    );
    out[label] = {
      bytes,
      hookyard: res.a,
      ceiling: res.b,
      hookyardMBPerSecond: Math.round(((res.a.perSecond.median * bytes) / 2 ** 20) * 10) / 10,
      ratio: ratio(res.a.perSecond.median, res.b.perSecond.median),
    };
    // Drop the kept runs (large payloads) before the next size; the hook record stays.
    await ctx.cleanRuns(prefix);
  }
  await ctx.stop([...stack.procs, ceiling]);
  await ctx.clean([prefix]);
  return out;
}

async function growth(ctx) {
  return {
    hooks: await hooksGrowth(ctx),
    fanOut: await fanOut(ctx),
    payloads: await payloadGrowth(ctx),
  };
}

module.exports = { growth };
