'use strict';
/**
 * Condition evaluations per second over a ~2 KB GitHub-style payload: Hookyard's
 * jq engine (packages/jq/dist) versus one jq-wasm call per evaluation. Runs in
 * its own process; argv[2] is {seconds, runs}; prints one JSON line.
 *
 * Uses `benchConditions` from packages/jq/test/bench-conditions.js when that
 * file exists; otherwise measures here.
 */
const path = require('node:path');
const { existsSync } = require('node:fs');
const { ROOT, requireFrom, summary } = require('./lib/common');
const { jsonBody } = require('./lib/payload');

const CONDITION =
  '.action == "opened" and .repository.full_name == "octo-org/hello-world" and (.pull_request.draft | not) ' +
  'and ([.pull_request.labels[].name] | index("ready-for-review")) != null and .pull_request.base.ref == "main"';

/** Evaluations in `seconds` with `width` in flight; returns evaluations per second. */
async function rate(seconds, width, evalOnce) {
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (performance.now() < end) {
        await evalOnce();
        n += 1;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

async function ownBench({ seconds, runs }) {
  const { createJqEngine } = require(path.join(ROOT, 'packages', 'jq', 'dist'));
  const { loadJq } = requireFrom('packages/jq', 'jq-wasm');
  const payload = JSON.parse(jsonBody(2048));
  const engine = await createJqEngine({ timeoutMs: 1000 });
  const jq = await loadJq();
  try {
    const a = await engine.run(CONDITION, payload);
    const b = jq.json(payload, CONDITION);
    if (JSON.stringify(a) !== JSON.stringify(b) || a[0] !== true) throw new Error(`engines disagree: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    const engine1 = [];
    const engine16 = [];
    const wasm = [];
    // Warm-up.
    await rate(Math.min(0.5, seconds), 1, () => engine.run(CONDITION, payload));
    await rate(Math.min(0.5, seconds), 1, async () => jq.json(payload, CONDITION));
    for (let i = 0; i < runs; i++) {
      engine1.push(Math.round(await rate(seconds, 1, () => engine.run(CONDITION, payload))));
      engine16.push(Math.round(await rate(seconds, 16, () => engine.run(CONDITION, payload))));
      wasm.push(Math.round(await rate(seconds, 1, async () => jq.json(payload, CONDITION))));
    }
    return {
      source: 'test/bench/conditions-child.js',
      condition: CONDITION,
      payloadBytes: Buffer.byteLength(JSON.stringify(payload)),
      engine: { sequential: summary(engine1), concurrent16: summary(engine16), stats: engine.stats ? engine.stats() : null },
      jqWasm: { perCall: summary(wasm) },
    };
  } finally {
    await engine.close();
  }
}

async function main() {
  const cfg = JSON.parse(process.argv[2] || '{"seconds":1,"runs":1}');
  const shared = path.join(ROOT, 'packages', 'jq', 'test', 'bench-conditions.js');
  let out;
  if (existsSync(shared) && !process.env.BENCH_OWN_CONDITIONS) {
    const { benchConditions } = require(shared);
    const runs = [];
    for (let i = 0; i < cfg.runs; i++) runs.push(await benchConditions({ scale: cfg.scale }));
    const last = runs[runs.length - 1];
    out = {
      source: 'packages/jq/test/bench-conditions.js (benchConditions)',
      condition: last.condition,
      payloadBytes: last.payloadBytes,
      engine: {
        sequential: summary(runs.map((r) => r.engineCompiled.perSecond)),
        bareCompiled: summary(runs.map((r) => r.bareCompiled.perSecond)),
        workerFallback: summary(runs.map((r) => r.engineWorkerFallback.perSecond)),
        stats: last.stats,
      },
      jqWasm: { perCall: summary(runs.map((r) => r.jqWasmInProcess.perSecond)) },
      iterations: { engine: last.engineCompiled.iterations, jqWasm: last.jqWasmInProcess.iterations },
    };
  } else {
    out = await ownBench(cfg);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);
