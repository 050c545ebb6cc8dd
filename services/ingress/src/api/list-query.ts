/**
 * The shared part of a cursor-paged list's query string: each parameter given
 * at most once, no unknown parameter, `limit` within bounds. Every bad value is
 * one line of `errors`, so the route answers one 400 listing them all.
 */
export interface ListQueryReader {
  /** The parameter's one value, or undefined when absent (a repeated one is an error line). */
  one(key: string): string | undefined;
  /** `limit`: the default when absent, else a whole number from 1 to max. */
  limit(defaultLimit: number, max: number): number;
  readonly errors: string[];
}

export function listQueryReader(query: Record<string, unknown>, known: ReadonlySet<string>): ListQueryReader {
  const errors: string[] = [];
  for (const key of Object.keys(query)) if (!known.has(key)) errors.push(`unknown query parameter '${key}' (known: ${[...known].join(', ')})`);
  const one = (key: string): string | undefined => {
    const v = query[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      errors.push(`${key} must be given once, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  };
  const limit = (defaultLimit: number, max: number): number => {
    const raw = one('limit');
    if (raw === undefined) return defaultLimit;
    const n = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (n >= 1 && n <= max) return n;
    errors.push(`limit must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
    return defaultLimit;
  };
  return { one, limit, errors };
}
