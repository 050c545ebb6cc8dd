'use strict';
/**
 * The load generator, run in its own process so it never shares an event loop
 * with what it measures. Reads one JSON config from argv[2], runs autocannon,
 * prints one JSON line with the figures on stdout.
 *
 * Config: {url, method, headers, bodyBytes | body, connections, duration | amount, overallRate}
 *
 * Without overallRate: autocannon, as fast as the connections go. With it: an
 * evenly paced open loop (see paced()) (request i is due at start + i / rate, whatever came
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
  answer({
    startedAt,
    lastAnswerAt,
    finish: new Date(r.finish).getTime(),
    durationSeconds: r.duration,
    requests: r.requests.total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.average },
    bytesPerSecond: r.throughput.average,
    cpu: process.cpuUsage(cpu0),
  });
}

/** Prints the one JSON line both paths answer; the rate is taken from the first request to the last answer. */
function answer({ startedAt, lastAnswerAt, cpu, ...figures }) {
  const activeSeconds = Math.max(0.001, ((lastAnswerAt || Date.now()) - startedAt) / 1000);
  const { latencyMs, bytesPerSecond, pacing, ...counts } = figures;
  process.stdout.write(
    JSON.stringify({
      startedAt,
      start: startedAt,
      lastAnswerAt,
      activeSeconds,
      ...counts,
      perSecond: counts.ok / activeSeconds,
      latencyMs,
      bytesPerSecond,
      cpuMs: (cpu.user + cpu.system) / 1000,
      ...(pacing ? { pacing } : {}),
    }) + '\n',
  );
}

/** The p-th percentile (nearest rank) of sorted numbers. */
function rank(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * The end of the first whole HTTP/1.1 response in `buf` (Content-Length or
 * chunked), with its status; null while it is incomplete.
 */
function responseEnd(buf) {
  const head = buf.indexOf('\r\n\r\n');
  if (head < 0) return null;
  const status = Number(buf.toString('latin1', 9, 12));
  const headers = buf.toString('latin1', 0, head);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
  if (length) {
    const end = head + 4 + Number(length[1]);
    return buf.length >= end ? { status, end } : null;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(headers)) return { status, end: head + 4 };
  for (let at = head + 4; ;) {
    const line = buf.indexOf('\r\n', at);
    if (line < 0) return null;
    const size = parseInt(buf.toString('latin1', at, line), 16);
    at = line + 2 + size + 2;
    if (buf.length < at) return null;
    if (size === 0) return { status, end: at };
  }
}

/**
 * Constant arrival rate over keep-alive connections: one prebuilt request
 * written on a free socket, responses read straight off it (as lean per
 * request as autocannon, so the load generator takes little of the cores it
 * shares with what it measures). A request due while every connection is busy
 * waits for one, and its wait counts.
 */
async function paced(cfg) {
  const net = require('node:net');
  const { performance } = require('node:perf_hooks');
  const url = new URL(cfg.url);
  const body = Buffer.from(cfg.body ?? (cfg.bodyBytes ? jsonBody(cfg.bodyBytes) : ''));
  const extra = Object.entries(cfg.headers || {}).map(([k, v]) => `${k}: ${v}\r\n`);
  const method = cfg.method || (body.length ? 'POST' : 'GET');
  const request = Buffer.concat([
    Buffer.from(
      `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n` +
        (body.length ? `content-type: application/json\r\ncontent-length: ${body.length}\r\n` : '') +
        `${extra.join('')}\r\n`,
      'latin1',
    ),
    body,
  ]);
  const connections = cfg.connections || 50;
  const rate = cfg.overallRate;
  const total = cfg.amount ?? Math.round(rate * (cfg.duration || 5));
  const interval = 1000 / rate;
  const latencies = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let unsolicited = 0;
  const unsolicitedStatus = {};
  const timeouts = 0;
  let bytes = 0;
  let settled = 0;
  let lastAnswerAt = 0;
  let allSettled;
  const done = new Promise((resolve) => (allSettled = resolve));
  let finished = false;
  const waiting = []; // due times of requests no connection was free for
  const free = [];

  const settle = (dueAt, good) => {
    latencies.push(performance.now() - dueAt);
    lastAnswerAt = Date.now();
    if (good === true) ok += 1;
    else if (good === false) non2xx += 1;
    else errors += 1;
    settled += 1;
    if (settled === total) allSettled();
  };
  const send = (conn, dueAt) => {
    conn.dueAt = dueAt;
    conn.socket.write(request);
  };
  const conns = new Set();
  const open = () =>
    new Promise((resolve, reject) => {
      const conn = { socket: net.connect({ host: url.hostname, port: Number(url.port) || 80 }), buf: Buffer.alloc(0), dueAt: null };
      conns.add(conn);
      conn.socket.setNoDelay(true);
      conn.socket.once('connect', () => resolve(conn));
      conn.socket.on('error', reject);
      // A connection the server closed: its request (if any) failed; a new one takes its place.
      conn.socket.once('close', () => {
        conns.delete(conn);
        const i = free.indexOf(conn);
        if (i >= 0) free.splice(i, 1);
        if (conn.dueAt !== null) settle(conn.dueAt, null);
        conn.dueAt = null;
        if (finished) return;
        open().then(
          (c) => (waiting.length ? send(c, waiting.shift()) : free.push(c)),
          () => undefined,
        );
      });
      conn.socket.on('data', (chunk) => {
        bytes += chunk.length;
        conn.buf = conn.buf.length ? Buffer.concat([conn.buf, chunk]) : chunk;
        const r = responseEnd(conn.buf);
        if (!r) return;
        conn.buf = conn.buf.subarray(r.end);
        const dueAt = conn.dueAt;
        // An answer with no request of ours in flight (node's 408 on a connection that never sent a request, its
        // headers timeout, before it closes it): counted apart, never as a request's answer, or a request would
        // settle twice.
        if (dueAt === null) {
          unsolicited += 1;
          unsolicitedStatus[r.status] = (unsolicitedStatus[r.status] ?? 0) + 1;
          return;
        }
        conn.dueAt = null;
        settle(dueAt, r.status >= 200 && r.status < 300);
        if (waiting.length) send(conn, waiting.shift());
        else free.push(conn);
      });
    });
  free.push(...(await Promise.all(Array.from({ length: connections }, open))));
  const cpu0 = process.cpuUsage();
  const startedAt = Date.now();
  const t0 = performance.now();
  const fire = (i) => {
    const dueAt = t0 + i * interval;
    const conn = free.pop();
    if (conn) send(conn, dueAt);
    else waiting.push(dueAt);
  };

  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - t0) / interval) + 1);
    while (sent < due) fire(sent++);
    if (sent < total) await new Promise((r) => setTimeout(r, Math.max(0, t0 + sent * interval - performance.now())));
  }
  await done;
  finished = true;
  for (const c of conns) c.socket.destroy();
  latencies.sort((a, b) => a - b);
  const activeSeconds = Math.max(0.001, ((lastAnswerAt || Date.now()) - startedAt) / 1000);
  answer({
    startedAt,
    lastAnswerAt,
    finish: lastAnswerAt,
    durationSeconds: total / rate,
    requests: total,
    ok,
    non2xx,
    errors,
    unsolicited,
    unsolicitedStatus,
    timeouts,
    latencyMs: {
      p50: rank(latencies, 50),
      p90: rank(latencies, 90),
      p99: rank(latencies, 99),
      max: rank(latencies, 100),
      mean: latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length),
    },
    bytesPerSecond: bytes / activeSeconds,
    cpu: process.cpuUsage(cpu0),
    pacing: 'even',
  });
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
