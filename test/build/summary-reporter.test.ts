import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const SummaryReporter = require('../support/summary-reporter') as {
  new (config: { rootDir: string }): { onRunComplete(contexts: unknown, results: unknown): void };
  slowestLines(results: unknown[], rootDir: string, count?: number): string[];
};

const ROOT = '/repo';
const file = (name: string, seconds: number | undefined) => ({
  testFilePath: join(ROOT, name),
  perfStats: seconds === undefined ? undefined : { start: 1_000_000, end: 1_000_000 + seconds * 1000 },
});

describe('the summary reporter (jest reporters: after the default one)', () => {
  it('lists the ten slowest test files, slowest first, relative to the root, seconds aligned', () => {
    const results = Array.from({ length: 14 }, (_, i) => file(`t/f${i}.test.ts`, i + 0.25));
    const lines = SummaryReporter.slowestLines(results, ROOT);
    expect(lines[0]).toBe('Slowest 10 test files:');
    expect(lines.slice(1)).toHaveLength(10);
    expect(lines[1]).toBe('  13.3 s  t/f13.test.ts');
    expect(lines[10]).toBe('   4.3 s  t/f4.test.ts');
  });

  it('leaves out a file that never ran, and prints nothing when none did', () => {
    expect(SummaryReporter.slowestLines([file('a.test.ts', 2), file('b.test.ts', undefined)], ROOT)).toEqual(['Slowest 1 test files:', '  2.0 s  a.test.ts']);
    expect(SummaryReporter.slowestLines([file('b.test.ts', undefined)], ROOT)).toEqual([]);
  });

  it('ends the run with the plain "N passed, N failed, N skipped" line, after the slowest files', () => {
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      new SummaryReporter({ rootDir: ROOT }).onRunComplete(new Set(), {
        testResults: [file('a.test.ts', 3), file('b.test.ts', 1)],
        numPassedTests: 7,
        numFailedTests: 1,
        numRuntimeErrorTestSuites: 1,
        numPendingTests: 2,
        numTodoTests: 1,
      });
    } finally {
      spy.mockRestore();
    }
    const lines = out.join('').trimEnd().split('\n');
    expect(lines[lines.length - 1]).toBe('7 passed, 2 failed, 3 skipped');
    expect(lines.indexOf('Slowest 2 test files:')).toBeGreaterThan(-1);
    expect(lines.indexOf('  3.0 s  a.test.ts')).toBeLessThan(lines.indexOf('  1.0 s  b.test.ts'));
  });
});
