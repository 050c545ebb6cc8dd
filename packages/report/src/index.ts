export { createRunReporter } from './run-reporter';
export type { PlatformEventKeeper, RunReporter, RunReporterDeps } from './run-reporter';
