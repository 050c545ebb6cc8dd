'use strict';
/**
 * Condition evaluations per second over a ~2 KB GitHub pull_request payload:
 * the engine's compiled path, the bare compiled program, and one jq-wasm call
 * per evaluation (in-process, and through the engine's worker pool).
 *
 * Needs the built package: `npx tsc -b packages/jq`, then
 * `node packages/jq/test/bench-conditions.js`. Prints JSON.
 */
const { loadJq } = require('jq-wasm');
const { compileJq, createJqEngine } = require('../dist');

const CONDITION = '.action == "opened" and (.pull_request.labels | any(.name == "deploy")) and (.repository.full_name | test("^acme/"))';

function pullRequestPayload() {
  const user = (login, id) => ({ login, id, node_id: `MDQ6VXNlcj${id}`, type: 'User', site_admin: false, html_url: `https://github.com/${login}` });
  return {
    action: 'opened',
    number: 1347,
    pull_request: {
      url: 'https://api.github.com/repos/acme/widgets/pulls/1347',
      id: 1,
      number: 1347,
      state: 'open',
      locked: false,
      title: 'Ship the widget exporter',
      user: user('octocat', 1),
      body: 'This adds the exporter and its tests. Closes #1300.',
      labels: [
        { id: 208045946, name: 'bug', color: 'f29513', default: true },
        { id: 208045947, name: 'enhancement', color: 'a2eeef', default: false },
        { id: 208045948, name: 'deploy', color: '0e8a16', default: false },
      ],
      created_at: '2024-06-01T19:01:12Z',
      updated_at: '2024-06-01T19:01:12Z',
      draft: false,
      head: { label: 'octocat:exporter', ref: 'exporter', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', user: user('octocat', 1) },
      base: { label: 'acme:main', ref: 'main', sha: '9049f1265b7d61be4a8904a9a27120d2064dab3b', user: user('acme', 2) },
      merged: false,
      mergeable: null,
      comments: 0,
      commits: 3,
      additions: 120,
      deletions: 4,
      changed_files: 5,
    },
    repository: {
      id: 1296269,
      name: 'widgets',
      full_name: 'acme/widgets',
      private: true,
      owner: user('acme', 2),
      description: 'Widgets, exported',
      fork: false,
      topics: ['widgets', 'exporter', 'ci'],
      default_branch: 'main',
      visibility: 'private',
    },
    sender: user('octocat', 1),
  };
}

async function timed(iterations, fn) {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn(i);
  const ms = performance.now() - start;
  return { iterations, ms: Math.round(ms), perSecond: Math.round((iterations * 1000) / ms) };
}

/** Runs the benchmark; `scale` shrinks or grows every iteration count (default 1). */
async function benchConditions({ scale = 1, condition = CONDITION } = {}) {
  const payload = pullRequestPayload();
  const n = (k) => Math.max(10, Math.round(k * scale));
  const engine = await createJqEngine({ workers: 1 });
  try {
    const expect = JSON.stringify(await engine.run(condition, payload));
    const program = compileJq(condition, []);
    if (!program) throw new Error(`condition is outside the compiled subset: ${condition}`);
    const jq = await loadJq();
    const text = JSON.stringify(payload);
    if (JSON.stringify(jq.json(text, condition)) !== expect) throw new Error('compiled and jq-wasm answers differ');

    await timed(n(5000), () => engine.run(condition, payload)); // warm-up
    const engineCompiled = await timed(n(200000), () => engine.run(condition, payload));
    const bareCompiled = await timed(n(200000), () => program.run(payload, []));
    const jqWasm = await timed(n(1000), () => jq.json(JSON.stringify(payload), condition));
    // An expression outside the subset goes through the worker pool.
    const outside = `${condition} and (.pull_request.labels | [limit(1; .[])] | length > 0)`;
    const engineFallback = await timed(n(500), () => engine.run(outside, payload));
    return {
      condition,
      payloadBytes: text.length,
      result: JSON.parse(expect),
      engineCompiled,
      bareCompiled,
      jqWasmInProcess: jqWasm,
      engineWorkerFallback: engineFallback,
      speedup: Math.round(engineCompiled.perSecond / jqWasm.perSecond),
      stats: engine.stats(),
    };
  } finally {
    await engine.close();
  }
}

module.exports = { benchConditions, pullRequestPayload, CONDITION };

if (require.main === module) {
  const scale = Number(process.argv[2] ?? '1');
  benchConditions({ scale }).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
