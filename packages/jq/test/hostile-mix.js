'use strict';
/**
 * The hostile jq mix of issue 12, measured: the longest event-loop stall
 * while three hostile conditions run through the engine (a heartbeat every
 * 20 ms stands in for lease renewals). Prints one JSON line.
 *
 *   node packages/jq/test/hostile-mix.js      (after pnpm build)
 */
const { createJqEngine } = require('../dist/index.js');

/** The conditions and payloads; exported for the jest test. */
function hostileMix() {
  const big = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  const a = big(2000, (i) => ({ id: `a-${i}`, v: i }));
  const b = big(2000, (i) => ({ id: `b-${i}`, v: -i - 1 }));
  return [
    // `a?` x60 + `a` x60 + `b` over 60 a's: exponential backtracking in V8's regex engine.
    { name: 'optional-atoms', expr: `.s | test("${'a?'.repeat(60)}${'a'.repeat(60)}b")`, input: { s: 'a'.repeat(60) } },
    // A pattern taken from the payload.
    { name: 'pattern-from-payload', expr: '.s | test($re)', input: { s: 'a'.repeat(30) + '!' }, vars: { re: '^(a|a)*$' } },
    { name: 'pattern-from-payload-field', expr: '.s as $s | .re as $re | $s | test($re)', input: { s: 'a'.repeat(30) + '!', re: '^(a+)+$' } },
    // Nested any over two payload arrays (about 4M comparisons, ~100 KB of JSON).
    { name: 'nested-any', expr: '. as $d | any($d.a[]; . as $x | any($d.b[]; .v == $x.v))', input: { a, b } },
  ];
}

async function measure(engine, rounds = 2) {
  let last = Date.now();
  let longest = 0;
  const beat = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 20);
  const outcomes = {};
  const started = Date.now();
  try {
    for (let r = 0; r < rounds; r++) {
      await Promise.all(
        hostileMix().map((c) =>
          engine.run(c.expr, c.input, { vars: c.vars }).then(
            (out) => (outcomes[c.name] = JSON.stringify(out)),
            (err) => (outcomes[c.name] = `${err.kind}: ${err.message}`),
          ),
        ),
      );
    }
  } finally {
    clearInterval(beat);
  }
  longest = Math.max(longest, Date.now() - last);
  return { longestStallMs: longest, totalMs: Date.now() - started, outcomes, stats: engine.stats ? engine.stats() : undefined };
}

module.exports = { hostileMix, measure };

if (require.main === module) {
  (async () => {
    const engine = await createJqEngine({ workers: 1, timeoutMs: 1000 });
    try {
      console.log(JSON.stringify(await measure(engine, 1)));
    } finally {
      await engine.close();
    }
  })().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
