'use strict';
/**
 * CPU per run, end to end (ingress, scheduler, executor as separate processes,
 * condition + echo tool, one hook): sends N events, waits until the executor
 * counted N succeeded+skipped, and divides each process's CPU (from /proc) and
 * Redis's (INFO cpu) by the runs. Also accept-to-start of the runs (created_at
 * -> started_at) and runs/s. Build first (`pnpm build`).
 *
 *   node test/perf/e2e-cpu.js [--events N] [--rounds R] [--connections C] [--rate R] [--profile DIR]
 *
 * --rate sends at a constant rate (autocannon overallRate) instead of as fast as possible.
 * --profile DIR runs the executor under --cpu-prof.
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { CLI_BIN, sleep, log, percentile } = require('../bench/lib/common');
const { runLoad } = require('../bench/lib/load');
const { cleanup, redisClient } = require('../bench/lib/infra');
const { hookyardEnv, registerHook, runsOf, metricOver } = require('../bench/lib/hookyard');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

async function redisCpu(r) {
  const info = await r.info('cpu');
  const v = (k) => Number((new RegExp(`${k}:([0-9.]+)`).exec(info) || [])[1] || 0);
  return (v('used_cpu_user') + v('used_cpu_sys')) * 1e6;
}

async function commandStats(r) {
  const info = await r.info('commandstats');
  const out = {};
  for (const m of info.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+),usec=(\d+)/g)) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  return out;
}

async function startRole(role, prefix, extra, nodeFlags = []) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOOKS_HTTP_PORT: '0', ...hookyardEnv(prefix, extra) };
  const child = spawn(process.execPath, [...nodeFlags, CLI_BIN, 'serve', '--role', role], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  let url = '';
  let lines = 0;
  let last = '';
  const onData = (c) => {
    buf += c;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      lines += 1;
      last = buf.slice(0, i);
      try {
        const rec = JSON.parse(buf.slice(0, i));
        if (!url && typeof rec.url === 'string' && String(rec.msg).includes('listening')) url = rec.url.replace(/\/$/, '');
      } catch {
        /* not JSON */
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let t = 0; !url; t += 50) {
    if (child.exitCode !== null || t > 30_000) throw new Error(`${role} did not start: ${buf.slice(-2000)}`);
    await sleep(50);
  }
  return {
    role,
    pid: child.pid,
    url,
    lines: () => lines,
    lastLine: () => last,
    async stop() {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

async function main() {
  const events = Number(arg('events', 3000));
  const rounds = Number(arg('rounds', 2));
  const rate = arg('rate', null);
  const profile = arg('profile', null);
  const prefix = `perf${process.pid}e2e`;
  const extra = { HOOKS_MAX_WORKERS: '50' };
  const procs = [];
  const r = redisClient();
  try {
    procs.push(await startRole('ingress', prefix, extra));
    procs.push(await startRole('scheduler', prefix, extra));
    procs.push(await startRole('executor', prefix, extra, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []));
    const [ingress, , executor] = procs;
    const count = () => metricOver([executor], 'succeeded_total');
    for (let round = 0; round <= rounds; round++) {
      const topic = `t${round}`;
      await registerHook(ingress.url, `h${round}`, topic);
      const n = round === 0 ? 500 : events;
      const base = await count();
      const cpu0 = procs.map((p) => cpuOf(p.pid));
      const r0 = await redisCpu(r);
      const s0 = await commandStats(r);
      const load = { url: `${ingress.url}/universal_webhook/${topic}`, bodyBytes: 1024, connections: Number(arg('connections', 50)), amount: n };
      if (rate) Object.assign(load, { overallRate: Number(rate), connections: 20 });
      const t0 = Date.now();
      const res = await runLoad(load);
      if (res.warning) log(`load: ${res.warning}`);
      let done = 0;
      const deadline = Date.now() + 120_000;
      while ((done = (await count()) - base) < res.ok && Date.now() < deadline) await sleep(20);
      const seconds = (Date.now() - t0) / 1000;
      const cpu1 = procs.map((p) => cpuOf(p.pid));
      const r1 = await redisCpu(r);
      const s1 = await commandStats(r);
      if (round === 0) continue;
      const cmds = {};
      for (const [k, v] of Object.entries(s1)) {
        const calls = v.calls - (s0[k]?.calls ?? 0);
        if (calls / done >= 0.05) cmds[k] = `${(calls / done).toFixed(2)}x${((v.usec - (s0[k]?.usec ?? 0)) / calls).toFixed(1)}us`;
      }
      const runs = await runsOf(ingress.url, `h${round}`);
      const lat = runs.filter((x) => x.started_at).map((x) => Date.parse(x.started_at) - Date.parse(x.created_at));
      const per = Object.fromEntries(procs.map((p, i) => [p.role, Math.round((cpu1[i] - cpu0[i]) / done)]));
      per.redis = Math.round((r1 - r0) / done);
      log(
        `round ${round}: ${done}/${res.ok} runs in ${seconds.toFixed(1)} s = ${Math.round(done / seconds)} runs/s (accepted ${Math.round(res.perSecond)}/s); ` +
          `cpu us/run ${JSON.stringify(per)}; accept-to-start p50 ${percentile(lat, 50)} ms p99 ${percentile(lat, 99)} ms; redis calls/run ${JSON.stringify(cmds)}`,
      );
    }
    for (const p of procs) if (p.lines() > 100) log(`${p.role} wrote ${p.lines()} log lines; the last: ${p.lastLine().slice(0, 300)}`);
  } finally {
    r.disconnect();
    await Promise.all(procs.map((p) => p.stop()));
    await cleanup([prefix]);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
