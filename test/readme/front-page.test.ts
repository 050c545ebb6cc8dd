/**
 * README.md is a front page and the manual lives in docs/: the README stays
 * short, and every relative link in it, in the manual's pages and in the
 * packages' and services' READMEs reaches a file that exists and, for a
 * Markdown page, a heading that exists. A section moved to another page
 * without its links following fails here, naming the link.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { manualPage, REPO_ROOT } from '../support/manual';

const MAX_README_LINES = 400;

/** The pages whose links are checked, as paths from the repository root. */
function pages(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  const readmes = ['packages', 'services'].flatMap((top) =>
    readdirSync(join(REPO_ROOT, top))
      .map((name) => `${top}/${name}/README.md`)
      .filter((p) => existsSync(join(REPO_ROOT, p))),
  );
  return ['README.md', 'deploy/README.md', ...docs.map((f) => `docs/${f}`), ...readmes];
}

/** Lines outside fenced code blocks: a `# comment` or `](` in a shell block is neither a heading nor a link. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a page, with inline code spans removed first. */
function links(text: string): string[] {
  const out: string[] = [];
  for (const line of prose(text)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]!)) out.push(m[1]!);
    }
  }
  return out;
}

/** What is wrong with one link from `page`, or undefined when it resolves. */
function broken(page: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? join(REPO_ROOT, page) : join(REPO_ROOT, dirname(page), decodeURIComponent(path));
  if (!file.startsWith(REPO_ROOT) || !existsSync(file)) return `${page}: ${target} (no file ${relative(REPO_ROOT, file)})`;
  if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  if (!anchors(manualPage(relative(REPO_ROOT, file))).has(anchor)) return `${page}: ${target} (no heading #${anchor} in ${relative(REPO_ROOT, file)})`;
  return undefined;
}

describe('README front page and the manual in docs/', () => {
  it(`README.md is at most ${MAX_README_LINES} lines`, () => {
    const lines = manualPage('README.md').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('names every page of docs/ from the README', () => {
    const readmeLinks = new Set(links(manualPage('README.md')).map((t) => t.split('#')[0]));
    const unlinked = pages()
      .filter((p) => p.startsWith('docs/') && !p.startsWith('docs/recipes/'))
      .filter((p) => !readmeLinks.has(p));
    expect(unlinked).toEqual([]);
  });

  it("every relative link in README.md, docs/ and the packages' READMEs reaches an existing file and heading", () => {
    const checked = pages().flatMap((page) => links(manualPage(page)).map((target) => broken(page, target)));
    expect(checked.length).toBeGreaterThan(50);
    expect(checked.filter((b) => b !== undefined)).toEqual([]);
  });

  it('finds a link that goes nowhere and an anchor no heading makes', () => {
    expect(broken('README.md', 'docs/no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
    expect(broken('README.md', 'docs/security.md#no-such-heading')).toMatch(/no heading #no-such-heading/);
    expect(broken('docs/security.md', 'approvals.md#approvals')).toBeUndefined();
    expect(anchors('## Waiting, resuming, cancelling\n```sh\n# not a heading\n```\n## Charts: per-minute counters\n## Tools\n## Tools\n')).toEqual(
      new Set(['waiting-resuming-cancelling', 'charts-per-minute-counters', 'tools', 'tools-1']),
    );
  });
});
