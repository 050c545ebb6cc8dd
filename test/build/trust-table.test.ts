/**
 * The manual's trust table ("Who may do what, through which door", in
 * docs/security.md) is kept true by tests: every row names, in its last
 * column, the tests that show it (`path` › «test title»), and this file
 * checks that each named test exists
 * with that exact title. A row whose test is renamed, moved or deleted fails
 * here, so the table cannot quietly outlive what backs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const PAGE = 'docs/security.md';
const HEADING = '### Who may do what, through which door';

interface Row {
  principal: string;
  cells: string[];
  tests: { path: string; title: string }[];
}

/** The table's rows under the heading: the first Markdown table after it. */
export function trustRows(page: string): Row[] {
  const at = page.indexOf(HEADING);
  if (at < 0) throw new Error(`${PAGE} has no "${HEADING}" section`);
  const lines = page.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const table: string[] = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith('|')) break;
    table.push(l);
  }
  // Header and the |---| line first.
  return table.slice(2).map((line) => {
    const cells = line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
    const last = cells[cells.length - 1] ?? '';
    const tests = [...last.matchAll(/`([^`]+)` › «([^»]+)»/g)].map((m) => ({ path: m[1]!, title: m[2]! }));
    return { principal: cells[0] ?? '', cells, tests };
  });
}

/** Titles as written in a test file: the first argument of it/test/describe in single, double or back quotes. */
function titlesIn(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/\b(?:it|test|describe)(?:\.each\([^)]*\))?\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
    out.add(m[2]!.replace(/\\(['"`\\])/g, '$1'));
  }
  return out;
}

describe("the README's trust table", () => {
  const rows = trustRows(readFileSync(join(ROOT, PAGE), 'utf8'));

  it('lists every principal the design names', () => {
    const principals = rows.map((r) => r.principal.toLowerCase()).join('\n');
    for (const p of ['open topic', 'verified topic', 'nats publisher', 'nats client', 'reader', 'operator', 'admin', 'link']) {
      expect(principals).toContain(p);
    }
  });

  it('backs every row with at least one named test', () => {
    const bare = rows.filter((r) => r.tests.length === 0).map((r) => r.principal);
    expect(bare).toEqual([]);
  });

  it('names only tests that exist, with their exact titles', () => {
    const missing: string[] = [];
    for (const row of rows) {
      for (const t of row.tests) {
        const file = join(ROOT, t.path);
        if (!existsSync(file)) {
          missing.push(`${row.principal}: no file ${t.path}`);
          continue;
        }
        if (!titlesIn(readFileSync(file, 'utf8')).has(t.title)) missing.push(`${row.principal}: ${t.path} has no test "${t.title}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});
