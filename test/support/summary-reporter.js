/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after jest's
 * own summary, so any CI reading the last line sees what ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    // A suite that fails to run has no failed tests of its own: count it once.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
