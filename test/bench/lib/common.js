'use strict';
/**
 * Shared helpers of the benchmark suite: workspace paths, dependencies
 * resolved from the packages that own them, progress output and statistics.
 */
const path = require('node:path');
const { createRequire } = require('node:module');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BENCH_DIR = path.resolve(__dirname, '..');
const CLI_BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'hookyard.js');

/** Requires `name` as the workspace package in `dir` sees it (pnpm does not hoist). */
function requireFrom(dir, name) {
  return createRequire(path.join(ROOT, dir, 'package.json'))(name);
}

const deps = {
  Redis: () => requireFrom('packages/store', 'ioredis'),
  nats: () => requireFrom('packages/bus', 'nats'),
  express: () => requireFrom('services/ingress', 'express'),
  bullmq: () => requireFrom('.', 'bullmq'),
  autocannon: () => requireFrom('.', 'autocannon'),
};

const started = Date.now();
/** Progress goes to stderr, prefixed with the seconds since the suite started. */
function log(...parts) {
  const s = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${parts.join(' ')}\n`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of numbers (p in 0..100). */
function percentile(values, p) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

/** min / median / max of a list of per-run figures (nulls dropped). */
function summary(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return { min: null, median: null, max: null, runs: [] };
  const s = [...v].sort((a, b) => a - b);
  const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median: mid, max: s[s.length - 1], runs: values };
}

/** A ratio of medians, rounded to three places. */
function ratio(a, b) {
  if (a == null || b == null || b === 0) return null;
  return Math.round((a / b) * 1000) / 1000;
}

/** Polls `check` until it returns a value other than undefined or the time is up. */
async function until(check, timeoutMs, what, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Sum of a Prometheus metric's samples (all label sets) in an exposition text. */
function metricSum(text, name) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function fetchMetric(url, name) {
  const res = await fetch(`${url}/metrics`);
  return metricSum(await res.text(), name);
}

module.exports = { ROOT, BENCH_DIR, CLI_BIN, requireFrom, deps, log, sleep, percentile, summary, ratio, until, metricSum, fetchMetric };
