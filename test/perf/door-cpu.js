'use strict';
/**
 * CPU cost per accepted delivery of the door vs the ceiling (bare node:http +
 * one Redis EVAL), the steady figure on a shared, noisy machine: node CPU of
 * the serving process (from /proc) and Redis CPU (INFO cpu), each divided by
 * the requests answered 2xx. Runs alternate (ABBA). Reuses the bench suite's
 * process and load helpers.
 *
 *   node test/perf/door-cpu.js [--runs N] [--seconds S] [--connections C] [--body BYTES]
 *
 *   [--profile DIR]   run the ingress under --cpu-prof, profiles into DIR
 *                     (node 20 refuses --cpu-prof in NODE_OPTIONS, so it goes on the command line)
 *
 * Env: REDIS_URL, NATS_URL.
 */
const { readFileSync } = require('node:fs');
const { log, summary, ratio } = require('../bench/lib/common');
const { runLoad } = require('../bench/lib/load');
const { cleanup, redisClient } = require('../bench/lib/infra');
const { stopAll, killAllSync } = require('../bench/lib/procs');
const { spawn } = require('node:child_process');
const { CLI_BIN, sleep } = require('../bench/lib/common');
const { hookyardEnv, registerHook } = require('../bench/lib/hookyard');
const { startCeiling } = require('../bench/sections/door');

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const TICK_US = 1e6 / 100; // USER_HZ

/** utime + stime of a pid in microseconds. */
function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
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

/** The ingress role as a child of this process (own spawn, so node flags can go on its command line). */
async function startIngress(prefix, profileDir) {
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOOKS_HTTP_PORT: '0', ...hookyardEnv(prefix) };
  const child = spawn(process.execPath, [...flags, CLI_BIN, 'serve', '--role', 'ingress'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  let url = '';
  const onData = (c) => {
    buf += c;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
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
    if (child.exitCode !== null || t > 30_000) throw new Error(`ingress did not start: ${buf.slice(-2000)}`);
    await sleep(50);
  }
  return {
    pid: child.pid,
    url,
    async stop() {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

async function measure(side, cfg, r) {
  const c0 = cpuOf(side.pid);
  const r0 = await redisCpu(r);
  const s0 = await commandStats(r);
  const res = await runLoad({ ...cfg, url: side.url });
  const c1 = cpuOf(side.pid);
  const r1 = await redisCpu(r);
  const s1 = await commandStats(r);
  const n = Math.max(1, res.ok);
  const cmds = {};
  for (const [k, v] of Object.entries(s1)) {
    const calls = v.calls - (s0[k]?.calls ?? 0);
    if (calls > 0) cmds[k] = { perReq: Math.round((calls / n) * 100) / 100, usecPerCall: Math.round(((v.usec - (s0[k]?.usec ?? 0)) / calls) * 10) / 10 };
  }
  return {
    perSecond: Math.round(res.perSecond),
    nodeUs: Math.round((c1 - c0) / n),
    redisUs: Math.round((r1 - r0) / n),
    p99: res.latencyMs.p99,
    bad: res.non2xx + res.errors,
    cmds,
  };
}

async function main() {
  const runs = arg('runs', 3);
  const cfg = { bodyBytes: arg('body', 1024), connections: arg('connections', 50), duration: arg('seconds', 5) };
  const prefix = `perf${process.pid}door`;
  const pi = process.argv.indexOf('--profile');
  const ingress = await startIngress(prefix, pi >= 0 ? process.argv[pi + 1] : undefined);
  const ceiling = await startCeiling(prefix);
  const r = redisClient();
  try {
    await registerHook(ingress.url, 'b1', 'bench');
    const a = { name: 'hookyard', pid: ingress.pid, url: `${ingress.url}/universal_webhook/bench` };
    const b = { name: 'ceiling', pid: ceiling.pid, url: `${ceiling.url}/universal_webhook/bench` };
    await runLoad({ ...cfg, url: a.url, duration: 2 });
    await runLoad({ ...cfg, url: b.url, duration: 2 });
    const out = { hookyard: [], ceiling: [] };
    for (let i = 0; i < runs; i++) {
      for (const side of i % 2 === 0 ? [a, b] : [b, a]) {
        const m = await measure(side, cfg, r);
        out[side.name].push(m);
        log(
          `${side.name} ${i + 1}/${runs}: ${m.perSecond}/s node ${m.nodeUs} us/req redis ${m.redisUs} us/req p99 ${m.p99} ms${m.bad ? ` (${m.bad} bad)` : ''} ${JSON.stringify(m.cmds)}`,
        );
      }
    }
    const med = (side, k) => summary(out[side].map((m) => m[k])).median;
    const cpuRatio = ratio(med('ceiling', 'nodeUs') + med('ceiling', 'redisUs'), med('hookyard', 'nodeUs') + med('hookyard', 'redisUs'));
    const report = {
      hookyard: { perSecond: med('hookyard', 'perSecond'), nodeUs: med('hookyard', 'nodeUs'), redisUs: med('hookyard', 'redisUs') },
      ceiling: { perSecond: med('ceiling', 'perSecond'), nodeUs: med('ceiling', 'nodeUs'), redisUs: med('ceiling', 'redisUs') },
      throughputRatio: ratio(med('hookyard', 'perSecond'), med('ceiling', 'perSecond')),
      cpuRatio,
    };
    process.stdout.write(JSON.stringify(report) + '\n');
  } finally {
    r.disconnect();
    await Promise.all([ingress.stop(), stopAll([ceiling])]);
    await cleanup([prefix]);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  killAllSync();
  process.exit(1);
});
