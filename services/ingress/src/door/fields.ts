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
  return Object.fromEntries(byName) as Fields;
}

/** Parses a raw query string (without the `?`). Empty -> empty object. */
export function parseQuery(query: string): Fields {
  if (query === '') return {};
  return collectPairs(new URLSearchParams(query));
}

export function isEmpty(fields: Fields): boolean {
  for (const _ in fields) return false;
  return true;
}
