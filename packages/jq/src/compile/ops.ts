import { setOwn } from '@hookyard/core';
import { charge, compare, equals, fail, fallback, isIndexLikeKey, kindOf } from './values';

/**
 * jq's indexing and arithmetic over JSON values. Errors are `JqRuntimeError`
 * (their text is a hint; jq-wasm supplies the real message); results whose jq
 * form we cannot be sure of are `Fallback`.
 */

/** `.[key]` (jq_get in jv_aux.c) for the key kinds the compiled path supports. */
export function index(v: unknown, key: unknown): unknown {
  if (typeof key === 'string') {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : null;
    }
    if (v === null) return null;
    return fail(`Cannot index ${kindOf(v)} with string`);
  }
  if (typeof key === 'number') {
    if (Array.isArray(v)) {
      if (!Number.isInteger(key)) return fallback('fractional array index');
      const i = key < 0 ? v.length + key : key;
      return i >= 0 && i < v.length ? v[i] : null;
    }
    if (v === null) return null;
    return fail(`Cannot index ${kindOf(v)} with number`);
  }
  if (key === null && v !== null && typeof v === 'object' && !Array.isArray(v)) return fail('Cannot index object with null');
  // Slices by object, indices of arrays, null keys on null...: jq-wasm answers.
  return fallback(`index with ${kindOf(key)}`);
}

/** The values `.[]` yields, in jq's order. */
export function iterValues(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === 'object') {
    const values = Object.values(v as Record<string, unknown>);
    charge(values.length);
    return values;
  }
  return fail(`Cannot iterate over ${kindOf(v)}`);
}

function checked(x: number): number {
  // jq prints infinities as ±DBL_MAX and NaN as null; rare enough to leave to jq-wasm.
  if (!Number.isFinite(x)) return fallback('non-finite arithmetic result');
  return x;
}

/** Shallow object merge keeping jq's key order (insertion order; no JS index-key reordering). */
export function mergeObjects(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  charge(1 + Object.keys(a).length + Object.keys(b).length);
  for (const k of Object.keys(a)) {
    if (isIndexLikeKey(k)) return fallback('index-like object key');
    setOwn(out, k, a[k]);
  }
  for (const k of Object.keys(b)) {
    if (isIndexLikeKey(k)) return fallback('index-like object key');
    setOwn(out, k, b[k]);
  }
  return out;
}

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return checked(a + b);
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'string' && typeof b === 'string') {
    charge(1 + ((a.length + b.length) >> 4));
    return a + b;
  }
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'array' && kb === 'array') {
    charge(1 + (a as unknown[]).length + (b as unknown[]).length);
    return (a as unknown[]).concat(b as unknown[]);
  }
  if (ka === 'object' && kb === 'object') return mergeObjects(a as Record<string, unknown>, b as Record<string, unknown>);
  return fail(`${ka} and ${kb} cannot be added`);
}

export function subtract(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return checked(a - b);
  if (Array.isArray(a) && Array.isArray(b)) {
    charge(1 + a.length * b.length);
    return a.filter((x) => !b.some((y) => equals(x, y)));
  }
  return fail(`${kindOf(a)} and ${kindOf(b)} cannot be subtracted`);
}

export function multiply(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return checked(a * b);
  const ka = kindOf(a);
  const kb = kindOf(b);
  // String repetition and deep object merge have their own jq rules: jq-wasm answers.
  if ((ka === 'string' && kb === 'number') || (ka === 'number' && kb === 'string') || (ka === 'object' && kb === 'object')) {
    return fallback(`${ka} * ${kb}`);
  }
  return fail(`${ka} and ${kb} cannot be multiplied`);
}

export function divide(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === 0) return fail('cannot be divided because the divisor is zero');
    return checked(a / b);
  }
  if (typeof a === 'string' && typeof b === 'string') return fallback('string / string');
  return fail(`${kindOf(a)} and ${kindOf(b)} cannot be divided`);
}

export function modulo(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    // jq casts both to intmax_t; beyond exact doubles that cast is jq's business.
    if (Math.abs(a) >= 2 ** 53 || Math.abs(b) >= 2 ** 53 || Number.isNaN(a) || Number.isNaN(b)) return fallback('modulo range');
    const x = Math.trunc(a);
    const y = Math.trunc(b);
    if (y === 0) return fail('cannot be divided (remainder) because the divisor is zero');
    return (x % Math.abs(y)) + 0; // C's sign rule; `+ 0` turns -0 into 0 as integer math would
  }
  return fail(`${kindOf(a)} and ${kindOf(b)} cannot be divided (remainder)`);
}

export function negate(a: unknown): unknown {
  if (typeof a === 'number') {
    if (a === 0) return fallback('negated zero'); // jq 1.8 keeps literal zeros unsigned
    return -a;
  }
  return fail(`${kindOf(a)} cannot be negated`);
}

export const BINOPS: Record<string, (a: unknown, b: unknown) => unknown> = {
  '+': add,
  '-': subtract,
  '*': multiply,
  '/': divide,
  '%': modulo,
  '==': (a, b) => equals(a, b),
  '!=': (a, b) => !equals(a, b),
  '<': (a, b) => compare(a, b) < 0,
  '<=': (a, b) => compare(a, b) <= 0,
  '>': (a, b) => compare(a, b) > 0,
  '>=': (a, b) => compare(a, b) >= 0,
};
