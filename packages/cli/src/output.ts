/** Prints machine output (`--json`) or a plain table for people. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.min(60, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const line = (vals: string[]) => vals.map((v, i) => v.slice(0, 60).padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  process.stdout.write(`${line(columns.map((c) => c.toUpperCase()))}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c])))}\n`);
}

export function printRecord(rec: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(rec).map((k) => k.length));
  for (const [k, v] of Object.entries(rec)) {
    const val = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    process.stdout.write(`${k.padEnd(width)}  ${val}\n`);
  }
}
