/**
 * Prints one plain closing line, "N passed, N failed, N skipped", after jest's
 * own summary, so any CI reading the last line sees what ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failedSuites = results.numFailedTestSuites + results.numRuntimeErrorTestSuites;
    const failed = results.numFailedTests + (failedSuites > 0 && results.numFailedTests === 0 ? failedSuites : 0);
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
