'use strict';
/**
 * Differential check of the door's JSON object scanner (isJsonObjectText)
 * against JSON.parse + the depth rule: random documents and random mutations
 * of them (byte flips, insertions, deletions, truncations). Any disagreement
 * is printed and exits 1. Build first (`pnpm build`).
 *
 *   node test/perf/json-scan-fuzz.js [--cases N] [--seed S]
 */
const path = require('node:path');
const ROOT = path.resolve(__dirname, '..', '..');
const { isJsonObjectText, exceedsJsonDepth } = require(path.join(ROOT, 'services/ingress/dist/door/json-depth'));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
let seed = arg('seed', 42) >>> 0;
const rnd = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const pick = (a) => a[Math.floor(rnd() * a.length)];

const ATOMS = ['0', '-0', '1', '-12.5e+3', '1E9', '0.001', '3.0e-2', 'true', 'false', 'null', '""', '"a\\"b"', '"\\u00e9\\n"', '"é€😀"', '"\\/"', '1e-0'];
const WS = ['', ' ', '\n', '\t', '\r', '  '];
function gen(depth) {
  const r = rnd();
  if (depth > 70 || r < 0.35) return pick(ATOMS);
  if (r < 0.7) {
    const n = Math.floor(rnd() * 4);
    const parts = [];
    for (let i = 0; i < n; i++) parts.push(`${pick(WS)}"k${i}${pick(['', '\\t', 'x'])}"${pick(WS)}:${pick(WS)}${gen(depth + 1)}${pick(WS)}`);
    return `{${parts.join(',')}${n ? '' : pick(WS)}}`;
  }
  const n = Math.floor(rnd() * 4);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(`${pick(WS)}${gen(depth + 1)}${pick(WS)}`);
  return `[${parts.join(',')}${n ? '' : pick(WS)}]`;
}
const NOISE = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  'u',
  '0',
  '1',
  '-',
  '+',
  '.',
  'e',
  'E',
  ' ',
  '\n',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u00a0',
  '\ufeff',
  'x',
  't',
  'n',
  'f',
  'a',
  '\u2028',
  '\ud800',
];
function mutate(s) {
  const n = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < n; k++) {
    const i = Math.floor(rnd() * (s.length + 1));
    const op = rnd();
    if (op < 0.3) s = s.slice(0, i) + pick(NOISE) + s.slice(i);
    else if (op < 0.6) s = s.slice(0, i) + s.slice(i + 1);
    else if (op < 0.8) s = s.slice(0, i) + pick(NOISE) + s.slice(i + 1);
    else s = s.slice(0, i);
  }
  return s;
}
function nested(d, open, close) {
  return `{"a":${open.repeat(d)}1${close.repeat(d)}}`;
}

function expected(text) {
  if (exceedsJsonDepth(text)) return false;
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

const cases = arg('cases', 300000);
let bad = 0;
let valid = 0;
const fixed = [
  '{}',
  ' {} ',
  '{"a":1}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":1e}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '{"a":"\t"}',
  '{"a":1,}',
  '{,"a":1}',
  '{"a" 1}',
  '[]',
  '"x"',
  '1',
  'null',
  '{"a":tru}',
  '{"a":nul}',
  '{"a":true}x',
  '{"a":[1,2,]}',
  '{"a":[,]}',
  '\ufeff{}',
  '{}\u00a0',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-}',
  '{"a":-01}',
  '{"a":0x1}',
  "{'a':1}",
  '{"a":"\ud800"}',
  '{"\\u0000":1}',
  nested(63, '[', ']'),
  nested(64, '[', ']'),
  nested(65, '[', ']'),
  nested(62, '{"b":', '}'),
  nested(63, '{"b":', '}'),
  nested(64, '{"b":', '}'),
];
const check = (text) => {
  const want = expected(text);
  const got = isJsonObjectText(text);
  if (want) valid++;
  if (want !== got) {
    bad++;
    if (bad <= 20) process.stdout.write(`MISMATCH want ${want} got ${got}: ${JSON.stringify(text).slice(0, 300)}\n`);
  }
};
fixed.forEach(check);
for (let c = 0; c < cases; c++) {
  const doc = gen(0);
  const text = rnd() < 0.5 ? `{"d":${doc}}` : doc;
  check(text);
  check(mutate(text));
}
process.stdout.write(`${cases * 2 + fixed.length} cases, ${valid} valid objects, ${bad} mismatches\n`);
process.exit(bad ? 1 : 0);
