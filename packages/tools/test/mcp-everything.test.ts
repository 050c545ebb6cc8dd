/**
 * The MCP reference server (npm @modelcontextprotocol/server-everything),
 * spawned over stdio as a registered `mcp` tool: its tools listed under
 * Hookyard names, `echo` called end to end, and an injected argument hidden
 * from the schema the model sees (`properties` and `required`) and applied by
 * the runtime.
 */
import { silentLogger } from '@hookyard/core';
import { McpProvider } from '../src/mcp/mcp-provider';
import { ProviderRepo } from '../src/provider/provider-repo';
import { CATALOGUE_FORMATS, toolDefinitions } from '../src/catalogue';
import { testContext } from './support/context';
import { memoryToolStore } from './support/tool-store';
import { vendorMisses } from './support/vendor-rules';

const SERVER = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const NODE = process.execPath;

const { store, register } = memoryToolStore();
const repo = new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [new McpProvider({ logger: silentLogger(), stdioAllow: [NODE] })] });

beforeAll(async () => {
  await register({ name: 'everything', kind: 'mcp', transport: 'stdio', command: NODE, args: [SERVER, 'stdio'], timeout_ms: 20_000, injected: { b: 40 } });
}, 30_000);
afterAll(() => repo.close());

describe('MCP reference server over stdio', () => {
  it('lists its tools as everything__<tool>, echo and get-sum among them', async () => {
    const names = (await repo.tools('everything')).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
  }, 30_000);

  it('echo: called end to end over stdio', async () => {
    expect(await repo.exec('everything__echo', { message: 'hello from a hook' }, testContext())).toBe('Echo: hello from a hook');
  });

  it('an injected argument is gone from properties and required, and applied at call time', async () => {
    const schema = (await repo.schema('everything__get-sum')) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['a']);
    expect(schema.required).toEqual(['a']);
    const out = await repo.exec('everything__get-sum', { a: 2, b: 1000 }, testContext());
    expect(String(out)).toContain('42');
    expect(String(out)).not.toContain('1002');
  });

  it('its catalogue exports in every vendor shape by the vendor rules', async () => {
    const tools = await repo.tools('everything');
    for (const format of CATALOGUE_FORMATS) expect(vendorMisses(format, toolDefinitions(tools, format))).toEqual([]);
  });
});
