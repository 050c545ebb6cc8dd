import fc from 'fast-check';

/**
 * Expression/payload pairs for the differential test: hand-written ones for
 * the behaviour conditions lean on, and a seeded generator over the compiled
 * subset (plus a little outside it, so fallbacks are exercised too).
 */

export interface Case {
  expr: string;
  input: unknown;
}

export const PAYLOADS: unknown[] = [
  null,
  true,
  0,
  -3,
  1.5,
  'Abc',
  '',
  'é😀',
  [],
  [1, 2, 3],
  [3, 'a', null, true, [1], { a: 1 }],
  ['b', 'a', 'c', 'a'],
  {},
  { a: 1, b: 'two', c: [1, 2], d: { e: null } },
  { a: 'abc', b: 'ABC', c: 'a\nb', name: 'x-1' },
  { a: [{ name: 'deploy' }, { name: 'bug' }], b: 0.1, c: 1e-7, '1': 'one' },
  { b: 2, a: 1, c: { b: [true, false], a: 'é' } },
  { a: 12345678901234567000, b: -0.5, c: 1e300, name: 'acme/widgets' },
  // Keys that are special to JavaScript objects: parsed from JSON, so they are own keys as in a payload.
  JSON.parse('{"__proto__":{"a":1},"constructor":"c","k":"__proto__","toString":1,"a":"constructor"}'),
  JSON.parse('{"k":"constructor","b":{"__proto__":[1]},"hasOwnProperty":null}'),
];

export const PULL_REQUEST = {
  action: 'opened',
  number: 42,
  pull_request: {
    title: 'Deploy the thing',
    draft: false,
    labels: [{ name: 'bug' }, { name: 'deploy' }],
    user: { login: 'octocat', id: 1 },
    additions: 10,
    deletions: 3,
  },
  repository: { full_name: 'acme/widgets', private: true, topics: ['ci', 'Deploy'] },
  sender: { login: 'octocat' },
};

/** Conditions and door-contract shapes written by hand; each runs against every payload. */
export const HAND_EXPRS: string[] = [
  '.', '.a', '.a.b', '.["a"]', '.a?', '.a.b?', '.[0]', '.[-1]', '.[]', '.[]?', '.a[0]', '.a[]?', '."name"', '.c.b[0]',
  '.a == 1', '.a != "abc"', '.a < .b', '.b >= .a', '. > null', '.[] | . < "b"', '[.[] | type]',
  '.a and .b', '.a or .zz', '(.a | not)', '.a // "none"', '.zz // .a // 3', '(.a, .b) // 0', 'empty // 1',
  'select(.a == 1)', '.[] | select(type == "number")', 'map(. == 1)', 'map(.name)',
  'has("a")', 'has(0)', 'has("name")', '.a | has(0)', 'in({"a":1})', '"a" | in({"a":1})',
  '.a | test("^a")', '.a | test("B"; "i")', '.name | test("^acme/")', '.c | test("b$")', '.c | test("a.b")',
  '.a | test("\\\\d")', '.a | test("[a-c]+")', '.name | test("-\\\\d")', 'test("é")', '.a | test("(?<x>a)")',
  'any', 'all', 'any(. == 1)', 'all(type == "number")', '.a | any(.name == "deploy")', 'any(.[]; . == "a")',
  '"x\\(.a)y"', '"\\(.)"', '"\\(.b) and \\(.c)"', '"\\(.a,.b)-\\(1,2)"',
  'length', 'keys', 'keys_unsorted', 'type', 'tostring', 'tojson', '.a | tonumber', '.b | tonumber',
  'ascii_downcase', 'ascii_upcase', '.b | ascii_downcase', 'first', 'last', 'add', 'min', 'max', 'to_entries', 'sort',
  '.a | startswith("a")', '.a | endswith("c")', '.name | ltrimstr("x-")', '.name | rtrimstr("-1")', 'ltrimstr("A")',
  '.a | contains("b")', 'contains({"a":1})', 'contains([1])', '.a | split("b")', 'split(",")', 'join(",")', '.c | join("-")',
  'if .a then "yes" elif .b then "b" else "no" end', 'if . == [] then 1 end', 'try error("x")', 'try (1, error("x"), 3)',
  '[.[] | try tonumber]', '.a + 1', '.a - 1', '.a * 2', '.a / 2', '.a % 2', '.a + .b', '. + null', '-.a', '.a / 0',
  '[.a, .b] | add', '{a: .b, b: .a}', '{a, b}', '{"x": .a, (.name // "k"): 1}', '{(.a): 1}', '[.[]?] | length',
  '. as $x | [$x] | length', '.a as $v | .b as $w | [$w, $v]', 'error', 'error(.a)', '[1,2] - [2]', '{} + .', '[] + .',
  'map(tostring)', '.b | tostring', '.c | tostring', '.a | tostring', '[.[] | numbers]', 'isempty(.[])', 'first(.[])',
  '[limit(2; .[])]', '@base64', '.[1:]', 'reduce .[] as $x (0; . + 1)', 'paths', 'input', '$__loc__',
  '{"b":1} + {"a":2}', '{(.name // "1"): 1}', '"\\u00e9" < "z"', '"😀" > "\\uffff"', '[.[] | tostring] | sort',
  'contains([[1]])', '{"a":{"b":1,"c":2}} | contains({"a":{"b":1}})', '[.[]?] | sort', '[.[]?] | min, max',
  '[.[]? as $x | $x * 2]', '[.[]? | select(. > 1)] | length', 'if .a then .b end', '.a // empty', '[.a, .b] | max',
  '.name | ascii_downcase | test("^acme")', '.a | test("a"; "g")', '. as $d | keys | map($d[.])', 'keys | map(tostring)',
  '.c | not', '(.a | length) > 2', '.a | length', 'to_entries | map(.key)', '[.[]? | type] | join(",")',
  '.a | first(.[]?)', 'isempty(empty)', 'all(.[]?; . != null)', 'any(.[]?; type == "string")', '{a: 1} | .a += 1',
  '"\\(.c) \\(.b) \\(.a)"', '[.a, .b, .c] | tojson', '.b * .a', '.c - .b', '.a % .b', '(.a | tostring) + "!"',
  '{(.k): 1}', '{(.k): .a} | keys', '{"__proto__": 1}', '{__proto__: .a}', '{(.a // "x"): 2} | .constructor', '.__proto__',
  '.constructor', '.["__proto__"].a', 'has("__proto__")', 'has("constructor")', '{} | has("constructor")', '{} | .__proto__',
  '. + {"__proto__": 2}', '{"__proto__": {"b": 1}} + .', '{"__proto__": 3} | tojson', '{(.k): 1} | to_entries', '.b.__proto__',
  '"__proto__" | in({})', '{(.k): 1, a: 2} | keys_unsorted', '[{(.k): 1}] | .[0] | length', '{"toString": 1} | tostring',
  '.[] |= 1', 'to_entries[0].value', 'map(has("name"))?', 'try (.[] | tonumber)', '[.[]? | . == 1.0]', '-(.b)', '.b | -.',
];

/** The payload the benchmark condition is written for, plus variants that make each clause fail. */
export const CONDITION = '.action == "opened" and (.pull_request.labels | any(.name == "deploy")) and (.repository.full_name | test("^acme/"))';

const key = fc.constantFrom('a', 'b', 'c', 'name', '1', '__proto__', 'constructor');
const str = fc.constantFrom('a', 'b', 'abc', 'A', 'B', '', 'é', 'a\nb', '😀', '10', '-1.5', 'x y', 'deploy', 'acme/x', '1.0', 'a,b');
const num = fc.constantFrom(0, 1, -1, 2, 3, 1.5, 0.1, -0.25, 100, 1e-5, 1e16, 12345, 2.5e-3);
const scalar = fc.oneof(str, num, fc.constantFrom(null, true, false));

export const payloadArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4 }),
  ),
})).v;

const pathArb = fc.constantFrom('.', '.a', '.b', '.c', '.a.b', '.["a"]', '.[0]', '.[1]', '.[-1]', '.a?', '.[]', '.[]?', '.a[0]', '.name', '.c.a', '.b[]?');
const litArb = fc.constantFrom('0', '1', '-1', '2', '1.5', '0.1', '100', '"a"', '"b"', '""', '"A"', '"é"', 'true', 'false', 'null', '[]', '[1,"a"]', '{"a":1}', '1.0', '1e3');
const reArb = fc.constantFrom('"^a"', '"a$"', '"b."', '"[a-c]+"', '"\\\\d+"', '"^$"', '"A"', '"(a|b)c"', '"a{2}"', '"\\\\w"', '"é"', '"\\\\s"', '"x?y*"', '"[^a]"', '"(?i)a"', '"a**"', '"."');
const binArb = fc.constantFrom('+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', 'and', 'or', '//');
const unaryArb = fc.constantFrom(
  'length', 'keys', 'type', 'tostring', 'tonumber', 'not', 'ascii_downcase', 'first', 'last', 'add', 'min', 'max',
  'to_entries', 'any', 'all', 'sort', 'keys_unsorted', 'tojson', 'empty', 'ascii_upcase',
);

export const exprArb: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => {
  const e = tie('e');
  return {
    e: fc.oneof(
      { maxDepth: 3, depthSize: 'small', withCrossShrink: false },
      pathArb,
      litArb,
      unaryArb,
      fc.tuple(e, binArb, e).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(pathArb, binArb, litArb).map(([a, op, b]) => `${a} ${op} ${b}`),
      fc.tuple(e, e).map(([a, b]) => `${a} | ${b}`),
      fc.tuple(e, e).map(([a, b]) => `(${a}, ${b})`),
      e.map((a) => `select(${a})`),
      e.map((a) => `map(${a})`),
      e.map((a) => `any(${a})`),
      e.map((a) => `all(${a})`),
      e.map((a) => `[${a}]`),
      e.map((a) => `try ${a.startsWith('-') ? `(${a})` : a.startsWith('(') || /^[.\w"[]/.test(a) ? `(${a})` : a}`),
      e.map((a) => `(${a})?`),
      e.map((a) => `"v=\\(${a})"`),
      fc.tuple(e, e).map(([a, b]) => `{a: ${a.includes(',') || a.includes(' ') ? `(${a})` : a}, "b": (${b})}`),
      fc.tuple(e, e, e).map(([c, a, b]) => `if ${c} then ${a} else ${b} end`),
      fc.tuple(e, e).map(([a, b]) => `(${a}) as $x | (${b}), $x`),
      fc.tuple(reArb, fc.constantFrom('', '; "i"', '; null', '; "x"')).map(([re, f]) => `test(${re}${f})`),
      fc.tuple(fc.constantFrom('has', 'startswith', 'endswith', 'contains', 'ltrimstr', 'rtrimstr', 'split', 'join', 'in', 'inside'), litArb).map(
        ([f, a]) => `${f}(${a})`,
      ),
      e.map((a) => `error(${a})`),
      e.map((a) => `-(${a})`),
    ),
  };
}).e;

/** `count` generated pairs, the same every run. */
export function generatedCases(count: number, seed: number): Case[] {
  return fc.sample(fc.record({ expr: exprArb, input: payloadArb }), { seed, numRuns: count });
}
