/**
 * Allowlist grammar: `*` allows everything, an exact name allows that name,
 * `!name` excludes it. Exclusion wins. A list of only exclusions allows nothing.
 */
/** One well-formed allowlist entry: `*`, a tool name or `!name`. */
export const ALLOWLIST_ENTRY_PATTERN = /^(\*|!?[A-Za-z0-9_][A-Za-z0-9_.:/-]*)$/;

export interface Allowlist {
  readonly all: boolean;
  readonly names: ReadonlySet<string>;
  readonly excluded: ReadonlySet<string>;
}

export function parseAllowlist(entries: readonly string[]): Allowlist {
  const names = new Set<string>();
  const excluded = new Set<string>();
  let all = false;
  for (const raw of entries) {
    const e = raw.trim();
    if (e === '') continue;
    if (e === '*') all = true;
    else if (e.startsWith('!')) excluded.add(e.slice(1));
    else names.add(e);
  }
  return { all, names, excluded };
}

export function allows(list: Allowlist, name: string): boolean {
  if (list.excluded.has(name)) return false;
  return list.all || list.names.has(name);
}

/** Both lists must allow a name: an inner list can only narrow an outer one. */
export function intersect(a: Allowlist, b: Allowlist): Allowlist {
  const excluded = new Set([...a.excluded, ...b.excluded]);
  if (a.all && b.all) return { all: true, names: new Set(), excluded };
  const names = new Set<string>();
  const candidates = a.all ? b.names : a.names;
  for (const n of candidates) if (allows(a, n) && allows(b, n)) names.add(n);
  return { all: false, names, excluded };
}

export const ALLOW_ALL: Allowlist = parseAllowlist(['*']);
