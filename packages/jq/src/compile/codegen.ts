import { setOwn } from '@hookyard/core';
import { Unsupported } from './ast';
import type { Node } from './ast';
import { VALUE_BUILTINS } from './builtins';
import { BINOPS, index, iterValues, negate } from './ops';
import { Fallback, JqRuntimeError, charge, fail, fallback, isIndexLikeKey, meter, overBudget, toStringValue, truthy } from './values';

/**
 * Turns a jq tree into JavaScript closures. Every node compiles to a generator
 * `gen(input, env, emit)` that calls `emit` once per output, in jq's order
 * (for binary operators the right side is the outer loop, as in jq); nodes
 * that always produce exactly one output also get `val(input, env)`, which the
 * hot path uses to skip callbacks altogether. Variables live in `env` slots.
 */

export type Env = unknown[];
export type Emit = (v: unknown) => void;
export type Gen = (input: unknown, env: Env, emit: Emit) => void;
export type Val = (input: unknown, env: Env) => unknown;
export interface Compiled {
  gen: Gen;
  val?: Val;
}

/** Stops a generator early (first(f), any, all, isempty); never escapes the construct that threw it. */
class Stop {}

function fromVal(val: Val): Compiled {
  return { val, gen: (i, e, emit) => emit(val(i, e)) };
}

/** Runs `gen` and reports whether it produced anything, stopping at the first output. */
function produces(gen: Gen, input: unknown, env: Env, accept: (v: unknown) => boolean): boolean {
  const stop = new Stop();
  try {
    gen(input, env, (v) => {
      // A bare sentinel, not an Error: no stack is captured on this hot path, and only the catch below sees it.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (accept(v)) throw stop;
    });
  } catch (err) {
    if (err === stop) return true;
    throw err;
  }
  return false;
}

function valueCall(name: string, args: Compiled[]): Compiled {
  const fn = VALUE_BUILTINS[`${name}/${args.length}`];
  if (!fn) throw new Unsupported(`${name}/${args.length}`);
  // jq evaluates value arguments as a cartesian product in its own order; keep to single-output ones.
  const vals = args.map(
    (a) =>
      a.val ??
      (() => {
        throw new Unsupported(`generator argument to ${name}`);
      })(),
  );
  switch (vals.length) {
    case 0:
      return fromVal((i) => fn(i));
    case 1: {
      const a = vals[0]!;
      return fromVal((i, e) => fn(i, a(i, e)));
    }
    default:
      return fromVal((i, e) => fn(i, ...vals.map((a) => a(i, e))));
  }
}

const iterateGen: Gen = (i, _e, emit) => {
  for (const v of iterValues(i)) {
    if (--meter.left < 0) overBudget();
    emit(v);
  }
};

function anyAll(isAny: boolean, source: Gen, cond: Compiled): Compiled {
  // def any(g; c): isempty(first(g | c or empty)) | not;  def all(g; c): isempty(first(g | c and empty));
  const condVal = cond.val;
  if (source === iterateGen && condVal) {
    // The common shape, `any(.name == "x")`: a plain loop, no callbacks.
    return fromVal((i, e) => {
      for (const x of iterValues(i)) {
        if (--meter.left < 0) overBudget();
        if (truthy(condVal(x, e)) === isAny) return isAny;
      }
      return !isAny;
    });
  }
  return fromVal((i, e) => {
    const hit = produces(source, i, e, (x) => {
      if (condVal) return truthy(condVal(x, e)) === isAny;
      return produces(cond.gen, x, e, (c) => truthy(c) === isAny);
    });
    return isAny ? hit : !hit;
  });
}

function filterCall(name: string, args: Node[]): Compiled | null {
  const key = `${name}/${args.length}`;
  const c = () => args.map(compileNode);
  switch (key) {
    case 'empty/0':
      return { gen: () => undefined };
    case 'select/1': {
      const [f] = c() as [Compiled];
      const fv = f.val;
      if (fv) return { gen: (i, e, emit) => (truthy(fv(i, e)) ? emit(i) : undefined) };
      return { gen: (i, e, emit) => f.gen(i, e, (v) => (truthy(v) ? emit(i) : undefined)) };
    }
    case 'map/1': {
      const [f] = c() as [Compiled];
      const fv = f.val;
      if (fv) {
        return fromVal((i, e) => {
          const xs = iterValues(i);
          charge(1 + xs.length);
          return xs.map((x) => fv(x, e));
        });
      }
      return fromVal((i, e) => {
        const out: unknown[] = [];
        for (const x of iterValues(i)) f.gen(x, e, (v) => out.push(v));
        return out;
      });
    }
    case 'any/1':
    case 'all/1':
      return anyAll(name === 'any', iterateGen, c()[0]!);
    case 'any/2':
    case 'all/2': {
      const [g, f] = c() as [Compiled, Compiled];
      return anyAll(name === 'any', g.gen, f);
    }
    case 'isempty/1': {
      const [g] = c() as [Compiled];
      return fromVal((i, e) => !produces(g.gen, i, e, () => true));
    }
    case 'first/1': {
      const [g] = c() as [Compiled];
      return {
        gen: (i, e, emit) => {
          let first: unknown;
          if (produces(g.gen, i, e, (v) => ((first = v), true))) emit(first);
        },
      };
    }
    case 'last/1': {
      const [g] = c() as [Compiled];
      return fromVal((i, e) => {
        let last: unknown = null;
        g.gen(i, e, (v) => (last = v));
        return last;
      });
    }
    default:
      return null;
  }
}

function compileObject(entries: { key: Compiled; value: Compiled }[]): Compiled {
  const checkKey = (k: unknown): string => {
    if (typeof k !== 'string') return fail('Object keys must be strings');
    if (isIndexLikeKey(k)) return fallback('index-like object key'); // JS would reorder it
    return k;
  };
  if (entries.every((en) => en.key.val && en.value.val)) {
    const pairs = entries.map((en) => [en.key.val!, en.value.val!] as const);
    return fromVal((i, e) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of pairs) setOwn(o, checkKey(k(i, e)), v(i, e));
      return o;
    });
  }
  // Entry by entry, key outer and value inner, as jq builds them.
  return {
    gen: (i, e, emit) => {
      const keys: string[] = [];
      const values: unknown[] = [];
      const step = (n: number): void => {
        if (n === entries.length) {
          const o: Record<string, unknown> = {};
          for (let j = 0; j < n; j++) setOwn(o, keys[j]!, values[j]);
          emit(o);
          return;
        }
        const en = entries[n]!;
        en.key.gen(i, e, (k) => {
          keys[n] = checkKey(k);
          en.value.gen(i, e, (v) => {
            values[n] = v;
            step(n + 1);
          });
        });
      };
      step(0);
    },
  };
}

function compileInterp(parts: (string | Node)[]): Compiled {
  const cs = parts.map((p) => (typeof p === 'string' ? p : compileNode(p)));
  if (cs.every((p) => typeof p === 'string' || p.val)) {
    const vs = cs.map((p) => (typeof p === 'string' ? p : p.val!));
    return fromVal((i, e) => {
      let s = '';
      for (const p of vs) s += typeof p === 'string' ? p : toStringValue(p(i, e));
      return s;
    });
  }
  // The last interpolation is the outer loop ("\(1,2)-\(3,4)" gives 1-3, 2-3, 1-4, 2-4).
  return {
    gen: (i, e, emit) => {
      const go = (k: number, tail: string): void => {
        if (k < 0) return emit(tail);
        const p = cs[k]!;
        if (typeof p === 'string') return go(k - 1, p + tail);
        p.gen(i, e, (v) => go(k - 1, toStringValue(v) + tail));
      };
      go(cs.length - 1, '');
    },
  };
}

/**
 * Every node's generator spends a step per call, so cartesian products and
 * nested generators are bounded as well as loops over data (see STEP_BUDGET).
 * Single-output `val` paths without a loop are bounded by the expression's size.
 */
export function compileNode(node: Node): Compiled {
  const c = compileNodeRaw(node);
  const gen = c.gen;
  return {
    val: c.val,
    gen: (i, e, emit) => {
      if (--meter.left < 0) overBudget();
      gen(i, e, emit);
    },
  };
}

function compileNodeRaw(node: Node): Compiled {
  switch (node.t) {
    case 'identity':
      return fromVal((i) => i);
    case 'literal': {
      const value = node.value;
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Unsupported('non-finite literal');
      return fromVal(() => value);
    }
    case 'emptyArray':
      return fromVal(() => []);
    case 'interp':
      return compileInterp(node.parts);
    case 'var': {
      const slot = node.slot;
      return fromVal((_i, e) => e[slot]);
    }
    case 'index': {
      const t = compileNode(node.target);
      const k = compileNode(node.key);
      const opt = node.opt;
      const tv = t.val;
      const kv = k.val;
      if (tv && kv && !opt) return fromVal((i, e) => index(tv(i, e), kv(i, e)));
      const at = (v: unknown, key: unknown, emit: Emit): void => {
        if (!opt) return emit(index(v, key));
        let out: unknown;
        try {
          out = index(v, key);
        } catch (err) {
          if (err instanceof JqRuntimeError) return;
          throw err;
        }
        emit(out);
      };
      return { gen: (i, e, emit) => k.gen(i, e, (key) => t.gen(i, e, (v) => at(v, key, emit))) };
    }
    case 'iterate': {
      const t = compileNode(node.target);
      const opt = node.opt;
      return {
        gen: (i, e, emit) =>
          t.gen(i, e, (v) => {
            if (opt && (v === null || typeof v !== 'object')) return;
            for (const x of iterValues(v)) {
              if (--meter.left < 0) overBudget();
              emit(x);
            }
          }),
      };
    }
    case 'try': {
      const body = compileNode(node.body);
      return {
        gen: (i, e, emit) => {
          // Errors raised downstream of `try` (inside emit) are not its to catch.
          let downstream: unknown = undefined;
          try {
            body.gen(i, e, (v) => {
              try {
                emit(v);
              } catch (err) {
                downstream = err;
                throw err;
              }
            });
          } catch (err) {
            if (err === downstream || !(err instanceof JqRuntimeError)) throw err;
          }
        },
      };
    }
    case 'pipe': {
      const l = compileNode(node.left);
      const r = compileNode(node.right);
      const lv = l.val;
      const rv = r.val;
      if (lv && rv) return fromVal((i, e) => rv(lv(i, e), e));
      if (lv) return { gen: (i, e, emit) => r.gen(lv(i, e), e, emit) };
      return { gen: (i, e, emit) => l.gen(i, e, (v) => r.gen(v, e, emit)) };
    }
    case 'comma': {
      const l = compileNode(node.left);
      const r = compileNode(node.right);
      return {
        gen: (i, e, emit) => {
          l.gen(i, e, emit);
          r.gen(i, e, emit);
        },
      };
    }
    case 'binop': {
      const f = BINOPS[node.op]!;
      const l = compileNode(node.left);
      const r = compileNode(node.right);
      const lv = l.val;
      const rv = r.val;
      if (lv && rv) {
        return fromVal((i, e) => {
          const b = rv(i, e);
          return f(lv(i, e), b);
        });
      }
      return { gen: (i, e, emit) => r.gen(i, e, (b) => l.gen(i, e, (a) => emit(f(a, b)))) };
    }
    case 'and':
    case 'or': {
      const isAnd = node.t === 'and';
      const l = compileNode(node.left);
      const r = compileNode(node.right);
      const lv = l.val;
      const rv = r.val;
      if (lv && rv) {
        return isAnd ? fromVal((i, e) => truthy(lv(i, e)) && truthy(rv(i, e))) : fromVal((i, e) => truthy(lv(i, e)) || truthy(rv(i, e)));
      }
      return {
        gen: (i, e, emit) =>
          l.gen(i, e, (a) => {
            if (truthy(a) !== isAnd) return emit(!isAnd);
            r.gen(i, e, (b) => emit(truthy(b)));
          }),
      };
    }
    case 'alt': {
      const l = compileNode(node.left);
      const r = compileNode(node.right);
      const lv = l.val;
      const rv = r.val;
      if (lv && rv) {
        return fromVal((i, e) => {
          const a = lv(i, e);
          return truthy(a) ? a : rv(i, e);
        });
      }
      return {
        gen: (i, e, emit) => {
          let found = false;
          l.gen(i, e, (v) => {
            if (truthy(v)) {
              found = true;
              emit(v);
            }
          });
          if (!found) r.gen(i, e, emit);
        },
      };
    }
    case 'neg': {
      const b = compileNode(node.body);
      const bv = b.val;
      if (bv) return fromVal((i, e) => negate(bv(i, e)));
      return { gen: (i, e, emit) => b.gen(i, e, (v) => emit(negate(v))) };
    }
    case 'if': {
      const c = compileNode(node.cond);
      const th = compileNode(node.then);
      const el = compileNode(node.else);
      if (c.val && th.val && el.val) {
        const [cv, tv, ev] = [c.val, th.val, el.val];
        return fromVal((i, e) => (truthy(cv(i, e)) ? tv(i, e) : ev(i, e)));
      }
      return { gen: (i, e, emit) => c.gen(i, e, (x) => (truthy(x) ? th.gen(i, e, emit) : el.gen(i, e, emit))) };
    }
    case 'collect': {
      const b = compileNode(node.body);
      const bv = b.val;
      if (bv) return fromVal((i, e) => [bv(i, e)]);
      return fromVal((i, e) => {
        const out: unknown[] = [];
        b.gen(i, e, (v) => out.push(v));
        return out;
      });
    }
    case 'object':
      return compileObject(node.entries.map((en) => ({ key: compileNode(en.key), value: compileNode(en.value) })));
    case 'bind': {
      const s = compileNode(node.source);
      const b = compileNode(node.body);
      const slot = node.slot;
      const sv = s.val;
      const bv = b.val;
      if (sv && bv) {
        return fromVal((i, e) => {
          e[slot] = sv(i, e);
          return bv(i, e);
        });
      }
      return {
        gen: (i, e, emit) =>
          s.gen(i, e, (v) => {
            e[slot] = v;
            b.gen(i, e, emit);
          }),
      };
    }
    case 'assign':
      throw new Unsupported('assignment');
    case 'call':
      // A regex in-process must be one the expression's author wrote: a pattern (or flags) computed
      // from the payload or a variable (`test($re)`, `test(.pattern)`) goes to jq-wasm, whole.
      if (node.name === 'test' && !node.args.every((a) => a.t === 'literal' && (typeof a.value === 'string' || a.value === null))) {
        throw new Unsupported('test with a pattern that is not a literal');
      }
      return filterCall(node.name, node.args) ?? valueCall(node.name, node.args.map(compileNode));
  }
}

export function isSignal(err: unknown): boolean {
  return err instanceof JqRuntimeError || err instanceof Fallback;
}
