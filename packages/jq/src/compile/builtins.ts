import { add } from './ops';
import { testRegex } from './regex';
import { charge, codepointLength, meter, overBudget, compare, equals, fail, fallback, kindOf, sortedKeys, toJson, toStringValue, truthy } from './values';

/**
 * jq 1.8 builtins whose arguments are plain values: `(input) => output` for
 * arity 0, `(input, arg...) => output` for the rest (arguments are evaluated
 * against the same input by the caller). Filter-taking builtins (`map`,
 * `select`, `any(f)`, ...) live in `codegen.ts`.
 */

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
// Array.isArray narrows to any[]; a jq array holds unknown values.
const isList = (v: unknown): v is unknown[] => Array.isArray(v);

function length(v: unknown): unknown {
  if (v === null) return 0;
  switch (typeof v) {
    case 'string':
      return codepointLength(v);
    case 'number':
      return Math.abs(v);
    case 'boolean':
      return fail(`boolean (${v}) has no length`);
    default:
      if (Array.isArray(v)) return v.length;
      {
        const n = Object.keys(v as Obj).length;
        charge(1 + n);
        return n;
      }
  }
}

function keysUnsorted(v: unknown): unknown[] {
  if (isObject(v)) {
    const keys = Object.keys(v);
    charge(1 + keys.length);
    return keys;
  }
  if (Array.isArray(v)) {
    charge(1 + v.length);
    return v.map((_, i) => i);
  }
  return fail(`${kindOf(v)} has no keys`);
}

function keys(v: unknown): unknown[] {
  return isObject(v) ? sortedKeys(v) : keysUnsorted(v);
}

/** The values of an array or object, their count charged (every caller loops over all of them, or may). */
function iterate(v: unknown): unknown[] {
  if (Array.isArray(v)) {
    charge(1 + v.length);
    return v;
  }
  if (isObject(v)) {
    const values = Object.values(v);
    charge(1 + values.length);
    return values;
  }
  return fail(`Cannot iterate over ${kindOf(v)}`);
}

const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

function tonumber(v: unknown): unknown {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return fail(`${kindOf(v)} cannot be parsed as a number`);
  // jq 1.8 keeps the text of a parsed number ("1.0", "1e3"): only canonical forms stay here.
  if (NUMBER_TEXT.test(v) && String(Number(v)) === v) return Number(v);
  return fallback('tonumber of non-canonical text');
}

function asciiCase(v: unknown, upper: boolean): unknown {
  if (typeof v !== 'string') return fail('explode input must be a string');
  charge(1 + (v.length >> 4));
  return upper ? v.replace(/[a-z]+/g, (m) => m.toUpperCase()) : v.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function minMax(v: unknown, isMin: boolean): unknown {
  if (!isList(v)) return fail(`Cannot find ${isMin ? 'min' : 'max'} of ${kindOf(v)}`);
  if (v.length === 0) return null;
  charge(v.length);
  let best = v[0];
  for (let i = 1; i < v.length; i++) {
    const c = compare(v[i], best);
    // jq keeps the first of equal minima and the last of equal maxima.
    if (isMin ? c < 0 : c >= 0) best = v[i];
  }
  return best;
}

function toEntries(v: unknown): unknown {
  charge(1 + (isObject(v) ? Object.keys(v).length : Array.isArray(v) ? v.length : 0));
  if (isObject(v)) return Object.keys(v).map((key) => ({ key, value: v[key] }));
  if (isList(v)) return v.map((value, key) => ({ key, value }));
  return fail(`${kindOf(v)} has no keys`);
}

function has(v: unknown, k: unknown): unknown {
  if (isObject(v) && typeof k === 'string') return Object.prototype.hasOwnProperty.call(v, k);
  if (v === null && (typeof k === 'string' || typeof k === 'number')) return false;
  if (Array.isArray(v) && typeof k === 'number') {
    if (!Number.isInteger(k)) return fallback('has with a fractional index');
    return k >= 0 && k < v.length;
  }
  return fail(`Cannot check whether ${kindOf(v)} has a ${kindOf(k)} key`);
}

/** jv_contains: kinds must match exactly (true and false are different kinds). */
function containsValue(a: unknown, b: unknown): boolean {
  if (--meter.left < 0) overBudget();
  const ka = a === true ? 'true' : a === false ? 'false' : kindOf(a);
  const kb = b === true ? 'true' : b === false ? 'false' : kindOf(b);
  if (ka !== kb) return false;
  if (ka === 'object') {
    const ao = a as Obj;
    const bo = b as Obj;
    return Object.keys(bo).every((k) => Object.prototype.hasOwnProperty.call(ao, k) && containsValue(ao[k], bo[k]));
  }
  if (ka === 'array') return (b as unknown[]).every((x) => (a as unknown[]).some((y) => containsValue(y, x)));
  if (ka === 'string') {
    charge(1 + ((a as string).length >> 4));
    return (a as string).includes(b as string);
  }
  return equals(a, b);
}

function contains(a: unknown, b: unknown): unknown {
  const ka = a === true ? 'true' : a === false ? 'false' : kindOf(a);
  const kb = b === true ? 'true' : b === false ? 'false' : kindOf(b);
  if (ka !== kb) return fail(`${kindOf(a)} and ${kindOf(b)} cannot have their containment checked`);
  return containsValue(a, b);
}

function bothStrings(a: unknown, b: unknown, what: string): asserts a is string {
  if (typeof a !== 'string' || typeof b !== 'string') fail(`${what}() requires string inputs`);
  charge(1 + (b.length >> 4));
}

function split(v: unknown, sep: unknown): unknown {
  if (typeof v !== 'string' || typeof sep !== 'string') return fail('split input and separator must be strings');
  charge(1 + (v.length >> 2));
  if (v === '') return [];
  // eslint-disable-next-line no-control-regex -- the ASCII range, NUL included, is the point
  if (sep === '') return /^[\x00-\x7f]*$/.test(v) ? v.split('') : fallback('split by "" of non-ASCII');
  return v.split(sep);
}

function join(v: unknown, sep: unknown): unknown {
  // def join($x): reduce .[] as $i (null; (if .==null then "" else .+$x end) + ($i | if .==null then "" elif type=="string" then . else tojson end)) // "";
  // with 1.8's rule that only booleans and numbers are turned to JSON (arrays and objects fail the +).
  let acc: unknown = null;
  for (const item of iterate(v)) {
    const left = acc === null ? '' : add(acc, sep);
    const right = item === null ? '' : typeof item === 'boolean' || typeof item === 'number' ? toJson(item) : item;
    acc = add(left, right);
  }
  return truthy(acc) ? acc : '';
}

function addAll(v: unknown): unknown {
  let acc: unknown = null;
  for (const item of iterate(v)) acc = add(acc, item);
  return acc;
}

function sort(v: unknown): unknown {
  if (!isList(v)) return fail(`${kindOf(v)} cannot be sorted, as it is not an array`);
  charge(1 + v.length); // and compare charges each comparison
  return [...v].sort(compare);
}

function test(v: unknown, re: unknown, flags: unknown): unknown {
  if (typeof v !== 'string') return fail(`${kindOf(v)} cannot be matched, as it is not a string`);
  if (Array.isArray(re)) return fallback('test with an array');
  if (typeof re !== 'string') return fail(`${kindOf(re)} cannot be matched, as it is not a string`);
  if (flags !== null && typeof flags !== 'string') return fail(`${kindOf(flags)} is not a string`);
  return testRegex(v, re, flags);
}

export const VALUE_BUILTINS: Record<string, (input: unknown, ...args: unknown[]) => unknown> = {
  'not/0': (v) => !truthy(v),
  'length/0': length,
  'keys/0': keys,
  'keys_unsorted/0': keysUnsorted,
  'type/0': (v) => kindOf(v),
  'tostring/0': toStringValue,
  'tojson/0': toJson,
  'tonumber/0': tonumber,
  'ascii_downcase/0': (v) => asciiCase(v, false),
  'ascii_upcase/0': (v) => asciiCase(v, true),
  'first/0': (v) => (v === null ? null : isList(v) ? (v.length > 0 ? v[0] : null) : fail(`Cannot index ${kindOf(v)} with number`)),
  'last/0': (v) => (v === null ? null : isList(v) ? (v.length > 0 ? v[v.length - 1] : null) : fail(`Cannot index ${kindOf(v)} with number`)),
  'add/0': addAll,
  'min/0': (v) => minMax(v, true),
  'max/0': (v) => minMax(v, false),
  'to_entries/0': toEntries,
  'sort/0': sort,
  'any/0': (v) => iterate(v).some(truthy),
  'all/0': (v) => iterate(v).every(truthy),
  'has/1': has,
  'in/1': (v, xs) => has(xs, v),
  'contains/1': contains,
  'inside/1': (v, xs) => contains(xs, v),
  'startswith/1': (v, s) => {
    bothStrings(v, s, 'startswith');
    return v.startsWith(s as string);
  },
  'endswith/1': (v, s) => {
    bothStrings(v, s, 'endswith');
    return v.endsWith(s as string);
  },
  'ltrimstr/1': (v, s) => {
    bothStrings(v, s, 'startswith');
    return v.startsWith(s as string) ? v.slice((s as string).length) : v;
  },
  'rtrimstr/1': (v, s) => {
    bothStrings(v, s, 'endswith');
    return v.endsWith(s as string) && (s as string).length > 0 ? v.slice(0, v.length - (s as string).length) : v;
  },
  'split/1': split,
  'join/1': join,
  'test/1': (v, re) => test(v, re, null),
  'test/2': test,
  'error/1': (_v, msg) => fail(`error: ${typeof msg === 'string' ? msg : JSON.stringify(msg)}`),
  'error/0': (v) => fail(`error: ${JSON.stringify(v)}`),
};
