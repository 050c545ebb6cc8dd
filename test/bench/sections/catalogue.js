'use strict';
/**
 * Catalogue: discovery of GitHub's published OpenAPI document (npm
 * @octokit/openapi, generated/api.github.com.json, 13 MB) as a registered
 * `openapi` tool. A child process serves the document's bytes over HTTP on
 * 127.0.0.1; this process fetches, parses (in a worker) and converts it with
 * the built @hookyard/tools, `ctx.runs` times. Reports the discovery time and
 * the largest event-loop stall during it (perf_hooks.monitorEventLoopDelay,
 * 1 ms resolution, and the longest gap between 1 ms timer turns), beside
 * the longest gap of the same watch over an idle stretch as long (on a
 * loaded machine the scheduler alone makes gaps).
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { ROOT, log, summary } = require('../lib/common');

const DOCUMENT = require.resolve('@octokit/openapi/generated/api.github.com.json', { paths: [ROOT] });

function serveDocument() {
  const src = `
    const { readFileSync } = require('node:fs');
    const body = readFileSync(${JSON.stringify(DOCUMENT)});
    const server = require('node:http').createServer((req, res) => {
      res.writeHead(req.url === '/openapi.json' ? 200 : 404, { 'content-type': 'application/json', connection: 'close' });
      res.end(req.url === '/openapi.json' ? body : '{}');
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`document server exited with code ${code}`)));
    child.stdout.once('data', (d) => resolve({ url: `http://127.0.0.1:${String(d).trim()}`, stop: () => child.kill('SIGTERM') }));
  });
}

/** The largest gap between 1 ms timer turns while this process does nothing for `ms`: what the machine's load alone costs. */
async function idleGap(ms) {
  let last = performance.now();
  let gap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, ms));
  clearInterval(ticker);
  return gap;
}

async function catalogue(ctx) {
  const tools = require(path.join(ROOT, 'packages', 'tools', 'dist', 'index.js'));
  const { silentLogger } = require(path.join(ROOT, 'packages', 'core', 'dist', 'index.js'));
  const server = await serveDocument();
  const record = { name: 'github', kind: 'openapi', endpoint: server.url, timeout_ms: 30000, headers: {}, updated_at: new Date().toISOString() };
  const runs = [];
  try {
    for (let i = 0; i < Math.max(ctx.runs, 1); i++) {
      const provider = new tools.OpenApiProvider({ logger: silentLogger() });
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      let last = performance.now();
      let gap = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        gap = Math.max(gap, now - last);
        last = now;
      }, 1);
      histogram.enable();
      const t0 = performance.now();
      const operations = await provider.check(record);
      const ms = performance.now() - t0;
      histogram.disable();
      clearInterval(ticker);
      await provider.close();
      // The same watch with nothing to do, for as long: a busy machine's scheduling shows up here too.
      const idleMs = await idleGap(Math.max(500, Math.round(ms)));
      runs.push({ ms, operations: operations.length, maxDelayMs: histogram.max / 1e6, maxGapMs: gap, idleGapMs: idleMs });
      log(
        `catalogue: run ${i + 1}: ${operations.length} operations in ${ms.toFixed(0)} ms, largest stall ${(histogram.max / 1e6).toFixed(1)} ms (timer gap ${gap.toFixed(1)} ms; idle for as long: ${idleMs.toFixed(1)} ms)`,
      );
    }
  } finally {
    server.stop();
  }
  const round = (v) => (v == null ? null : Math.round(v * 10) / 10);
  const pick = (k) => {
    const s = summary(runs.map((r) => r[k]));
    return { min: round(s.min), median: round(s.median), max: round(s.max) };
  };
  return {
    method:
      'GitHub OpenAPI document (13 MB) served by a child process on 127.0.0.1; OpenApiProvider.check: fetch, parse and slim in a worker, convert each operation in steps on the main thread',
    documentBytes: require('node:fs').statSync(DOCUMENT).size,
    operations: runs[0].operations,
    discoveryMs: pick('ms'),
    largestStallMs: pick('maxDelayMs'),
    largestTimerGapMs: pick('maxGapMs'),
    idleTimerGapMs: pick('idleGapMs'),
  };
}

module.exports = { catalogue };
