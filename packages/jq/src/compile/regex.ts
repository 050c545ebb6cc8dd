import type { RE2JS } from 're2js';
import { charge, fallback } from './values';

// re2js (with its Unicode tables) loads when an expression first uses a regex, not with every role.
let re2jsModule: typeof import('re2js') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const re2js = () => (re2jsModule ??= require('re2js') as typeof import('re2js'));

/**
 * `test(re; flags)` in-process, on RE2 (re2js: linear time in the subject, no
 * backtracking, so no pattern can stall the event loop), for the regexes
 * whose meaning is exactly Oniguruma's (jq uses Oniguruma with Perl_NT
 * syntax). A conservative whitelist: ASCII literals, `.`, anchors, groups
 * `( )`, `(?: )`, quantifiers, simple classes and the escapes `\d \w \s \b`
 * (and negations). Anything else (lookarounds, backreferences, named groups,
 * possessive quantifiers...), and any subject where the two engines could
 * disagree, is left to jq-wasm. Only patterns written in the expression get
 * here (codegen refuses a pattern computed from the data).
 */

interface Translated {
  re: RE2JS;
  /** Class escapes and `i` differ on non-ASCII text (Oniguruma's are Unicode-aware). */
  asciiSubjectOnly: boolean;
}

/**
 * Perl's `$` (end, or before a final newline) is `\n?$` in RE2 when nothing
 * can follow it in the match: only `)` up to the end of the pattern or a
 * top-level `|`. Elsewhere consuming the newline could change the answer.
 */
function dollarAtEnd(src: string, i: number, depth: number): boolean {
  let d = depth;
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === ')') d--;
    else if (c === '|' && d === 0) return true;
    else return false;
  }
  return true;
}

const CACHE_LIMIT = 500;
const cache = new Map<string, Translated | null>();

const LITERAL = /[A-Za-z0-9 _,:;'"!@#%&=<>/~`-]/;
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const SYNTAX_ESCAPES = new Set(['.', '\\', '/', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$']);
const CONTROL_ESCAPES = new Set(['n', 't', 'r', 'f', 'v']);

function translateClass(src: string, start: number, out: string[]): number {
  // `start` is just past '['. Returns the index past the closing ']'.
  let i = start;
  out.push('[');
  if (src[i] === '^') {
    out.push('^');
    i++;
  }
  if (src[i] === ']') throw new Error('leading ] in class'); // literal in Oniguruma, empty in JS
  for (;;) {
    const c = src[i];
    if (c === undefined) throw new Error('unterminated class');
    if (c === ']') {
      out.push(']');
      return i + 1;
    }
    if (c === '[' || (c === '&' && src[i + 1] === '&')) throw new Error('nested class or intersection');
    if (c === '\\') {
      const e = src[i + 1] ?? '';
      if (CLASS_ESCAPES.has(e) || CONTROL_ESCAPES.has(e) || SYNTAX_ESCAPES.has(e) || e === '-') out.push(`\\${e}`);
      else throw new Error(`escape \\${e} in class`);
      i += 2;
      continue;
    }
    if (!LITERAL.test(c) && c !== '.' && c !== '*' && c !== '+' && c !== '?' && c !== '$' && c !== '|' && c !== '(' && c !== ')' && c !== '{' && c !== '}') {
      throw new Error(`character ${c} in class`);
    }
    out.push(
      c === '-'
        ? '-'
        : c === '$' || c === '|' || c === '(' || c === ')' || c === '{' || c === '}' || c === '.' || c === '*' || c === '+' || c === '?'
          ? `\\${c}`
          : c,
    );
    i++;
  }
}

function translate(src: string, flags: string): Translated | null {
  if (!/^(?:g?i?g?)$/.test(flags)) return null;
  const ignoreCase = flags.includes('i');
  let asciiSubjectOnly = ignoreCase;
  const out: string[] = [];
  let depth = 0;
  try {
    for (let i = 0; i < src.length;) {
      const c = src[i]!;
      if (c === '\\') {
        const e = src[i + 1] ?? '';
        if (CLASS_ESCAPES.has(e) || e === 'b' || e === 'B') {
          asciiSubjectOnly = true;
          out.push(`\\${e}`);
        } else if (SYNTAX_ESCAPES.has(e) || CONTROL_ESCAPES.has(e)) {
          out.push(`\\${e}`);
        } else if (e === '-') {
          out.push('-');
        } else {
          return null;
        }
        i += 2;
      } else if (c === '[') {
        if (src.includes('\\', i)) asciiSubjectOnly = true;
        i = translateClass(src, i + 1, out);
      } else if (c === '(') {
        if (src[i + 1] === '?') {
          const kind = src.slice(i + 2, i + 3);
          if (kind !== ':') return null; // lookarounds (not in RE2), named groups, inline options
          out.push('(?:');
          i += 3;
        } else {
          out.push('(');
          i++;
        }
        depth++;
      } else if (c === '{') {
        const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(src.slice(i));
        if (!m) return null;
        if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) return null;
        out.push(m[0]);
        i += m[0].length;
        if (src[i] === '+') return null; // possessive in Oniguruma
      } else if (c === '*' || c === '+' || c === '?') {
        out.push(c);
        i++;
        if (src[i] === '+') return null; // possessive in Oniguruma
      } else if (c === '.') {
        out.push('[^\\n]'); // Oniguruma's dot stops only at \n; JS's also at \r, U+2028, U+2029
        i++;
      } else if (c === '$') {
        if (!dollarAtEnd(src, i, depth)) return null;
        out.push('(?:\\n?$)'); // Perl's $: at the end or before a final newline
        i++;
      } else if (c === ')') {
        depth--;
        out.push(c);
        i++;
      } else if (c === '^' || c === '|') {
        out.push(c);
        i++;
      } else if (LITERAL.test(c)) {
        out.push(c);
        i++;
      } else {
        return null;
      }
    }
    if (depth !== 0) return null;
    const { RE2JS: Re2 } = re2js();
    return { re: Re2.compile(out.join(''), ignoreCase ? Re2.CASE_INSENSITIVE : 0), asciiSubjectOnly };
  } catch {
    return null; // a pattern RE2 rejects (or the class walker refused): jq-wasm decides
  }
}

export function testRegex(subject: string, pattern: string, flags: string | null): boolean {
  const f = flags ?? '';
  const key = `${f}/${pattern}`;
  let t = cache.get(key);
  if (t === undefined) {
    t = translate(pattern, f);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, t);
  }
  if (t === null) return fallback(`regex ${pattern} outside the compiled subset`);
  // eslint-disable-next-line no-control-regex -- the ASCII range, NUL included, is the point
  if (t.asciiSubjectOnly && !/^[\x00-\x7f]*$/.test(subject)) return fallback('non-ASCII subject for an ASCII-only regex');
  // Linear, but not free: a long subject spends the evaluation's step budget.
  charge(1 + (subject.length >> 4));
  return t.re.matcher(subject).find();
}
