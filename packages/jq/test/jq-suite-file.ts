import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** jq 1.8.2's own test files, vendored under fixtures/. */
export const SUITE_FILES = ['jq.test', 'onig.test', 'man.test'] as const;

/**
 * The groups of one of jq's test files: runs of non-blank lines, comment
 * lines left out, each with the line it starts on. A group is a program, its
 * input and its expected outputs; a `%%FAIL` group is that line, a program jq
 * refuses to compile, and jq's message.
 */
export function suiteGroups(file: string): { line: number; lines: string[] }[] {
  const lines = readFileSync(join(__dirname, 'fixtures', 'jq-1.8.2', file), 'utf8').split('\n');
  const out: { line: number; lines: string[] }[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.trim() === '' || l.startsWith('#')) {
      i++;
      continue;
    }
    const group: string[] = [];
    const start = i + 1;
    while (i < lines.length && lines[i]!.trim() !== '') {
      if (!lines[i]!.startsWith('#')) group.push(lines[i]!);
      i++;
    }
    out.push({ line: start, lines: group });
  }
  return out;
}
