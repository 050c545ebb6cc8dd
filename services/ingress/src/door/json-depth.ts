/** Deepest JSON nesting the door accepts; deeper documents are refused before parsing. */
export const JSON_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when `text` nests objects/arrays deeper than `max`. A linear scan over
 * the raw text (brackets inside strings do not count), run before JSON.parse so
 * a hostile document never builds a deep tree that later recursive code
 * (jq, JSON.stringify, Lua cjson) would choke on.
 */
export function exceedsJsonDepth(text: string, max = JSON_MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Escape characters JSON allows after a backslash (other than `u`). */
const SIMPLE_ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function skipWs(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === SPACE || c === LF || c === CR || c === TAB; c = text.charCodeAt(++i));
  return i;
}

/** End of the string whose opening quote is at `i`, or -1 when it is not a valid JSON string. */
function scanString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < SPACE) return -1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(++i);
      if (e === 0x75 /* u */) {
        if (!(isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)))) return -1;
        i += 4;
      } else if (!(e < 128 && SIMPLE_ESCAPE[e] === 1)) return -1;
    }
  }
  return -1;
}

function digits(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c >= ZERO && c <= NINE; c = text.charCodeAt(++i));
  return i;
}

/** End of the number starting at `i`, or -1 when it is not a valid JSON number. */
function scanNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (first === ZERO) i++;
  else if (first > ZERO && first <= NINE) i = digits(text, i + 1);
  else return -1;
  if (text.charCodeAt(i) === DOT) {
    const j = digits(text, i + 1);
    if (j === i + 1) return -1;
    i = j;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const s = text.charCodeAt(i);
    if (s === PLUS || s === MINUS) i++;
    const j = digits(text, i);
    if (j === i) return -1;
    i = j;
  }
  return i;
}

function scanWord(text: string, i: number, word: string): number {
  return text.startsWith(word, i) ? i + word.length : -1;
}

/**
 * True when `text` is exactly one JSON object that `JSON.parse` accepts and
 * that nests no deeper than `max` (the grammar of ECMA-404: whitespace is
 * space, tab, LF and CR; strings refuse raw control characters and unknown
 * escapes; numbers have no leading zeros, `+`, bare dots or hex). A single
 * linear pass with no allocation, so the door can keep a JSON object body's
 * text without building the object. False means "not proven": the caller
 * takes the JSON.parse path, which also words the refusal.
 */
export function isJsonObjectText(text: string, max = JSON_MAX_DEPTH): boolean {
  // Open containers, innermost last: 1 = object, 2 = array.
  const stack = new Uint8Array(max + 1);
  let depth = 0;
  let i = skipWs(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return false;
  // Each turn reads one value at i; containers push and continue with their first member.
  for (;;) {
    let c = text.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth >= max) return false;
      const isObject = c === OPEN_BRACE;
      stack[depth++] = isObject ? 1 : 2;
      i = skipWs(text, i + 1);
      c = text.charCodeAt(i);
      if (c === (isObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        depth--;
        i++;
      } else {
        if (isObject) {
          if (c !== QUOTE || (i = scanString(text, i)) < 0) return false;
          i = skipWs(text, i);
          if (text.charCodeAt(i) !== COLON) return false;
          i = skipWs(text, i + 1);
        }
        continue;
      }
    } else if (c === QUOTE) {
      if ((i = scanString(text, i)) < 0) return false;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if ((i = scanNumber(text, i)) < 0) return false;
    } else if (c === 0x74 /* t */) {
      if ((i = scanWord(text, i, 'true')) < 0) return false;
    } else if (c === 0x66 /* f */) {
      if ((i = scanWord(text, i, 'false')) < 0) return false;
    } else if (c === 0x6e /* n */) {
      if ((i = scanWord(text, i, 'null')) < 0) return false;
    } else {
      return false;
    }
    // After a value: a separator, or the end of one or more containers.
    for (;;) {
      i = skipWs(text, i);
      if (depth === 0) return i === text.length;
      c = text.charCodeAt(i);
      const inObject = stack[depth - 1] === 1;
      if (c === COMMA) {
        i = skipWs(text, i + 1);
        if (inObject) {
          if (text.charCodeAt(i) !== QUOTE || (i = scanString(text, i)) < 0) return false;
          i = skipWs(text, i);
          if (text.charCodeAt(i) !== COLON) return false;
          i = skipWs(text, i + 1);
        }
        break;
      }
      if (c !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return false;
      depth--;
      i++;
    }
  }
}
