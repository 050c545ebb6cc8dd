'use strict';
/**
 * The agent section's load generator, in its own process so it never shares
 * an event loop with what it measures: the official MCP SDK's Client over
 * StreamableHTTPClientTransport, one session, many concurrent `tools/call`
 * of `echo`. Reads one JSON config from argv[2], prints one JSON line.
 *
 * Config: {url, token?, duration (s), rate? | concurrency, warmup? (calls)}
 *
 * With `rate`: an evenly paced open loop (call i is due at start + i / rate,
 * whatever came back; its latency counts from then, so a call the client
 * could not send on time still counts its wait). Without: `concurrency`
 * calls in flight for `duration` seconds, each starting when one ends.
 * Every answer is checked: structuredContent must echo the call's arguments.
 */
const { requireFrom } = require('./lib/common');

const sdk = (p) => requireFrom('services/ingress', `@modelcontextprotocol/sdk/${p}`);
const { Client } = sdk('client/index.js');
const { StreamableHTTPClientTransport } = sdk('client/streamableHttp.js');

function rank(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const headers = cfg.token ? { authorization: `Bearer ${cfg.token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } });
  const client = new Client({ name: 'hookyard-bench', version: '0.1.0' });
  await client.connect(transport);
  const listed = await client.listTools();
  if (!listed.tools.some((t) => t.name === 'echo')) throw new Error(`no echo tool at ${cfg.url}: ${JSON.stringify(listed.tools.map((t) => t.name))}`);

  let seq = 0;
  let ok = 0;
  let errors = 0;
  let firstError = null;
  const latencies = [];
  let lastAnswerAt = 0;
  /** One call; answers when it settled, recording its latency from `dueAt` when `record`. */
  const call = async (dueAt, record) => {
    const n = ++seq;
    let good = false;
    try {
      const r = await client.callTool({ name: 'echo', arguments: { n, text: 'bench' } });
      good = !r.isError && r.structuredContent && r.structuredContent.n === n;
      if (!good && !firstError) firstError = JSON.stringify(r).slice(0, 500);
    } catch (err) {
      // fetch's own message is only "fetch failed": its cause says what (refused, reset, timed out).
      if (!firstError) firstError = [err && err.message, err && err.cause && (err.cause.code || err.cause.message)].filter(Boolean).join(': ');
    }
    if (!record) return;
    latencies.push(performance.now() - dueAt);
    lastAnswerAt = performance.now();
    if (good) ok += 1;
    else errors += 1;
  };

  // Warm-up (not counted): JIT, connection pool, the servers' caches.
  const warm = cfg.warmup || 0;
  for (let done = 0; done < warm; done += 20) await Promise.all(Array.from({ length: Math.min(20, warm - done) }, () => call(0, false)));

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + cfg.duration * 1000;
  let sent = 0;
  if (cfg.rate) {
    const interval = 1000 / cfg.rate;
    const total = Math.round(cfg.rate * cfg.duration);
    const inFlight = [];
    while (sent < total) {
      const due = Math.min(total, Math.floor((performance.now() - t0) / interval) + 1);
      while (sent < due) inFlight.push(call(t0 + sent++ * interval, true));
      if (sent < total) await new Promise((r) => setTimeout(r, Math.max(0, t0 + sent * interval - performance.now())));
    }
    await Promise.all(inFlight);
  } else {
    const worker = async () => {
      while (performance.now() < until) {
        sent += 1;
        await call(performance.now(), true);
      }
    };
    await Promise.all(Array.from({ length: cfg.concurrency }, worker));
  }
  const cpu = process.cpuUsage(cpu0);
  const sendSeconds = cfg.rate ? cfg.duration : (performance.now() - t0) / 1000;
  const activeSeconds = Math.max(0.001, ((lastAnswerAt || performance.now()) - t0) / 1000);
  await transport.terminateSession().catch(() => undefined);
  await client.close();
  latencies.sort((a, b) => a - b);
  const round = (v) => (v == null ? null : Math.round(v * 100) / 100);
  process.stdout.write(
    JSON.stringify({
      requests: sent,
      ok,
      errors,
      non2xx: 0,
      ...(firstError ? { firstError } : {}),
      sentPerSecond: sent / sendSeconds,
      perSecond: ok / activeSeconds,
      activeSeconds,
      latencyMs: {
        p50: round(rank(latencies, 50)),
        p90: round(rank(latencies, 90)),
        p99: round(rank(latencies, 99)),
        max: round(rank(latencies, 100)),
        mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
      },
      cpuMs: (cpu.user + cpu.system) / 1000,
    }) + '\n',
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);
