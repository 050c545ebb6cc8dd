'use strict';
/**
 * The agent door at scale: the ingress's CPU per event while many agent calls
 * wait on approvals. Ingress, scheduler and executor as separate processes on
 * Redis and JetStream; an approval policy gates the agent's `echo`, so each MCP
 * `tools/call` (mcp-waiters.js: the SDK's client, one session) is kept as a
 * run, parked on an approval, and held open in the ingress, which waits for
 * its run's events. While they wait, hook events flow through the door at an
 * evenly paced rate (loadgen.js), so their runs' events flow on NATS past the
 * waiters. Measured with FEW and MANY calls waiting, in the order few, many,
 * many, few (ABBA: the calls are opened, then ended by denying them).
 *
 * The figure: the ingress's CPU (from /proc) over a window divided by the
 * events the door accepted in it, many / few (issue 36: <= 1.2x). Each window
 * follows a quiet one as long without events, whose CPU per second is the
 * waiters' own cost (their fallback store poll), reported beside it.
 */
const os = require('node:os');
const path = require('node:path');
const { BENCH_DIR, deps, log, sleep, until, summary, ratio } = require('../lib/common');
const { forkScript } = require('../lib/procs');
const { runLoad } = require('../lib/load');
const { measureCpu, cpuMs } = require('../lib/cpu');
const { NATS_URL } = require('../lib/infra');
const { startStack, api, registerHook } = require('../lib/hookyard');

const MCP_WAITERS = path.join(BENCH_DIR, 'mcp-waiters.js');
/** Issue 36: the ingress's CPU per event with MANY calls waiting at most this times that with FEW. */
const CPU_RATIO_TARGET = 1.2;

/** Open approvals (what the waiting calls are parked on), counted through the API. */
async function openApprovals(base) {
  const ids = [];
  let cursor = null;
  do {
    const q = new URLSearchParams({ status: 'open', kind: 'approval', limit: '500' });
    if (cursor) q.set('cursor', cursor);
    const page = await api(base, 'GET', `/api/interactions?${q.toString()}`);
    ids.push(...page.interactions.map((i) => i.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

/** Denies the approvals, `width` at a time. */
async function deny(base, ids, width = 16) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < ids.length) await api(base, 'POST', `/api/interactions/${ids[next++]}/deny`, { reason: 'bench clean-up' });
    }),
  );
}

/** Counts run events on the prefix's run-event subjects (a core NATS subscriber; consumes nothing). */
async function eventTap(prefix) {
  const { connect } = deps.nats();
  const nc = await connect({ servers: NATS_URL });
  const tap = { seen: 0 };
  const sub = nc.subscribe(`${prefix}.events.run.>`, { callback: () => (tap.seen += 1) });
  await nc.flush();
  tap.close = async () => {
    sub.unsubscribe();
    await nc.close();
  };
  return tap;
}

/** The waiting calls' client: opens calls, tells how many are open and how the ended ones ended. */
async function startClient(url, token) {
  const proc = forkScript('waiters-client', MCP_WAITERS, [JSON.stringify({ url, token, timeoutMs: 600_000 })]);
  const state = { opened: 0, ended: 0, byStatus: {}, again: 0, error: null, ready: false };
  proc.child.on('message', (m) => {
    if (m.ready) state.ready = true;
    if (m.opened) state.opened += m.opened;
    if (m.ended !== undefined) {
      state.ended += 1;
      state.byStatus[m.status] = (state.byStatus[m.status] || 0) + 1;
      state.again = Math.max(state.again, m.again || 0);
      if (m.status === 'error' && !state.error) state.error = m.message;
    }
    if (m.error) state.error = m.error;
  });
  await until(() => (state.ready ? true : state.error ? Promise.reject(new Error(state.error)) : undefined), 30_000, 'the waiters client');
  let from = 0;
  return {
    proc,
    state,
    waiting: () => state.opened - state.ended,
    open(count) {
      proc.child.send({ op: 'open', from, count });
      from += count;
    },
    async close() {
      if (proc.child.connected) proc.child.send({ op: 'close' });
      await Promise.race([proc.exited, sleep(5000)]);
    },
  };
}

/**
 * Waits until `want` calls are open in the client and parked on `want` open
 * approvals; answers the approvals' ids. Throws when a call failed.
 */
async function settle(base, client, want, what) {
  return until(
    async () => {
      if (client.state.error) throw new Error(`a waiting call failed: ${client.state.error}`);
      if (client.waiting() !== want) return undefined;
      const ids = await openApprovals(base);
      return ids.length === want ? ids : undefined;
    },
    120_000,
    `${want} calls waiting on approvals (${what})`,
    250,
  );
}

async function measureWindow(stack, flowUrl, waiting, cfg) {
  const ingress = stack.byRole.ingress;
  // Quiet first: the waiters' own cost per second, no events.
  const q0 = cpuMs(ingress.pid);
  const t0 = Date.now();
  await sleep(cfg.quietSeconds * 1000);
  const quietCpuMsPerSecond = Math.round(((cpuMs(ingress.pid) - q0) / ((Date.now() - t0) / 1000)) * 100) / 100;
  const tap = await eventTap(stack.prefix);
  const endedBefore = cfg.client.state.ended;
  const cpu = measureCpu(Object.fromEntries(Object.entries(stack.byRole).map(([role, p]) => [role, p.pid])));
  let load;
  try {
    load = await runLoad({ url: flowUrl, bodyBytes: 1024, connections: 20, duration: cfg.seconds, overallRate: cfg.rate });
  } finally {
    await tap.close();
  }
  const c = cpu.end(load.ok, load.cpuMs);
  if (cfg.client.state.ended !== endedBefore) throw new Error(`${cfg.client.state.ended - endedBefore} waiting calls ended during the window`);
  const out = {
    waiting,
    events: load.ok,
    failures: load.non2xx + load.errors,
    acceptedPerSecond: Math.round(load.perSecond),
    runEventsOnNats: tap.seen,
    ingressCpuMsPerEvent: c.msPerRequest.ingress,
    quietIngressCpuMsPerSecond: quietCpuMsPerSecond,
    cpuMsPerEvent: c.msPerRequest,
    machineBusyPercent: c.machineBusyPercent,
  };
  log(
    `waiters ${waiting} waiting: ${out.events} events (${out.acceptedPerSecond}/s), ${out.runEventsOnNats} run events on NATS, ingress CPU ${out.ingressCpuMsPerEvent} ms/event ` +
      `(quiet: ${quietCpuMsPerSecond} ms/s), machine ${c.machineBusyPercent} % busy`,
  );
  return out;
}

async function waiters(ctx) {
  const few = ctx.smoke ? 5 : 10;
  const many = ctx.smoke ? 50 : 1000;
  const rate = ctx.smoke ? 50 : 500;
  const seconds = ctx.smoke ? 2 : 10;
  const quietSeconds = ctx.smoke ? 1 : 3;
  const loadAtStart = os.loadavg().map((v) => Math.round(v * 100) / 100);
  const prefix = ctx.newPrefix('wait');
  // HOOKS_AGENT_WAIT_SECONDS=240: a call without a progressToken waits this long in the ingress (the client then calls again and joins).
  const stack = await startStack(
    prefix,
    ['ingress', 'scheduler', 'executor'],
    { HOOKS_AGENT_RATE: '0', HOOKS_AGENT_WAIT_SECONDS: '240', HOOKS_MAX_WORKERS: '50' },
    'waiters',
  );
  let client = null;
  try {
    const base = stack.byRole.ingress.url;
    const agent = await api(base, 'POST', '/api/agents', { name: 'bench', tools_allow: ['echo'] });
    await api(base, 'PUT', '/api/approval-policy', {
      rules: [{ name: 'bench gate', tools: ['echo'], agents: ['bench'], action: 'approve', timeout_seconds: 3600 }],
    });
    await registerHook(base, 'flow', 'flow');
    const flowUrl = `${base}/universal_webhook/flow`;
    // Warm the door and the executor (JIT, pools) before the first window.
    await runLoad({ url: flowUrl, bodyBytes: 1024, connections: 20, duration: 1, overallRate: rate });

    client = await startClient(`${base}/mcp`, agent.token);
    const cfg = { client, rate, seconds, quietSeconds };
    client.open(few);
    const fewIds = new Set(await settle(base, client, few, 'few'));
    const runs = { few: [], many: [] };
    runs.few.push(await measureWindow(stack, flowUrl, few, cfg));
    client.open(many - few);
    await settle(base, client, many, 'many');
    runs.many.push(await measureWindow(stack, flowUrl, many, cfg));
    runs.many.push(await measureWindow(stack, flowUrl, many, cfg));
    // Back to few: deny the calls opened for `many` (the approvals that were not open before).
    await deny(
      base,
      (await openApprovals(base)).filter((id) => !fewIds.has(id)),
    );
    await settle(base, client, few, 'few again');
    runs.few.push(await measureWindow(stack, flowUrl, few, cfg));
    await deny(base, await openApprovals(base));
    await until(() => (client.waiting() === 0 ? true : undefined), 60_000, 'every waiting call to end');
    const ended = { ...client.state.byStatus };
    if (ended.denied !== many) throw new Error(`waiting calls ended ${JSON.stringify(ended)}, expected ${many} denied`);

    const perEvent = (rs) => summary(rs.map((r) => r.ingressCpuMsPerEvent));
    const f = perEvent(runs.few);
    const m = perEvent(runs.many);
    const value = ratio(m.median, f.median);
    return {
      method:
        `Ingress, scheduler and executor as separate processes; an agent (tools_allow ["echo"]) and an approval rule that gates its echo (action approve, 3600 s); ` +
        `the calls: MCP tools/call of echo with distinct arguments from the SDK's client (one session, its own process), each held open in the ingress ` +
        `(no progressToken; HOOKS_AGENT_WAIT_SECONDS=240, then the client calls again and joins); counted as open approvals through GET /api/interactions ` +
        `before each window. Events: 1 KB JSON to a hook on another topic (echo, condition true), evenly paced at ${rate}/s for ${seconds} s per window, ` +
        `after ${quietSeconds} s without events (the quiet CPU). Order ${few}, ${many}, ${many}, ${few} waiting (ABBA); the calls end denied.`,
      loadAverageAtStart: loadAtStart,
      few: { waiting: few, runs: runs.few, ingressCpuMsPerEvent: f },
      many: { waiting: many, runs: runs.many, ingressCpuMsPerEvent: m },
      ended,
      callsMadeAgain: client.state.again,
      ratio: { value, target: CPU_RATIO_TARGET, met: value == null ? null : value <= CPU_RATIO_TARGET },
    };
  } finally {
    if (client) {
      // A failure midway: answer what is still open, so no call waits on into the next section.
      if (client.waiting() > 0) await deny(stack.byRole.ingress.url, await openApprovals(stack.byRole.ingress.url)).catch(() => undefined);
      await client.close();
      await ctx.stop([client.proc]);
    }
    await ctx.stop(stack.procs);
  }
}

module.exports = { waiters, CPU_RATIO_TARGET };
