/** One line of a diff: kept (` `), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Past this many lines on a side the diff is not aligned (shown as all removed, then all added). */
const MAX_LINES = 2000;

/**
 * The lines of `before` and `after` as a unified diff (a longest common
 * subsequence of lines; quadratic, so both sides are bounded).
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  }
  // lcs[i][j]: the common lines of a[i..] and b[j..]; `common` reads it as 0 past either end (and
  // type-checks under the workspace's unchecked index access, where the tests read this file).
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  const common = (i: number, j: number): number => lcs[i]?.[j] ?? 0;
  for (let i = a.length - 1; i >= 0; i -= 1) {
    const row = lcs[i] ?? [];
    for (let j = b.length - 1; j >= 0; j -= 1) row[j] = a[i] === b[j] ? common(i + 1, j + 1) + 1 : Math.max(common(i + 1, j), common(i, j + 1));
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] ?? '';
    const y = b[j] ?? '';
    if (x === y) {
      out.push({ op: ' ', text: x });
      i += 1;
      j += 1;
    } else if (common(i + 1, j) >= common(i, j + 1)) {
      out.push({ op: '-', text: x });
      i += 1;
    } else {
      out.push({ op: '+', text: y });
      j += 1;
    }
  }
  for (const text of a.slice(i)) out.push({ op: '-', text });
  for (const text of b.slice(j)) out.push({ op: '+', text });
  return out;
}

/** A value as the diff shows it: pretty JSON with sorted keys (so key order is no change), no lines for none. */
export function diffText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}
