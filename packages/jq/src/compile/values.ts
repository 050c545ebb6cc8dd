/**
 * jq's value semantics over plain JSON values: kinds, truthiness, the total
 * order, and text forms. Where jq 1.8 would format or compare in a way this
 * file cannot reproduce with certainty, it throws `Fallback` and jq-wasm
 * answers that evaluation instead.
 */

/** A jq error raised by the compiled path. The message is only a hint: jq-wasm re-runs the evaluation for the real one. */
export class JqRuntimeError extends Error {}

/** The compiled path will not guess: re-run this evaluation on jq-wasm. */
export class Fallback extends Error {}

/**
 * Steps one in-process evaluation may take. The compiled path runs on the
 * caller's event loop with no time bound of its own, so every loop over data
 * and every generator call spends steps; past the budget the evaluation is
 * handed to jq-wasm, whose workers are time-bounded (HOOKS_JQ_TIMEOUT_MS).
 * 50k steps take about a millisecond or two on an idle core (tens on a starved one).
 */
export const STEP_BUDGET = 50_000;

/**
 * Steps left in the evaluation that is running. Module state on purpose: the
 * compiled path is synchronous and never re-entered, so at most one
 * evaluation per thread is in progress, and a counter here costs the hot path
 * one decrement where an argument threaded through every closure would cost more.
 */
export const meter = { left: STEP_BUDGET };

/** Starts a fresh budget for one evaluation. */
export function startBudget(steps: number = STEP_BUDGET): void {
  meter.left = steps;
}

/** Spends `n` steps; past the budget the evaluation goes to jq-wasm. */
export function charge(n: number): void {
  if ((meter.left -= n) < 0) overBudget();
}

export function overBudget(): never {
  throw new Fallback('step budget exceeded');
}

export function fail(hint: string): never {
  throw new JqRuntimeError(hint);
}

export function fallback(why: string): never {
  throw new Fallback(why);
}

export type Kind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function kindOf(v: unknown): Kind {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'object':
      return Array.isArray(v) ? 'array' : 'object';
    default:
      // undefined, functions, bigints: not JSON, so not something jq could have seen.
      return fallback(`not a JSON value: ${typeof v}`);
  }
}

export function truthy(v: unknown): boolean {
  return v !== false && v !== null;
}

/** jq's order of kinds: null < false < true < numbers < strings < arrays < objects. */
function rank(v: unknown): number {
  if (v === null) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  switch (typeof v) {
    case 'number':
      return 3;
    case 'string':
      return 4;
    case 'object':
      return Array.isArray(v) ? 5 : 6;
    default:
      return fallback(`not a JSON value: ${typeof v}`);
  }
}

/** Strings order by code point (jq compares UTF-8 bytes); JS `<` orders UTF-16 units. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (astral code points) sort above U+E000..U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function sortedKeys(o: Record<string, unknown>): string[] {
  const keys = Object.keys(o);
  charge(1 + keys.length * Math.ceil(Math.log2(keys.length + 1)));
  return keys.sort(compareStrings);
}

/** jq's total order (jv_cmp). */
export function compare(a: unknown, b: unknown): number {
  if (--meter.left < 0) overBudget();
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3: {
      const x = a as number;
      const y = b as number;
      return x < y ? -1 : x === y ? 0 : 1;
    }
    case 4:
      return compareStrings(a as string, b as string);
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 6: {
      // Objects: first by their sorted key lists, then value by value in key order.
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = sortedKeys(x);
      const ky = sortedKeys(y);
      const c = compare(kx, ky);
      if (c !== 0) return c;
      for (const k of kx) {
        const cv = compare(x[k], y[k]);
        if (cv !== 0) return cv;
      }
      return 0;
    }
    default:
      return 0; // null, false, true: one value per rank
  }
}

export function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return compare(a, b) === 0;
}

/**
 * jq 1.8 prints a number it parsed (input, literal) in its decimal form and a
 * computed one with 17 significant digits; both agree with JavaScript only in
 * this range. Outside it (1e-5, 1E+17, -0, ...) jq-wasm answers.
 */
export function formatNumber(x: number): string {
  if (x === 0) {
    if (Object.is(x, -0)) return fallback('-0 formatting');
    return '0';
  }
  const a = Math.abs(x);
  if (a < 1e15 && (Number.isInteger(x) || a >= 1e-4)) {
    const s = String(x);
    if (!s.includes('e')) return s;
  }
  return fallback(`number ${x} formats differently by origin`);
}

/** Control characters and DEL are escaped by jq; everything else stays as is. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f]|[\ud800-\udfff]/;

function dumpString(s: string): string {
  charge(1 + (s.length >> 4));
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
      return fallback('lone surrogate'); // jq would have replaced it with U+FFFD
    }
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** jq's compact `tojson`. */
export function toJson(v: unknown): string {
  if (--meter.left < 0) overBudget();
  switch (kindOf(v)) {
    case 'null':
      return 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v as number);
    case 'string':
      return dumpString(v as string);
    case 'array':
      return `[${(v as unknown[]).map(toJson).join(',')}]`;
    default: {
      const o = v as Record<string, unknown>;
      return `{${Object.keys(o)
        .map((k) => `${dumpString(k)}:${toJson(o[k])}`)
        .join(',')}}`;
    }
  }
}

export function toStringValue(v: unknown): string {
  return typeof v === 'string' ? v : toJson(v);
}

/** Code points, as jq counts string length. */
export function codepointLength(s: string): number {
  charge(1 + (s.length >> 4));
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

/** Integer-like keys that JS objects would move to the front, breaking jq's insertion order. */
export function isIndexLikeKey(k: string): boolean {
  return /^(?:0|[1-9][0-9]{0,9})$/.test(k);
}
