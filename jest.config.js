/** One jest run over the workspace. Packages resolve to their sources, so tests need no build. */
const moduleNameMapper = {
  '^@hookyard/(core|store|bus|jq|tools|plan|report|role|api)$': '<rootDir>/packages/$1/src/index.ts',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  // jose ships ES modules only: jest's CommonJS runtime needs them rewritten (Node itself requires them as they are).
  '/node_modules/(\\.pnpm/jose@[^/]+/node_modules/)?jose/.+\\.js$': [
    'ts-jest',
    { isolatedModules: true, tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' } },
  ],
};
/** Dependencies left untransformed: all but jose (see transform). */
const transformIgnorePatterns = ['/node_modules/(?!(\\.pnpm/jose@[^/]+/node_modules/)?jose/)'];

module.exports = {
  testEnvironment: 'node',
  moduleNameMapper,
  transform,
  transformIgnorePatterns,
  testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
  // Most test files wait on Redis, NATS, child processes or a browser, not the CPU: two workers on the
  // 2-core CI machine (jest's default there is one) finish the suite in far less wall time. Every test
  // already waits for conditions rather than timing windows, so a busier machine slows it, never flips it.
  maxWorkers: 2,
  // Fails the run when dist/ is older than src/ (services and spawned roles run from dist/).
  globalSetup: '<rootDir>/test/support/global-setup.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
