/** Machine output (`--json`): the server's answer, pretty-printed, and nothing else on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints one line for people. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

const MAX_CELL = 60;

/** A value as one line of text: objects as compact JSON, newlines collapsed. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  // Past null and objects, what a JSON answer holds is a primitive.
  const primitive = v as string | number | boolean | bigint;
  const s = typeof v === 'object' ? JSON.stringify(v) : String(primitive);
  return s.replace(/\s*\n\s*/g, ' ');
}

/** A plain table for people: upper-case headers, cells cut at 60 characters. */
export function printTable(rows: readonly Record<string, unknown>[], columns: readonly string[]): void {
  if (rows.length === 0) {
    say('(none)');
    return;
  }
  const cut = (s: string) => (s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cut(cell(r[c])).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => cut(v).padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  say(line(columns.map((c) => c.toUpperCase())));
  for (const r of rows) say(line(columns.map((c) => cell(r[c]))));
}

/** One record, a field per line, values in full. */
export function printRecord(rec: Record<string, unknown>): void {
  const keys = Object.keys(rec);
  const width = Math.max(0, ...keys.map((k) => k.length));
  for (const k of keys) say(`${k.padEnd(width)}  ${cell(rec[k])}`);
}
