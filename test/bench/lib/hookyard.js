'use strict';
/** Hookyard under test: role processes on one prefix, and the few management calls the bench needs. */
const { randomBytes } = require('node:crypto');
const { startRole, startAll } = require('./procs');
const { REDIS_URL, NATS_URL } = require('./infra');
const { fetchMetric } = require('./common');

const TOKEN = randomBytes(24).toString('hex');

function hookyardEnv(prefix, extra = {}) {
  return {
    HOOKS_REDIS_URL: REDIS_URL,
    HOOKS_NATS_URL: NATS_URL,
    HOOKS_KEY_PREFIX: prefix,
    HOOKS_NATS_PREFIX: prefix,
    HOOKS_API_TOKENS: `admin:${TOKEN}`,
    HOOKS_DOOR_RATE: '0',
    HOOKS_API_RATE: '0',
    HOOKS_LOG_LEVEL: 'info',
    ...benchSettings(),
    // Node flags of every role from the bench's environment (an A/B of V8 flags): BENCH_NODE_OPTIONS='--max-semi-space-size=64' (V8's own young generation here, in place of serve's 8 MiB default).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
    ...extra,
  };
}

/** Settings for every role from the bench's own environment: BENCH_HOOKS_NATS_STORAGE=file sets HOOKS_NATS_STORAGE=file (an A/B knob). */
function benchSettings() {
  return Object.fromEntries(
    Object.entries(process.env)
      .filter(([k]) => k.startsWith('BENCH_HOOKS_'))
      .map(([k, v]) => [k.slice('BENCH_'.length), v]),
  );
}

/**
 * Starts the named roles (e.g. ['ingress', 'scheduler', 'executor']) as separate processes.
 * Returns {procs, byRole, env}; `label` tells processes of two stacks apart in reports;
 * `byRoleEnv` adds variables to one role only (e.g. {executor: {NODE_OPTIONS: ...}}).
 */
async function startStack(prefix, roles, extra = {}, label = 'hookyard', byRoleEnv = {}) {
  const shared = hookyardEnv(prefix, extra);
  const startRoleOf = (r) => {
    const own = byRoleEnv[r] || {};
    // One role's node flags add to every role's (BENCH_NODE_OPTIONS), not replace them.
    const nodeOptions = [shared.NODE_OPTIONS, own.NODE_OPTIONS].filter(Boolean).join(' ');
    return startRole(`${label}-${r}`, r, { ...shared, ...own, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) });
  };
  // The ingress first: it creates the streams the others bind to.
  const byRole = {};
  const procs = [];
  const [first, ...rest] = roles;
  const p0 = startRoleOf(first);
  procs.push(p0);
  byRole[first] = p0;
  await startAll([p0]);
  const others = rest.map((r) => {
    const p = startRoleOf(r);
    byRole[r] = p;
    return p;
  });
  procs.push(...others);
  await startAll(others);
  return { procs, byRole, env: shared, prefix };
}

async function api(base, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

const CONDITION = '.action == "opened"';

function registerHook(base, name, topic, extra = {}) {
  return api(base, 'POST', '/api/hooks', { name, topic, tool: 'echo', condition: { content: CONDITION }, ...extra });
}

/** Every run of a hook (paged by cursor). */
async function runsOf(base, hook) {
  const out = [];
  let cursor = null;
  do {
    const q = new URLSearchParams({ hook, limit: '500' });
    if (cursor) q.set('cursor', cursor);
    const page = await api(base, 'GET', `/api/hook-runs?${q.toString()}`);
    out.push(...page.runs);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** Sum of `tai42_hook_runs_<name>` over the given processes' /metrics. */
async function metricOver(procs, name) {
  const vals = await Promise.all(procs.map((p) => fetchMetric(p.url, `tai42_hook_runs_${name}`)));
  return vals.reduce((a, b) => a + b, 0);
}

module.exports = { TOKEN, CONDITION, hookyardEnv, startStack, api, registerHook, runsOf, metricOver };
