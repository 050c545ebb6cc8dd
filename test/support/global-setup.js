'use strict';
// Jest's globalSetup: refuse to run tests against a build older than its sources.
const { join } = require('node:path');
const { staleBuilds } = require('./build-freshness');

module.exports = async function globalSetup() {
  const problems = staleBuilds(join(__dirname, '..', '..'));
  if (problems.length === 0) return;
  const shown = problems.slice(0, 10).map((p) => `  - ${p}`);
  if (problems.length > 10) shown.push(`  - and ${problems.length - 10} more`);
  throw new Error(
    `The build is older than the sources, so tests would run old code (services, the CLI and spawned roles run from dist/):\n${shown.join('\n')}\nRun \`pnpm build\` first (\`pnpm test\` does).`,
  );
};
