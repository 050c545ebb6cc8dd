'use strict';
/**
 * Hookyard benchmark suite. Starts the roles as separate processes on the real
 * Redis and JetStream, drives them from a load generator in its own process
 * (autocannon or a paced loop; the SDK's MCP client for the agent door), and
 * measures each comparison in the same run, alternating the two systems.
 *
 *   node test/bench/run.js [--smoke] [--only door,e2e,single,conditions,growth,cost,memory,catalogue,agent,waiters,counters]
 *                          [--out <dir>] [--soak-seconds N] [--soak-rate N] [--runs N]
 *                          [--list-runs N] [--list-fill-seconds N]  (cost: the largest number of runs kept, default 100000; the fill budget, default 120 s)
 *                          [--latency-rates 250,500,1000]  (e2e: accept-to-start at these rates too)
 *   node test/bench/run.js --render <results.json>   re-renders RESULTS.md (e.g. after editing ANALYSIS.md)
 *
 * Writes <out>/results.json and <out>/RESULTS.md (out defaults to test/bench/out);
 * a full run of every section also rewrites test/bench/RESULTS.md.
 * Env: REDIS_URL, NATS_URL; BENCH_HOOKS_<NAME> sets HOOKS_<NAME> on every Hookyard role (e.g. BENCH_HOOKS_NATS_STORAGE=file); BENCH_PROFILE_ROLE (process name, e.g. hookyard-ingress)
 * with BENCH_PROFILE_DIR to run that child under --cpu-prof.
 */
const { randomBytes } = require('node:crypto');
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { BENCH_DIR, log } = require('./lib/common');
const { stopAll, killAllSync } = require('./lib/procs');
const { cleanup, deleteRedisKeys, machine } = require('./lib/infra');
const { renderMarkdown, verdicts } = require('./lib/report');

const SECTIONS = {
  door: () => require('./sections/door').door,
  e2e: () => require('./sections/e2e').e2e,
  single: () => require('./sections/single').single,
  conditions: () => require('./sections/conditions').conditions,
  growth: () => require('./sections/growth').growth,
  cost: () => require('./sections/cost').cost,
  memory: () => require('./sections/memory').memory,
  catalogue: () => require('./sections/catalogue').catalogue,
  agent: () => require('./sections/agent').agent,
  waiters: () => require('./sections/waiters').waiters,
  counters: () => require('./sections/counters').counters,
};

function parseArgs(argv) {
  const a = {
    smoke: false,
    only: null,
    out: path.join(BENCH_DIR, 'out'),
    soakSeconds: null,
    soakRate: null,
    runs: null,
    listRuns: null,
    listFillSeconds: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--smoke') a.smoke = true;
    else if (k === '--only')
      a.only = val()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (k === '--out') a.out = path.resolve(val());
    else if (k === '--soak-seconds') a.soakSeconds = Number(val());
    else if (k === '--soak-rate') a.soakRate = Number(val());
    else if (k === '--runs') a.runs = Number(val());
    else if (k === '--list-runs') a.listRuns = Number(val());
    else if (k === '--list-fill-seconds') a.listFillSeconds = Number(val());
    else if (k === '--render') a.render = path.resolve(val());
    else if (k === '--latency-rates')
      a.latencyRates = val()
        .split(',')
        .map(Number)
        .filter((n) => n > 0);
    else if (k === '--help' || k === '-h') {
      process.stdout.write(require('node:fs').readFileSync(__filename, 'utf8').split('*/')[0] + '*/\n');
      process.exit(0);
    } else throw new Error(`unknown option ${k}`);
  }
  for (const s of a.only || []) if (!SECTIONS[s]) throw new Error(`unknown section ${String(s)} (one of ${Object.keys(SECTIONS).join(', ')})`);
  return a;
}

function makeContext(args) {
  const runId = randomBytes(3).toString('hex');
  const pending = new Set();
  // The cost section's sizes: 10,000 and 100,000 runs kept by default; --list-runs 1000000 adds the million (a fill of minutes).
  const listRuns = args.listRuns ?? 100_000;
  const ctx = {
    smoke: args.smoke,
    runs: args.runs ?? (args.smoke ? 1 : 3),
    soakSeconds: args.soakSeconds ?? (args.smoke ? 3 : 300),
    soakRate: args.soakRate ?? (args.smoke ? 50 : 200),
    listSteps: [...[10_000, 100_000, 1_000_000].filter((n) => n < listRuns), listRuns],
    listFillSeconds: args.listFillSeconds ?? (args.smoke ? 10 : 120),
    latencyRates: args.latencyRates || [],
    peaks: {},
    newPrefix(label) {
      const p = `bench${runId}${label}`;
      pending.add(p);
      return p;
    },
    track() {
      /* processes are registered by procs.js; kept for symmetry with stop() */
    },
    async stop(procs) {
      const peaks = await stopAll(procs);
      for (const [name, v] of Object.entries(peaks)) ctx.peaks[name] = Math.max(ctx.peaks[name] || 0, v || 0);
    },
    async clean(prefixes) {
      await cleanup(prefixes);
      for (const p of prefixes) pending.delete(p);
    },
    /** Drops the kept runs of a prefix (partition keys and the ceiling's keys), leaving hooks. */
    async cleanRuns(prefix) {
      await deleteRedisKeys(prefix, `{${prefix}:p*`);
      await deleteRedisKeys(prefix, `{${prefix}:ceil}*`);
    },
    pending,
  };
  return ctx;
}

/** RESULTS.md from a results.json already written; the committed file only for a full run of every section. */
function render(file) {
  const results = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
  const md = renderMarkdown(results);
  writeFileSync(path.join(path.dirname(file), 'RESULTS.md'), md);
  const complete = results.mode === 'full' && !results.options.only && Object.values(results.sections).every((s) => !s.error);
  if (complete) writeFileSync(path.join(BENCH_DIR, 'RESULTS.md'), md);
  log(`rendered ${path.join(path.dirname(file), 'RESULTS.md')}${complete ? ' and test/bench/RESULTS.md' : ''}`);
  return 0;
}

/** The figures with a target, PASS or MISS each, on stdout (smoke runs are too short to judge: their verdicts say so). */
function printVerdicts(results) {
  const rows = verdicts(results);
  if (!rows.length) return;
  const note = results.mode === 'smoke' ? ' (smoke: too brief to judge; no target is asserted)' : '';
  process.stdout.write(`\nTargets${note}:\n`);
  for (const v of rows) process.stdout.write(`  ${v.verdict.padEnd(4)}  ${v.name}: ${v.figure} (target ${v.target})\n`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) return render(args.render);
  const ctx = makeContext(args);
  const names = args.only || Object.keys(SECTIONS);
  const t0 = Date.now();
  const results = {
    date: new Date().toISOString(),
    mode: args.smoke ? 'smoke' : 'full',
    machine: await machine(),
    options: {
      runs: ctx.runs,
      soakSeconds: ctx.soakSeconds,
      soakRate: ctx.soakRate,
      listSteps: ctx.listSteps,
      listFillSeconds: ctx.listFillSeconds,
      only: args.only,
    },
    sections: {},
  };
  log(
    `mode ${results.mode}, sections ${names.join(', ')}; ${results.machine.cpu} x${results.machine.cores}, node ${results.machine.node}, redis ${results.machine.redis}, nats ${results.machine.nats}`,
  );
  let failed = 0;
  for (const name of names) {
    const s0 = Date.now();
    log(`section ${name}: start`);
    try {
      results.sections[name] = await SECTIONS[name]()(ctx);
      results.sections[name].seconds = Math.round((Date.now() - s0) / 100) / 10;
    } catch (err) {
      failed += 1;
      results.sections[name] = { error: String(err && err.stack ? err.stack : err).slice(0, 4000), seconds: Math.round((Date.now() - s0) / 100) / 10 };
      log(`section ${name} FAILED: ${err && err.message}`);
      killAllSync();
    }
    await ctx.clean([...ctx.pending]);
    log(`section ${name}: done in ${((Date.now() - s0) / 1000).toFixed(1)} s`);
  }
  results.seconds = Math.round((Date.now() - t0) / 100) / 10;
  mkdirSync(args.out, { recursive: true });
  writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  const md = renderMarkdown(results);
  writeFileSync(path.join(args.out, 'RESULTS.md'), md);
  if (!args.smoke && !args.only && failed === 0) writeFileSync(path.join(BENCH_DIR, 'RESULTS.md'), md);
  log(`wrote ${path.join(args.out, 'results.json')} in ${results.seconds} s${failed ? `; ${failed} section(s) failed` : ''}`);
  printVerdicts(results);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`bench failed: ${err && err.stack ? err.stack : err}`);
    killAllSync();
    process.exit(1);
  },
);
