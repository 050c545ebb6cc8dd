'use strict';
/**
 * Door: events accepted per second and latency of POST /universal_webhook/{topic}
 * (one hook on the topic: durable keep + publish), 50 connections, 1 KB JSON,
 * against the ceiling (bare node:http + one Redis EVAL). Runs alternate.
 * Nothing of the door is switched off for it: the topic has an hmac verifier
 * (every request signed), the flood limiter runs on every request (its rate set
 * high enough that it never refuses the one client the load comes from), and
 * the body and query caps are the defaults.
 */
const { createHmac, randomBytes } = require('node:crypto');
const path = require('node:path');
const { BENCH_DIR, log, summary, ratio } = require('../lib/common');
const { startScript, startAll } = require('../lib/procs');
const { runLoad } = require('../lib/load');
const { measureCpu } = require('../lib/cpu');
const { REDIS_URL, measureRedis } = require('../lib/infra');
const { startStack, registerHook, api } = require('../lib/hookyard');
const { jsonBody } = require('../lib/payload');

/** Target (issue 24): the door's events/s at least this share of the bare node:http + one-EVAL ceiling. */
const DOOR_RATIO_TARGET = 0.35;
/** The limiter on, but above what one client sends here: it is measured, never the bound. */
const LIMITER_ON = { HOOKS_DOOR_RATE: '1000000', HOOKS_DOOR_BURST: '1000000' };

const CEILING = path.join(BENCH_DIR, 'ceiling.js');

async function startCeiling(prefix, name = 'ceiling') {
  const p = startScript(name, CEILING, [], { BENCH_REDIS_URL: REDIS_URL, BENCH_PREFIX: prefix });
  await startAll([p]);
  return p;
}

/** Alternates door loads on two URLs; returns per-run figures of each and the per-pair ratios. */
async function alternate(ctx, label, a, b, { warmup, ...cfg }) {
  const runsA = [];
  const runsB = [];
  if (!ctx.smoke && warmup !== false) {
    await runLoad({ ...cfg, url: a.url, duration: 1 });
    await runLoad({ ...cfg, url: b.url, duration: 1 });
  }
  for (let i = 0; i < ctx.runs; i++) {
    // ABBA order so a drift of the machine does not favour one side.
    const order = i % 2 === 0 ? [a, b] : [b, a];
    for (const side of order) {
      const cpu = measureCpu(side.pid ? { server: side.pid } : {});
      const redis = await measureRedis();
      const r = await runLoad({ ...cfg, url: side.url });
      r.cpu = cpu.end(r.requests, r.cpuMs);
      r.redisPerRequest = await redis.end(r.requests);
      (side === a ? runsA : runsB).push(r);
      log(
        `${label} ${side.name} run ${i + 1}/${ctx.runs}: ${Math.round(r.perSecond)}/s p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms${r.warning ? ` (${r.warning})` : ''}`,
      );
    }
  }
  return { a: describe(runsA), b: describe(runsB), pairRatios: runsA.map((r, i) => ratio(r.perSecond, runsB[i].perSecond)) };
}

function describe(runs) {
  return {
    perSecond: summary(runs.map((r) => Math.round(r.perSecond))),
    p50Ms: summary(runs.map((r) => r.latencyMs.p50)),
    p99Ms: summary(runs.map((r) => r.latencyMs.p99)),
    requests: runs.map((r) => r.requests),
    failures: runs.map((r) => r.non2xx + r.errors),
    cpuMsPerRequest: cpuTable(runs),
    redisPerRequest: runs.length ? runs[runs.length - 1].redisPerRequest : null,
    machineBusyPercent: summary(runs.map((r) => r.cpu && r.cpu.machineBusyPercent)),
  };
}

/** Median CPU ms per request of each process over the runs. */
function cpuTable(runs) {
  const keys = [...new Set(runs.flatMap((r) => (r.cpu ? Object.keys(r.cpu.msPerRequest) : [])))];
  return Object.fromEntries(keys.map((k) => [k, summary(runs.map((r) => r.cpu && r.cpu.msPerRequest[k])).median]));
}

async function door(ctx) {
  const prefix = ctx.newPrefix('door');
  const secret = randomBytes(24).toString('hex');
  // Labelled apart ('door-ingress'): its peak RSS is the door at full speed, shown beside the roles'
  // peaks under the end-to-end load that the 150 MiB target is about.
  const stack = await startStack(prefix, ['ingress'], { ...LIMITER_ON, HOOKS_SECRET_BENCH_DOOR: secret }, 'door');
  ctx.track(stack.procs);
  const ceiling = await startCeiling(prefix);
  ctx.track([ceiling]);
  const ingress = stack.byRole.ingress;
  await registerHook(ingress.url, 'b1', 'bench');
  await api(ingress.url, 'PUT', '/api/hooks/topics/bench/verifier', {
    kind: 'hmac',
    secret: 'env:HOOKS_SECRET_BENCH_DOOR',
    settings: { header: 'x-signature' },
  });
  const bodyBytes = 1024;
  const signature = createHmac('sha256', secret).update(jsonBody(bodyBytes)).digest('hex');
  const cfg = { bodyBytes, connections: 50, duration: ctx.smoke ? 1 : 4, headers: { 'x-signature': signature } };
  const res = await alternate(
    ctx,
    'door',
    { name: 'hookyard', url: `${ingress.url}/universal_webhook/bench`, pid: ingress.pid },
    { name: 'ceiling', url: `${ceiling.url}/universal_webhook/bench`, pid: ceiling.pid },
    cfg,
  );
  await ctx.stop([...stack.procs, ceiling]);
  const r = ratio(res.a.perSecond.median, res.b.perSecond.median);
  return {
    method: `autocannon in its own process, ${cfg.connections} connections, ${cfg.bodyBytes} B JSON, ${cfg.duration} s per run, ${ctx.runs} runs alternating (ABBA); Hookyard with an hmac verifier on the topic (every request signed), the flood limiter on (HOOKS_DOOR_RATE ${LIMITER_ON.HOOKS_DOOR_RATE}/s: checked on every request, never refusing) and the default body and query caps`,
    hookyard: res.a,
    ceiling: res.b,
    ratio: { value: r, pairs: summary(res.pairRatios), target: DOOR_RATIO_TARGET, met: r != null && r >= DOOR_RATIO_TARGET },
  };
}

module.exports = { door, alternate, describe, startCeiling };
