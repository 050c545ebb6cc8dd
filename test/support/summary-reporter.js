/**
 * After jest's own summary: the ten slowest test files (wall time each, from
 * jest's per-file timings), then one plain closing line, "N passed, N failed,
 * N skipped", so any CI reading the last line sees what ran.
 */
const path = require('node:path');

const SLOWEST = 10;

/** The `count` slowest files of a run as printable lines, slowest first (files that never ran are left out). */
function slowestLines(testResults, rootDir, count = SLOWEST) {
  const timed = testResults
    .map((r) => ({ file: path.relative(rootDir, r.testFilePath), ms: r.perfStats ? r.perfStats.end - r.perfStats.start : NaN }))
    .filter((t) => Number.isFinite(t.ms) && t.ms > 0)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
  if (timed.length === 0) return [];
  const width = Math.max(...timed.map((t) => (t.ms / 1000).toFixed(1).length));
  return [`Slowest ${timed.length} test files:`, ...timed.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(width)} s  ${t.file}`)];
}

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = (globalConfig && globalConfig.rootDir) || process.cwd();
  }

  onRunComplete(_contexts, results) {
    const slow = slowestLines(results.testResults || [], this.rootDir);
    if (slow.length > 0) process.stdout.write(`\n${slow.join('\n')}\n`);
    // A suite that fails to run has no failed tests of its own: count it once.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
module.exports.slowestLines = slowestLines;
