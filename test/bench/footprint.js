#!/usr/bin/env node
/**
 * Each library's share of a role's baseline memory: every module is required
 * in a fresh Node process and the RSS and heap it adds are printed (after a
 * forced GC), with the heavy libraries each workspace package pulls in when it
 * is required. Tool providers' libraries (gRPC, MCP SDK, OpenAPI converter,
 * QuickJS) should appear under no package: they load on first use.
 *
 *   pnpm build && node test/bench/footprint.js
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { ROOT } = require('./lib/common');

const HEAVY = [
  '@grpc/grpc-js',
  'protobufjs',
  '@modelcontextprotocol/sdk',
  '@openapi-contrib',
  'quickjs-emscripten',
  'undici',
  'zod',
  'ajv-formats',
  'ajv',
  'ioredis',
  'nats',
  'express',
  'prom-client',
  'pino',
];
/** [label, package dir that depends on it, module id]. */
const LIBRARIES = [
  ['@grpc/grpc-js', 'packages/tools', '@grpc/grpc-js'],
  ['protobufjs', 'packages/tools', 'protobufjs'],
  [
    '@modelcontextprotocol/sdk (client + 3 transports)',
    'packages/tools',
    [
      '@modelcontextprotocol/sdk/client/index.js',
      '@modelcontextprotocol/sdk/client/stdio.js',
      '@modelcontextprotocol/sdk/client/sse.js',
      '@modelcontextprotocol/sdk/client/streamableHttp.js',
    ],
  ],
  ['@openapi-contrib/openapi-schema-to-json-schema', 'packages/tools', '@openapi-contrib/openapi-schema-to-json-schema'],
  ['quickjs-emscripten (in the js_execution worker only)', 'packages/tools', 'quickjs-emscripten'],
  ['undici', 'packages/tools', 'undici'],
  ['ajv', 'services/ingress', 'ajv'],
  ['ioredis', 'packages/store', 'ioredis'],
  ['nats', 'packages/bus', 'nats'],
  ['express', 'services/ingress', 'express'],
  ['prom-client', 'packages/core', 'prom-client'],
  ['pino', 'packages/core', 'pino'],
];
/** [workspace dir, its entry]: the packages, each role's service, and the CLI's `serve` (which loads every role). */
const PACKAGES = [
  ['packages/core', './dist'],
  ['packages/jq', './dist'],
  ['packages/store', './dist'],
  ['packages/bus', './dist'],
  ['packages/tools', './dist'],
  ['services/scheduler', './dist/start.js'],
  ['services/executor', './dist/start.js'],
  ['services/ingress', './dist/start.js'],
  ['packages/cli', './dist/serve.js'],
];

/** RSS/heap added by requiring `ids` from `dir`, and which heavy libraries got loaded, measured in a fresh process. */
function measure(dir, ids) {
  const src = `
    const { createRequire } = require('node:module');
    const req = createRequire(${JSON.stringify(path.join(ROOT, dir, 'package.json'))});
    gc(); const a = process.memoryUsage();
    for (const id of ${JSON.stringify([].concat(ids))}) req(id);
    gc(); const b = process.memoryUsage();
    const heavy = ${JSON.stringify(HEAVY)}.filter((h) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + h + '/')));
    process.stdout.write(JSON.stringify({ rss: b.rss - a.rss, heap: b.heapUsed - a.heapUsed, heavy }));`;
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', src], { encoding: 'utf8' }));
}

const mib = (b) => (b / 2 ** 20).toFixed(1).padStart(6);
console.log('library                                              RSS MiB  heap MiB');
for (const [label, dir, ids] of LIBRARIES) {
  const m = measure(dir, ids);
  console.log(`${label.padEnd(52)} ${mib(m.rss)}  ${mib(m.heap)}`);
}
console.log('\nrequired                          RSS MiB  heap MiB  heavy libraries loaded');
for (const [dir, entry] of PACKAGES) {
  const m = measure(dir, [entry]);
  console.log(`${path.join(dir, entry).padEnd(32)} ${mib(m.rss)}  ${mib(m.heap)}    ${m.heavy.join(', ') || '-'}`);
}
