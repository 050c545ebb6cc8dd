'use strict';
/**
 * The load generator, run in its own process so it never shares an event loop
 * with what it measures. Reads one JSON config from argv[2], runs autocannon,
 * prints one JSON line with the figures on stdout.
 *
 * Config: {url, method, headers, bodyBytes | body, connections, duration | amount, overallRate}
 *
 * Without overallRate: autocannon, as fast as the connections go. With it: an
 * evenly paced open loop (request i is due at start + i / rate, whatever came
 * back), because autocannon's overallRate is a per-second budget: each
 * connection sends its share of the second back to back and then waits for
 * the next second, so "476/s" arrives as a burst at ~2,000/s in the first
 * fifth of every second. Latency is taken from when a request was due, so a
 * request held back for want of a free connection still counts its wait.
 */
const { deps } = require('./lib/common');
const { jsonBody } = require('./lib/payload');

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  if (cfg.overallRate) return paced(cfg);
  const autocannon = deps.autocannon();
  const body = cfg.body ?? (cfg.bodyBytes ? jsonBody(cfg.bodyBytes) : undefined);
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(cfg.headers || {}) };
  const opts = {
    url: cfg.url,
    method: cfg.method || (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
    connections: cfg.connections || 50,
    pipelining: 1,
    timeout: cfg.timeoutSeconds || 30,
    ...(cfg.amount ? { amount: cfg.amount } : { duration: cfg.duration || 5 }),
    ...(cfg.overallRate ? { overallRate: cfg.overallRate } : {}),
  };
  // autocannon stops on its 1 s sampling tick, so its own duration is rounded up;
  // the rate is taken from the first request to the last answer instead.
  const cpu0 = process.cpuUsage();
  let lastAnswerAt = 0;
  const startedAt = Date.now();
  const r = await new Promise((resolve, reject) => {
    const inst = autocannon(opts, (err, res) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res)));
    inst.on('response', () => {
      lastAnswerAt = Date.now();
    });
  });
  const cpu = process.cpuUsage(cpu0);
  const ok = r['2xx'];
  const activeSeconds = Math.max(0.001, ((lastAnswerAt || Date.now()) - startedAt) / 1000);
  process.stdout.write(
    JSON.stringify({
      startedAt,
      start: startedAt,
      lastAnswerAt,
      activeSeconds,
      finish: new Date(r.finish).getTime(),
      durationSeconds: r.duration,
      requests: r.requests.total,
      ok,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      perSecond: ok / activeSeconds,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
      bytesPerSecond: r.throughput.average,
      cpuMs: (cpu.user + cpu.system) / 1000,
    }) + '\n',
  );
}

/** The p-th percentile (nearest rank) of sorted numbers. */
function rank(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Constant arrival rate over keep-alive connections (node:http), answering the same JSON line as autocannon's path. */
async function paced(cfg) {
  const http = require('node:http');
  const { performance } = require('node:perf_hooks');
  const body = Buffer.from(cfg.body ?? (cfg.bodyBytes ? jsonBody(cfg.bodyBytes) : ''));
  const headers = { ...(body.length ? { 'content-type': 'application/json' } : {}), ...(cfg.headers || {}), 'content-length': String(body.length) };
  const connections = cfg.connections || 50;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const url = new URL(cfg.url);
  const rate = cfg.overallRate;
  const total = cfg.amount ?? Math.round(rate * (cfg.duration || 5));
  const interval = 1000 / rate;
  const timeoutMs = (cfg.timeoutSeconds || 30) * 1000;
  const latencies = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let bytes = 0;
  let settled = 0;
  let lastAnswerAt = 0;
  let allSettled;
  const done = new Promise((resolve) => (allSettled = resolve));
  const cpu0 = process.cpuUsage();
  const startedAt = Date.now();
  const t0 = performance.now();

  const settle = (dueAt) => {
    latencies.push(performance.now() - dueAt);
    lastAnswerAt = Date.now();
    settled += 1;
    if (settled === total) allSettled();
  };
  const fire = (i) => {
    const dueAt = t0 + i * interval;
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: cfg.method || (body.length ? 'POST' : 'GET'),
        headers,
        agent,
        timeout: timeoutMs,
      },
      (res) => {
        if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
        else non2xx += 1;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () => settle(dueAt));
      },
    );
    req.on('timeout', () => {
      timeouts += 1;
      req.destroy(new Error('timeout'));
    });
    req.on('error', () => {
      errors += 1;
      settle(dueAt);
    });
    req.end(body);
  };

  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - t0) / interval) + 1);
    while (sent < due) fire(sent++);
    if (sent < total) await new Promise((r) => setTimeout(r, Math.max(0, t0 + sent * interval - performance.now())));
  }
  await done;
  agent.destroy();
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const activeSeconds = Math.max(0.001, ((lastAnswerAt || Date.now()) - startedAt) / 1000);
  const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
  process.stdout.write(
    JSON.stringify({
      startedAt,
      start: startedAt,
      lastAnswerAt,
      activeSeconds,
      finish: lastAnswerAt,
      durationSeconds: total / rate,
      requests: total,
      ok,
      non2xx,
      errors,
      timeouts,
      perSecond: ok / activeSeconds,
      latencyMs: { p50: rank(latencies, 50), p90: rank(latencies, 90), p99: rank(latencies, 99), max: rank(latencies, 100), mean },
      bytesPerSecond: bytes / activeSeconds,
      cpuMs: (cpu.user + cpu.system) / 1000,
      pacing: 'even',
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
