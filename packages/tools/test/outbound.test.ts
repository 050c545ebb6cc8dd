/**
 * The outbound guard on every call Hookyard makes for a record, through the
 * deployment's composed repo: a registered HTTP service, an OpenAPI document
 * and an MCP server over HTTP on loopback are refused by default (forbidden,
 * nothing received) and reached once HOOKS_OUTBOUND_ALLOW_NETS allows the range.
 */
import { loadSettings, silentLogger } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { createToolRepo } from '../src/create-tool-repo';
import { McpProvider } from '../src/mcp/mcp-provider';
import { OpenApiProvider } from '../src/openapi/openapi-provider';
import { createOutboundGuard, parseAllowNets } from '../src/outbound';
import { validateToolRecord } from '../src/remote/validate';
import type { ClosableToolRepo } from '../src/types';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.seen.length = 0;
  mock.respond = (req) =>
    req.url.endsWith('/openapi.json')
      ? {
          status: 200,
          body: JSON.stringify({ openapi: '3.0.0', info: { title: 'x', version: '1' }, paths: { '/ping': { get: { operationId: 'ping', responses: {} } } } }),
        }
      : { status: 200, body: '{"ok":true}' };
});

async function repoWith(env: Record<string, string>, records: Record<string, unknown>[]): Promise<ClosableToolRepo> {
  const settings = loadSettings(env);
  const stores = createMemoryStores();
  for (const r of records) {
    const v = validateToolRecord(r, new Date());
    if (!v.ok) throw new Error(v.errors.join('; '));
    await stores.tools.putTool(v.record);
  }
  return createToolRepo({ settings, toolStore: stores.tools, logger: silentLogger() });
}

const records = () => [
  { name: 'svc', endpoint: `${mock.url}/call`, protocol: 'openai-object' },
  { name: 'pets', kind: 'openapi', endpoint: mock.url },
  { name: 'mcp', kind: 'mcp', transport: 'streamable-http', endpoint: `${mock.url}/mcp` },
];

describe('outbound calls for records', () => {
  it('refuse loopback by default: HTTP service, OpenAPI document, MCP over HTTP', async () => {
    const repo = await repoWith({}, records());
    try {
      await expect(repo.exec('svc', {}, testContext())).rejects.toMatchObject({
        kind: 'forbidden',
        notSent: true,
        message: expect.stringContaining('127.0.0.1 is a loopback address'),
      });
      // Discovery that cannot reach its server lists no tools from it.
      expect(await repo.names()).not.toContain('pets__ping');
      expect(mock.seen).toHaveLength(0);
    } finally {
      await repo.close();
    }
    // The providers themselves, through the same guard: the refusal is the reason.
    const guard = createOutboundGuard({ allowNets: [] });
    try {
      const [, pets, mcp] = records().map((r) => {
        const v = validateToolRecord(r, new Date());
        if (!v.ok) throw new Error(v.errors.join('; '));
        return v.record;
      });
      await expect(new OpenApiProvider({ logger: silentLogger(), fetch: guard.fetch }).discover(pets!)).rejects.toMatchObject({
        message: expect.stringContaining('127.0.0.1 is a loopback address'),
      });
      await expect(new McpProvider({ logger: silentLogger(), fetch: guard.fetch }).discover(mcp!)).rejects.toMatchObject({
        message: expect.stringContaining('127.0.0.1 is a loopback address'),
      });
      expect(mock.seen).toHaveLength(0);
    } finally {
      await guard.close();
    }
  });

  it('reach loopback when HOOKS_OUTBOUND_ALLOW_NETS allows it', async () => {
    const repo = await repoWith({ HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/8,::1' }, records());
    try {
      await expect(repo.exec('svc', {}, testContext())).resolves.toEqual({ ok: true });
      expect(await repo.names()).toContain('pets__ping');
      expect(mock.seen.map((s) => s.url)).toEqual(expect.arrayContaining(['/call', '/openapi.json']));
    } finally {
      await repo.close();
    }
  });

  it('the setting is checked at boot', () => {
    expect(() => loadSettings({ HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/33' })).toThrow(
      'HOOKS_OUTBOUND_ALLOW_NETS: not an address or CIDR range: "127.0.0.0/33"',
    );
    expect(() => loadSettings({ HOOKS_OUTBOUND_ALLOW_NETS: 'localhost' })).toThrow('HOOKS_OUTBOUND_ALLOW_NETS: not an address or CIDR range: "localhost"');
    expect(parseAllowNets(['10.0.0.0/8', '::1']).errors).toEqual([]);
  });
});
