/**
 * Footprint: the providers' libraries load when a provider is first used, not
 * with the package, so a role that never calls one never holds them. Checked
 * in a fresh process over the built package (what a role runs).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const DIST = join(__dirname, '..', 'dist');
const PROVIDER_LIBS = ['@grpc/grpc-js', 'protobufjs', '@modelcontextprotocol/sdk', '@openapi-contrib/openapi-schema-to-json-schema', 'quickjs-emscripten'];

/** The provider libraries in require.cache after running `code` with `tools` bound to the built package. */
function loadedAfter(code: string): string[] {
  const src = `
    const tools = require(${JSON.stringify(DIST)});
    (async () => { ${code} })().then(() => {
      const libs = ${JSON.stringify(PROVIDER_LIBS)};
      process.stdout.write(JSON.stringify(libs.filter((l) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + l + '/')))));
      process.exit(0);
    }, (err) => { console.error(err); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', src], { encoding: 'utf8' })) as string[];
}

describe('provider libraries load on first use', () => {
  it('requiring the package loads none of them', () => {
    expect(loadedAfter('')).toEqual([]);
  });

  it('a composed repo serving a local tool, with no provider records, loads none of them', () => {
    const loaded = loadedAfter(`
      const store = { listTools: async () => [], getTool: async () => null };
      const repo = tools.createToolRepo({ settings: { ...require(${JSON.stringify(join(__dirname, '..', '..', 'core', 'dist'))}).loadSettings({}) }, toolStore: store, logger: { warn() {}, info() {}, debug() {}, error() {} } });
      const names = await repo.names();
      if (!names.includes('echo')) throw new Error('echo missing: ' + names);
      await repo.tools('echo');
      await repo.close();`);
    expect(loaded).toEqual([]);
  });

  it('each library loads when its provider is used', () => {
    expect(loadedAfter(`tools.requestSchema({ type: 'object', nullable: true }, '3.0');`)).toEqual(['@openapi-contrib/openapi-schema-to-json-schema']);
    expect(
      loadedAfter(
        `tools.validateGrpcFields({ endpoint: 'grpc://example.com:50051', proto: 'syntax = "proto3"; service S { rpc M (R) returns (R); } message R {}' });`,
      ),
    ).toEqual(['protobufjs']);
  });
});
