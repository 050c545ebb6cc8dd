import { Unsupported } from './ast';
import type { AssignOp, BinOp, Node } from './ast';

/**
 * A recursive-descent parser for the jq subset in `ast.ts`, following jq 1.8's
 * grammar and precedence (`|` < `,` < `//` < `or` < `and` < comparisons <
 * `+ -` < `* / %` < postfix). Its job is to understand the subset exactly and
 * to throw `Unsupported` for everything else, syntax errors included (jq-wasm
 * reports those, in jq's words). The engine checks an expression it takes
 * without jq-wasm, so it takes nothing jq refuses to compile
 * (test/jq-accepts.test.ts).
 */

type Tok =
  | { k: 'num'; text: string }
  | { k: 'field'; name: string }
  | { k: 'var'; name: string }
  | { k: 'ident'; name: string }
  | { k: 'p'; v: string }
  | { k: 'str' }
  | { k: 'eof' };

const KEYWORDS = new Set([
  'if',
  'then',
  'elif',
  'else',
  'end',
  'as',
  'def',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  'and',
  'or',
  '__loc__',
]);
const PUNCT = [
  '?//',
  '|=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '//=',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '..',
  '.',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '|',
  ',',
  ':',
  ';',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
];
const CMP = new Set(['==', '!=', '<', '<=', '>', '>=']);
const ASSIGN = new Set(['=', '|=', '+=', '-=', '*=', '/=', '%=', '//=']);
const IDENT_START = /[a-zA-Z_]/;
const IDENT_REST = /[a-zA-Z_0-9]/;
const NUMBER = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;

/** Whether a tree reads the input, a variable or a function: false for constants jq may fold. */
function readsAnything(n: Node): boolean {
  switch (n.t) {
    case 'identity':
    case 'index':
    case 'iterate':
    case 'var':
    case 'call':
    case 'bind':
      return true;
    case 'literal':
    case 'emptyArray':
      return false;
    case 'interp':
      return n.parts.some((p) => typeof p !== 'string' && readsAnything(p));
    case 'try':
    case 'neg':
    case 'collect':
      return readsAnything(n.body);
    case 'if':
      return readsAnything(n.cond) || readsAnything(n.then) || readsAnything(n.else);
    case 'object':
      return n.entries.some((e) => readsAnything(e.key) || readsAnything(e.value));
    default:
      return readsAnything(n.left) || readsAnything(n.right);
  }
}

function unsupported(what: string): never {
  throw new Unsupported(what);
}

class Parser {
  private pos = 0;
  private tok: Tok | null = null;
  private scope: { name: string; slot: number }[];
  slots: number;

  constructor(
    private readonly src: string,
    globals: readonly string[],
  ) {
    this.scope = globals.map((name, slot) => ({ name, slot }));
    this.slots = globals.length;
  }

  parseProgram(): Node {
    const node = this.parsePipe();
    if (this.peek().k !== 'eof') unsupported('trailing input');
    return node;
  }

  // ---- tokens ----

  private skipSpace(): void {
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else if (c === '#') unsupported('comments');
      else break;
    }
  }

  private peek(): Tok {
    if (this.tok) return this.tok;
    this.skipSpace();
    const s = this.src;
    const start = this.pos;
    if (start >= s.length) return (this.tok = { k: 'eof' });
    const c = s[start]!;
    if (c === '"') return (this.tok = { k: 'str' });
    NUMBER.lastIndex = start;
    const num = /[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[start + 1] ?? '')) ? NUMBER.exec(s) : null;
    if (num) {
      this.pos = start + num[0].length;
      return (this.tok = { k: 'num', text: num[0] });
    }
    if ((c === '.' || c === '$') && IDENT_START.test(s[start + 1] ?? '')) {
      let end = start + 2;
      while (end < s.length && IDENT_REST.test(s[end]!)) end++;
      if (s.startsWith('::', end)) unsupported('modules');
      this.pos = end;
      const name = s.slice(start + 1, end);
      return (this.tok = c === '.' ? { k: 'field', name } : { k: 'var', name });
    }
    if (IDENT_START.test(c)) {
      let end = start + 1;
      while (end < s.length && IDENT_REST.test(s[end]!)) end++;
      if (s.startsWith('::', end)) unsupported('modules');
      this.pos = end;
      return (this.tok = { k: 'ident', name: s.slice(start, end) });
    }
    for (const p of PUNCT) {
      if (s.startsWith(p, start)) {
        this.pos = start + p.length;
        return (this.tok = { k: 'p', v: p });
      }
    }
    return unsupported(`character ${JSON.stringify(c)}`);
  }

  private next(): Tok {
    const t = this.peek();
    this.tok = null;
    return t;
  }

  private isP(v: string): boolean {
    const t = this.peek();
    return t.k === 'p' && t.v === v;
  }

  private isKw(name: string): boolean {
    const t = this.peek();
    return t.k === 'ident' && t.name === name;
  }

  private expectP(v: string): void {
    if (!this.isP(v)) unsupported(`expected ${v}`);
    this.next();
  }

  private expectKw(name: string): void {
    if (!this.isKw(name)) unsupported(`expected ${name}`);
    this.next();
  }

  // ---- expressions, lowest precedence first ----

  parsePipe(): Node {
    const saved = { pos: this.pos, tok: this.tok };
    if (this.isKw('def')) unsupported('def');
    // `Term as $x | body` binds over the rest of the pipe.
    if (!this.isP('-')) {
      const term = this.parsePostfix();
      if (this.isKw('as')) {
        this.next();
        const v = this.next();
        if (v.k !== 'var') return unsupported('destructuring');
        this.expectP('|');
        const slot = this.slots++;
        this.scope.push({ name: v.name, slot });
        const body = this.parsePipe();
        this.scope.pop();
        return { t: 'bind', source: term, slot, body };
      }
      this.pos = saved.pos;
      this.tok = saved.tok;
    }
    const left = this.parseComma();
    if (this.isP('|')) {
      this.next();
      return { t: 'pipe', left, right: this.parsePipe() };
    }
    return left;
  }

  private parseComma(): Node {
    let left = this.parseAlt();
    while (this.isP(',')) {
      this.next();
      left = { t: 'comma', left, right: this.parseAlt() };
    }
    return left;
  }

  /** jq's `//` (right-associative) over its assignments (non-associative, binding tighter than `//`). */
  private parseAlt(): Node {
    const left = this.parseAssign();
    if (this.isP('//')) {
      this.next();
      return { t: 'alt', left, right: this.parseAlt() };
    }
    if (this.isP('?//')) unsupported('destructuring alternative');
    return left;
  }

  private parseAssign(): Node {
    const left = this.parseOr();
    const t = this.peek();
    if (t.k !== 'p' || !ASSIGN.has(t.v)) return left;
    const at = this.pos - t.v.length;
    this.next();
    return { t: 'assign', op: t.v as AssignOp, at, left, right: this.parseOr() };
  }

  private parseOr(): Node {
    let left = this.parseAnd();
    while (this.isKw('or')) {
      this.next();
      left = { t: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): Node {
    let left = this.parseCmp();
    while (this.isKw('and')) {
      this.next();
      left = { t: 'and', left, right: this.parseCmp() };
    }
    return left;
  }

  private parseCmp(): Node {
    const left = this.parseAdd();
    const t = this.peek();
    if (t.k === 'p' && CMP.has(t.v)) {
      this.next();
      return { t: 'binop', op: t.v as BinOp, left, right: this.parseAdd() };
    }
    return left;
  }

  private parseAdd(): Node {
    let left = this.parseMulOperand();
    for (;;) {
      const t = this.peek();
      if (t.k !== 'p' || (t.v !== '+' && t.v !== '-')) return left;
      this.next();
      left = { t: 'binop', op: t.v, left, right: this.parseMulOperand() };
    }
  }

  /** A multiplicative expression, or `-` applied to one (jq's `'-' Exp` binds like binary minus). */
  private parseMulOperand(): Node {
    if (this.isP('-')) {
      this.next();
      const body = this.parseMul();
      if (body.t === 'literal' && typeof body.value === 'number' && body.value !== 0) return { t: 'literal', value: -body.value };
      return { t: 'neg', body };
    }
    return this.parseMul();
  }

  private parseMul(): Node {
    let left = this.parseMulFactor();
    for (;;) {
      const t = this.peek();
      if (t.k !== 'p' || (t.v !== '*' && t.v !== '/' && t.v !== '%')) return left;
      this.next();
      left = { t: 'binop', op: t.v, left, right: this.parseMulFactor() };
    }
  }

  private parseMulFactor(): Node {
    return this.isP('-') ? this.parseMulOperand() : this.parsePostfix();
  }

  // ---- terms ----

  private parsePostfix(): Node {
    let node = this.parsePrimary();
    for (;;) {
      const t = this.peek();
      if (t.k === 'field') {
        this.next();
        node = this.optIndex(node, { t: 'literal', value: t.name });
      } else if (t.k === 'p' && t.v === '.') {
        this.next();
        if (this.peek().k === 'str') node = this.optIndex(node, this.parseString());
        else if (this.isP('[')) node = this.parseBracket(node);
        else return unsupported('dot');
      } else if (t.k === 'p' && t.v === '[') {
        node = this.parseBracket(node);
      } else if (t.k === 'p' && t.v === '?') {
        this.next();
        node = { t: 'try', body: node };
      } else {
        return node;
      }
    }
  }

  /** An index whose own failure a directly following `?` suppresses (jq's INDEX_OPT). */
  private optIndex(target: Node, key: Node): Node {
    const opt = this.isP('?');
    if (opt) this.next();
    return { t: 'index', target, key, opt };
  }

  private parseBracket(target: Node): Node {
    this.expectP('[');
    if (this.isP(']')) {
      this.next();
      const opt = this.isP('?');
      if (opt) this.next();
      return { t: 'iterate', target, opt };
    }
    if (this.isP(':')) unsupported('slice');
    const key = this.parsePipe();
    if (this.isP(':')) unsupported('slice');
    this.expectP(']');
    return this.optIndex(target, key);
  }

  private parsePrimary(): Node {
    const t = this.peek();
    switch (t.k) {
      case 'num': {
        this.next();
        // Only literals jq would print exactly as JavaScript does ("1.0", "1e3" keep their text in jq 1.8).
        const value = Number(t.text);
        if (String(value) !== t.text || t.text.includes('e')) return unsupported(`number literal ${t.text}`);
        return { t: 'literal', value };
      }
      case 'str':
        return this.parseString();
      case 'field':
        this.next();
        return { t: 'index', target: { t: 'identity' }, key: { t: 'literal', value: t.name }, opt: this.takeOpt() };
      case 'var': {
        this.next();
        for (let i = this.scope.length - 1; i >= 0; i--) {
          const b = this.scope[i]!;
          if (b.name === t.name) return { t: 'var', slot: b.slot };
        }
        return unsupported(`$${t.name}`);
      }
      case 'ident':
        return this.parseWord(t.name);
      case 'p':
        return this.parsePunctTerm(t.v);
      default:
        return unsupported('end of input');
    }
  }

  private takeOpt(): boolean {
    if (!this.isP('?')) return false;
    this.next();
    return true;
  }

  private parsePunctTerm(v: string): Node {
    this.next();
    switch (v) {
      case '.':
        if (this.peek().k === 'str') return this.optIndex({ t: 'identity' }, this.parseString());
        return { t: 'identity' };
      case '(': {
        const body = this.parsePipe();
        this.expectP(')');
        return body;
      }
      case '[': {
        if (this.isP(']')) {
          this.next();
          return { t: 'emptyArray' };
        }
        const body = this.parsePipe();
        this.expectP(']');
        return { t: 'collect', body };
      }
      case '{':
        return this.parseObject();
      default:
        return unsupported(v);
    }
  }

  private parseWord(name: string): Node {
    this.next();
    switch (name) {
      case 'true':
        return { t: 'literal', value: true };
      case 'false':
        return { t: 'literal', value: false };
      case 'null':
        return { t: 'literal', value: null };
      case 'if':
        return this.parseIfRest();
      case 'try': {
        if (this.isP('-')) unsupported('try -');
        const body = this.parsePostfix();
        if (this.isKw('catch')) unsupported('catch');
        return { t: 'try', body };
      }
      default:
        if (KEYWORDS.has(name)) unsupported(name);
    }
    const args: Node[] = [];
    if (this.isP('(')) {
      this.next();
      for (;;) {
        args.push(this.parsePipe());
        if (this.isP(';')) this.next();
        else break;
      }
      this.expectP(')');
    }
    return { t: 'call', name, args };
  }

  private parseIfRest(): Node {
    const cond = this.parsePipe();
    this.expectKw('then');
    const then = this.parsePipe();
    let otherwise: Node;
    if (this.isKw('elif')) {
      otherwise = this.parseIfRest(); // consumes the shared `end`
      return { t: 'if', cond, then, else: otherwise };
    }
    if (this.isKw('else')) {
      this.next();
      otherwise = this.parsePipe();
    } else {
      otherwise = { t: 'identity' };
    }
    this.expectKw('end');
    return { t: 'if', cond, then, else: otherwise };
  }

  private parseObject(): Node {
    const entries: { key: Node; value: Node }[] = [];
    if (this.isP('}')) {
      this.next();
      return { t: 'object', entries };
    }
    for (;;) {
      const t = this.peek();
      let key: Node;
      let shorthand: Node | null = null;
      if (t.k === 'var') {
        const v = this.parsePrimary();
        key = { t: 'literal', value: t.name };
        if (this.isP(':')) unsupported('$var as key');
        shorthand = v;
      } else if (t.k === 'ident') {
        this.next();
        key = { t: 'literal', value: t.name };
        shorthand = { t: 'index', target: { t: 'identity' }, key, opt: false };
      } else if (t.k === 'str') {
        key = this.parseString();
        shorthand = key.t === 'literal' ? { t: 'index', target: { t: 'identity' }, key, opt: false } : null;
      } else if (t.k === 'p' && t.v === '(') {
        this.next();
        key = this.parsePipe();
        this.expectP(')');
        // jq folds a key of constants at compile time and refuses one that is not a string ("Cannot use
        // number (0) as object key"): jq-wasm decides those, so a compiled program is always one jq compiles.
        if (!readsAnything(key) && !(key.t === 'literal' && typeof key.value === 'string') && key.t !== 'interp') unsupported('constant object key');
      } else {
        return unsupported('object key');
      }
      let value: Node;
      if (this.isP(':')) {
        this.next();
        value = this.parseObjVal();
      } else if (shorthand) {
        value = shorthand;
      } else {
        return unsupported('object entry');
      }
      entries.push({ key, value });
      if (this.isP(',')) {
        this.next();
        continue;
      }
      this.expectP('}');
      return { t: 'object', entries };
    }
  }

  /** jq's ExpD: terms joined by `|`, optionally negated — no `,` or binary operators. */
  private parseObjVal(): Node {
    let left: Node;
    if (this.isP('-')) {
      this.next();
      left = { t: 'neg', body: this.parseObjVal() };
    } else {
      left = this.parsePostfix();
    }
    if (this.isP('|')) {
      this.next();
      return { t: 'pipe', left, right: this.parseObjVal() };
    }
    return left;
  }

  /** A string literal at the cursor, with `\(...)` interpolation. */
  private parseString(): Node {
    this.peek();
    this.tok = null;
    const s = this.src;
    let i = this.pos + 1;
    const parts: (string | Node)[] = [];
    let buf = '';
    for (;;) {
      if (i >= s.length) return unsupported('unterminated string');
      const c = s[i]!;
      if (c === '"') {
        i++;
        break;
      }
      if (c !== '\\') {
        buf += c;
        i++;
        continue;
      }
      const e = s[i + 1];
      i += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          buf += e;
          break;
        case 'b':
          buf += '\b';
          break;
        case 'f':
          buf += '\f';
          break;
        case 'n':
          buf += '\n';
          break;
        case 'r':
          buf += '\r';
          break;
        case 't':
          buf += '\t';
          break;
        case 'u': {
          const hex = s.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) unsupported('\\u escape');
          const code = parseInt(hex, 16);
          i += 4;
          if (code >= 0xd800 && code <= 0xdfff) {
            // Pairs only; jq turns a lone surrogate into U+FFFD.
            const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(s.slice(i));
            if (code > 0xdbff || !low) unsupported('lone surrogate escape');
            buf += String.fromCharCode(code, parseInt(low[1]!, 16));
            i += 6;
          } else {
            buf += String.fromCharCode(code);
          }
          break;
        }
        case '(': {
          if (buf) parts.push(buf);
          buf = '';
          this.pos = i;
          this.tok = null;
          parts.push(this.parsePipe());
          this.expectP(')');
          i = this.pos;
          break;
        }
        default:
          unsupported('string escape');
      }
    }
    this.pos = i;
    this.tok = null;
    if (parts.length === 0) return { t: 'literal', value: buf };
    if (buf) parts.push(buf);
    return { t: 'interp', parts };
  }
}

/** The tree for `expr` with `globals` bound to slots 0..n-1, and how many slots it needs. */
export function parseJq(expr: string, globals: readonly string[]): { node: Node; slots: number } {
  const p = new Parser(expr, globals);
  const node = p.parseProgram();
  return { node, slots: p.slots };
}
