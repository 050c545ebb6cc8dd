'use strict';
/**
 * CPU time by process during a load run, from /proc: the system under test,
 * Redis, NATS, the load generator (it reports its own) and everything else on
 * the machine. Divided by the requests served, it says where a request's cost
 * goes and what a 2-core machine can serve at most.
 */
const { readFileSync, readdirSync } = require('node:fs');
const { execFileSync } = require('node:child_process');

let tick = 100;
try {
  tick = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
} catch {
  /* the usual 100 */
}

/** utime + stime of a pid in ms (null when gone). */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / tick;
  } catch {
    return null;
  }
}

/** Busy ms of the whole machine (all cores), from /proc/stat. */
function machineBusyMs() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] || 0);
  const total = v.reduce((a, b) => a + b, 0);
  return ((total - idle) * 1000) / tick;
}

/** Pids of processes whose comm is `name` (read-only scan of /proc). */
function pidsByComm(name) {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === name) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

const servers = { redis: pidsByComm('redis-server'), nats: pidsByComm('nats-server') };

/**
 * Starts a measurement over named pids (plus redis and nats); `end(requests, loadgenCpuMs, at)` gives ms per
 * request, up to now or up to `at`, a `mark()` taken earlier (e.g. when the last run finished, while the load
 * generator was still on its way out).
 */
function measureCpu(named) {
  const pids = { ...named, redis: servers.redis[0], nats: servers.nats[0] };
  const mark = () => ({
    at: Date.now(),
    cpu: Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, pid ? cpuMs(pid) : null])),
    busy: machineBusyMs(),
  });
  const start = mark();
  return {
    mark,
    end(requests, loadgenCpuMs, at = mark()) {
      const wallMs = at.at - start.at;
      const used = {};
      let known = 0;
      for (const k of Object.keys(pids)) {
        const a = start.cpu[k];
        const b = at.cpu[k];
        if (a == null || b == null) continue;
        used[k] = b - a;
        known += b - a;
      }
      if (loadgenCpuMs != null) {
        used.loadgen = loadgenCpuMs;
        known += loadgenCpuMs;
      }
      const busy = at.busy - start.busy;
      used.other = Math.max(0, busy - known);
      const perRequest = Object.fromEntries(Object.entries(used).map(([k, v]) => [k, requests ? Math.round((v / requests) * 1000) / 1000 : null]));
      return { wallMs, machineBusyPercent: wallMs > 0 ? Math.round((busy / wallMs) * 100) : null, msPerRequest: perRequest };
    },
  };
}

module.exports = { measureCpu, cpuMs };
