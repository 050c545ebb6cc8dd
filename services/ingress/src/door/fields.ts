/**
 * Name/value pairs (query strings, urlencoded and multipart forms) become a
 * plain object. A name given once is a string; a name repeated is an array of
 * its values in order. Built through a Map and Object.fromEntries so a field
 * called `__proto__` is an ordinary own property, never a prototype change.
 */
export type Fields = Record<string, string | string[]>;

export function collectPairs(pairs: Iterable<readonly [string, string]>): Fields {
  const byName = new Map<string, string | string[]>();
  for (const [name, value] of pairs) {
    const seen = byName.get(name);
    if (seen === undefined) byName.set(name, value);
    else if (Array.isArray(seen)) seen.push(value);
    else byName.set(name, [seen, value]);
  }
  return Object.fromEntries<string | string[]>(byName);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes one `application/x-www-form-urlencoded` name or value; undefined when its bytes are not UTF-8. */
function decodeComponent(raw: string): string | undefined {
  const plus = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!plus.includes('%')) return plus;
  // Percent-decode to bytes first (a stray % stays as it is, as URLSearchParams does), then decode strictly.
  const bytes: number[] = [];
  for (let i = 0; i < plus.length; i++) {
    const c = plus.charCodeAt(i);
    if (c === 0x25 && i + 2 < plus.length && /^[0-9a-fA-F]{2}$/.test(plus.slice(i + 1, i + 3))) {
      bytes.push(parseInt(plus.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // Whole code points, so a character outside the BMP keeps both halves.
      const cp = plus.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      i += ch.length - 1;
    }
  }
  try {
    return STRICT_UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Parses a query string or urlencoded form (without the `?`). Empty -> empty
 * object; undefined when a percent-encoded name or value is not UTF-8 (kept
 * altered with U+FFFD would misreport what was sent).
 */
export function parseQuery(query: string): Fields | undefined {
  if (query === '') return {};
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    const value = decodeComponent(eq < 0 ? '' : part.slice(eq + 1));
    if (name === undefined || value === undefined) return undefined;
    pairs.push([name, value]);
  }
  return collectPairs(pairs);
}

export function isEmpty(fields: Fields): boolean {
  for (const _ in fields) return false;
  return true;
}
