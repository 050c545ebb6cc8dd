import { fallback } from './values';

/**
 * `test(re; flags)` for the regexes whose JavaScript meaning is exactly
 * Oniguruma's (jq uses Oniguruma with Perl_NT syntax). A conservative
 * whitelist: ASCII literals, `.`, anchors, groups `( )`, `(?: )`, lookaheads,
 * quantifiers, simple classes and the escapes `\d \w \s \b` (and negations).
 * Anything else — and any subject where the two engines could disagree — is
 * left to jq-wasm.
 */

interface Translated {
  re: RegExp;
  /** Class escapes and `i` differ on non-ASCII text (Oniguruma's are Unicode-aware). */
  asciiSubjectOnly: boolean;
  /**
   * Longest subject the in-process regex may see. The compiled path has no
   * time bound, so a backtracking blow-up must be impossible within it: longer
   * subjects go to jq-wasm, whose workers are time-bounded.
   */
  maxSubject: number;
}

/**
 * How long a subject the compiled path may match, from the pattern's shape.
 * A quantified group that itself holds a quantifier or an alternation
 * (`(a+)+`, `(a|aa)*`) backtracks exponentially: never compiled. Otherwise the
 * worst case grows as n^(k+1) for k unbounded quantifiers (`*`, `+`, `{n,}`,
 * `{n,m}` with m > 16), so k = 0..2 get shrinking bounds and more go to jq-wasm.
 */
function subjectBound(src: string): number {
  let unbounded = 0;
  const groups: { risky: boolean }[] = [{ risky: false }];
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // Skip a class: its quantifier characters are literals.
      for (i++; i < src.length && src[i] !== ']'; i++) if (src[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      groups.push({ risky: false });
      if (src[i + 1] === '?') i += 2; // (?: (?= (?! : the ? is not a quantifier
    } else if (c === '|') groups[groups.length - 1]!.risky = true;
    else if (c === ')') {
      if (groups.length === 1) return 0; // unbalanced: leave it to jq
      const inner = groups.pop();
      const next = src[i + 1];
      const quantified = next === '*' || next === '+' || next === '?' || next === '{';
      if (inner?.risky && quantified) return 0;
      if (inner?.risky || quantified) groups[groups.length - 1]!.risky = true;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      groups[groups.length - 1]!.risky = true;
      if (c === '*' || c === '+') unbounded++;
      if (c === '{') {
        const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(src.slice(i));
        if (m && m[2] !== undefined && (m[3] === '' || Number(m[3]) > 16)) unbounded++;
      }
    }
  }
  return unbounded <= 1 ? 4096 : unbounded === 2 ? 256 : 0;
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
    out.push(c === '-' ? '-' : c === '$' || c === '|' || c === '(' || c === ')' || c === '{' || c === '}' || c === '.' || c === '*' || c === '+' || c === '?' ? `\\${c}` : c);
    i++;
  }
}

function translate(src: string, flags: string): Translated | null {
  if (!/^(?:g?i?g?)$/.test(flags)) return null;
  const maxSubject = subjectBound(src);
  if (maxSubject === 0) return null;
  const ignoreCase = flags.includes('i');
  let asciiSubjectOnly = ignoreCase;
  const out: string[] = [];
  try {
    for (let i = 0; i < src.length; ) {
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
          if (kind !== ':' && kind !== '=' && kind !== '!') return null; // named groups, lookbehind, inline options
          out.push(`(?${kind}`);
          i += 3;
        } else {
          out.push('(');
          i++;
        }
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
        out.push('(?=\\n?$)'); // Perl's $: at the end or before a final newline
        i++;
      } else if (c === '^' || c === '|' || c === ')') {
        out.push(c);
        i++;
      } else if (LITERAL.test(c)) {
        out.push(c);
        i++;
      } else {
        return null;
      }
    }
    return { re: new RegExp(out.join(''), ignoreCase ? 'iu' : 'u'), asciiSubjectOnly, maxSubject };
  } catch {
    return null; // a pattern JS rejects (or the class walker refused): jq-wasm decides
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
  if (subject.length > t.maxSubject) return fallback('subject too long for the unbounded in-process regex');
  if (t.asciiSubjectOnly && !/^[\x00-\x7f]*$/.test(subject)) return fallback('non-ASCII subject for an ASCII-only regex');
  t.re.lastIndex = 0;
  return t.re.test(subject);
}
