'use strict';
/**
 * Agent door: MCP `tools/call` of an allowed `echo` through Hookyard's /mcp
 * door (ingress, scheduler and executor as separate processes on Redis and
 * JetStream: the call is kept as a run, published, claimed and run by the
 * executor, and the door answers when the run event says it finished) against
 * the same MCP SDK serving the same echo tool directly (mcp-echo.js). The
 * same client (mcp-load.js: the SDK's Client over streamable HTTP, one
 * session, in its own process) drives both: an evenly paced open loop at each
 * constant rate, then a fixed number of calls in flight (saturation).
 * HOOKS_AGENT_RATE=0: the agent's flood bucket (50/s, burst 100 by default)
 * would otherwise be what the figure measures.
 */
const os = require('node:os');
const path = require('node:path');
const { BENCH_DIR, log, summary, ratio } = require('../lib/common');
const { startScript, startAll } = require('../lib/procs');
const { runLoad } = require('../lib/load');
const { measureCpu } = require('../lib/cpu');
const { measureRedis } = require('../lib/infra');
const { startStack, api } = require('../lib/hookyard');

const MCP_ECHO = path.join(BENCH_DIR, 'mcp-echo.js');
const MCP_LOAD = path.join(BENCH_DIR, 'mcp-load.js');

/** Issue 36's targets: at most this many ms added at p50, at least this share of the direct server's calls/s. */
const ADDED_P50_TARGET_MS = 5;
const THROUGHPUT_TARGET = 0.6;
const RATES = [50, 200];
/** Calls in flight at saturation (one session: one HTTP request per call, as many connections as calls in flight). */
const SATURATION_CONCURRENCY = 64;

const loadAverage = () => os.loadavg().map((v) => Math.round(v * 100) / 100);

/** One load run against one side, with the CPU each process spent and (Hookyard) Redis's commands per call. */
async function measure(side, cfg) {
  const cpu = measureCpu(side.pids);
  const redis = side.name === 'hookyard' ? await measureRedis() : null;
  const r = await runLoad({ url: side.url, token: side.token, ...cfg }, MCP_LOAD);
  r.cpu = cpu.end(r.ok, r.cpuMs);
  if (redis) r.redisPerCall = await redis.end(r.ok);
  const what = cfg.rate ? `${cfg.rate}/s` : `${cfg.concurrency} in flight`;
  log(
    `agent ${side.name} ${what}: ${Math.round(r.perSecond)} calls/s p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms` +
      `${r.errors ? ` (${r.errors} of ${r.requests} failed, e.g. ${r.firstError})` : ''}`,
  );
  return r;
}

/** Median CPU ms per call of each process over the runs. */
function cpuTable(runs) {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.cpu.msPerRequest)))];
  return Object.fromEntries(keys.map((k) => [k, summary(runs.map((r) => r.cpu.msPerRequest[k])).median]));
}

function describe(runs) {
  return {
    callsPerSecond: summary(runs.map((r) => Math.round(r.perSecond))),
    sentPerSecond: summary(runs.map((r) => Math.round(r.sentPerSecond))),
    p50Ms: summary(runs.map((r) => r.latencyMs.p50)),
    p99Ms: summary(runs.map((r) => r.latencyMs.p99)),
    maxMs: summary(runs.map((r) => r.latencyMs.max)),
    calls: runs.map((r) => r.requests),
    failures: runs.map((r) => r.errors),
    cpuMsPerCall: cpuTable(runs),
    machineBusyPercent: summary(runs.map((r) => r.cpu.machineBusyPercent)),
    ...(runs[0] && runs[0].redisPerCall ? { redisPerCall: runs[runs.length - 1].redisPerCall } : {}),
  };
}

async function agent(ctx) {
  const loadAtStart = loadAverage();
  log(`agent: load average at start ${loadAtStart.join(' / ')} (1 / 5 / 15 min) on ${os.cpus().length} cores`);
  const prefix = ctx.newPrefix('agent');
  // Labelled apart ('agent-*'), so the roles' peaks under the webhook load stay those of the e2e stacks.
  const stack = await startStack(prefix, ['ingress', 'scheduler', 'executor'], { HOOKS_AGENT_RATE: '0' }, 'agent');
  const direct = startScript('mcp-direct', MCP_ECHO, [], {});
  const procs = [...stack.procs, direct];
  try {
    await startAll([direct]);
    const ingress = stack.byRole.ingress;
    const created = await api(ingress.url, 'POST', '/api/agents', { name: 'bench', tools_allow: ['echo'] });
    const hookyard = {
      name: 'hookyard',
      url: `${ingress.url}/mcp`,
      token: created.token,
      pids: Object.fromEntries(Object.entries(stack.byRole).map(([role, p]) => [role, p.pid])),
    };
    const sdk = { name: 'direct', url: `${direct.url}/mcp`, token: null, pids: { server: direct.pid } };
    const seconds = ctx.smoke ? 3 : 15;
    const saturationSeconds = ctx.smoke ? 2 : 5;
    const warmup = ctx.smoke ? 20 : 100;
    // ABBA over the whole sequence, so a drift of the machine (other jobs) does not favour one side.
    let turn = 0;
    const ordered = () => (turn++ % 2 === 0 ? [hookyard, sdk] : [sdk, hookyard]);

    const rates = [];
    for (const rate of RATES) {
      const runs = {};
      for (const side of ordered()) runs[side.name] = await measure(side, { rate, duration: seconds, warmup });
      const h = describe([runs.hookyard]);
      const d = describe([runs.direct]);
      const added = h.p50Ms.median == null || d.p50Ms.median == null ? null : Math.round((h.p50Ms.median - d.p50Ms.median) * 100) / 100;
      rates.push({
        rate,
        hookyard: h,
        direct: d,
        addedP50Ms: { value: added, target: ADDED_P50_TARGET_MS, met: added == null ? null : added <= ADDED_P50_TARGET_MS },
        addedP99Ms: h.p99Ms.median == null || d.p99Ms.median == null ? null : Math.round((h.p99Ms.median - d.p99Ms.median) * 100) / 100,
      });
    }

    const sat = { hookyard: [], direct: [] };
    for (let i = 0; i < ctx.runs; i++) {
      for (const side of ordered()) {
        sat[side.name].push(await measure(side, { concurrency: SATURATION_CONCURRENCY, duration: saturationSeconds, warmup }));
      }
    }
    const h = describe(sat.hookyard);
    const d = describe(sat.direct);
    const value = ratio(h.callsPerSecond.median, d.callsPerSecond.median);
    const loadAtEnd = loadAverage();
    log(`agent: load average at end ${loadAtEnd.join(' / ')}`);
    return {
      method:
        `The SDK's Client over StreamableHTTPClientTransport in its own process (one session per run, ${warmup} calls of warm-up first), ` +
        `\`tools/call\` of \`echo\` with {n, text}, every answer checked to echo n. Constant rates: an evenly paced open loop for ${seconds} s per system ` +
        `(latency from when each call was due), the two systems alternating; saturation: ${SATURATION_CONCURRENCY} calls in flight for ${saturationSeconds} s, ` +
        `${ctx.runs} run(s) each, alternating (ABBA). Hookyard: ingress, scheduler and executor as separate processes on Redis and JetStream, an agent ` +
        `made by POST /api/agents with tools_allow ["echo"], HOOKS_AGENT_RATE=0 (the agent's flood bucket, 50/s burst 100 by default, would cap the load). ` +
        `Direct: the same SDK's low-level Server with one echo tool, one streamable HTTP transport per session, as the door sets it up.`,
      loadAverage: { atStart: loadAtStart, atEnd: loadAtEnd, cores: os.cpus().length },
      rates,
      saturation: {
        concurrency: SATURATION_CONCURRENCY,
        seconds: saturationSeconds,
        hookyard: h,
        direct: d,
        ratio: {
          value,
          pairs: summary(sat.hookyard.map((r, i) => ratio(r.perSecond, sat.direct[i].perSecond))),
          target: THROUGHPUT_TARGET,
          met: value == null ? null : value >= THROUGHPUT_TARGET,
        },
      },
      note:
        'What a Hookyard call adds to the SDK alone: the door re-reads the agent token in Redis, keeps the call as a run (one Redis script), ' +
        'listens to its run events and publishes it on JetStream (and its `accepted` event on core NATS); the executor is woken by JetStream, claims it ' +
        '(a Redis script), reads the agent, records the start (a script), calls echo and completes the run (another script), and announces the start ' +
        "and the outcome on core NATS; the door's wait (wait.ts) is woken by those run events (its store poll every 2 s is only the fallback) and " +
        'reads the run once, for the outcome, before answering. ' +
        'Four hops on the path (door -> Redis -> JetStream -> executor -> Redis -> NATS -> door) where the direct server has none, each a process ' +
        'that must get a core; on two shared cores the throughput ratio follows the CPU per call of all processes (the table above; `other` is what else the machine ran).',
    };
  } finally {
    await ctx.stop(procs);
  }
}

module.exports = { agent, ADDED_P50_TARGET_MS, THROUGHPUT_TARGET };
