'use strict';
/**
 * The load generator, run in its own process so it never shares an event loop
 * with what it measures. Reads one JSON config from argv[2], runs autocannon,
 * prints one JSON line with the figures on stdout.
 *
 * Config: {url, method, headers, bodyBytes | body, connections, duration | amount, overallRate}
 */
const { deps } = require('./lib/common');
const { jsonBody } = require('./lib/payload');

async function main() {
  const cfg = JSON.parse(process.argv[2]);
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

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
