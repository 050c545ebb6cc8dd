/**
 * The manual's text for the tests that run it: README.md is the front page,
 * the manual proper lives in docs/*.md, a page per topic. A test names the
 * page and the heading it runs, so a section that moves fails here, naming
 * where it was looked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');

/** A page of the manual by its path from the repository root, e.g. `docs/agents.md`. */
export function manualPage(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/**
 * The section under `heading` (written with its hashes, e.g. `## Agents`) of
 * a page, from the heading up to the next heading of the same or a higher
 * level, or the end of the page.
 */
export function manualSection(path: string, heading: string): string {
  const level = /^(#+) /.exec(heading)?.[1]!.length ?? 0;
  if (level === 0) throw new Error(`manualSection wants a heading with its hashes, e.g. "## Agents"; got "${heading}"`);
  const lines = manualPage(path).split('\n');
  let fenced = false;
  let start = -1;
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    if (start < 0 && line === heading) start = i;
    // A `# comment` inside a code block is not a heading: fences are skipped above.
    else if (start >= 0 && /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level) return lines.slice(start, i).join('\n');
  }
  if (start < 0) throw new Error(`${path} has no "${heading}" section`);
  return lines.slice(start).join('\n');
}
