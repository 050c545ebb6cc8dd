import { silentLogger, type RemoteToolRecord } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { createToolRepo } from '../src/create-tool-repo';
import { toolPolicy } from '../src/policy';
import { RemoteRepo } from '../src/remote/remote-repo';
import { loadSettings } from '@hookyard/core';
import { startMockServer, type MockServer } from './support/mock-server';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.seen.length = 0;
});

function rec(overrides: Partial<RemoteToolRecord> = {}): RemoteToolRecord {
  return {
    name: 'svc',
    kind: 'http',
    endpoint: `${mock.url}/tools/svc/`,
    method: 'POST',
    timeout_ms: 2000,
    headers: { Authorization: 'Bearer t' },
    body_properties: {},
    protocol: 'openai',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const FUNCTIONS = {
  functions: [
    { name: 'other', description: 'not this one', parameters: { type: 'object', properties: { o: { type: 'string' } } } },
    { name: 'svc', description: 'Looks things up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  ],
};

describe('remote tool schema', () => {
  it('reads GET {endpoint}/schema and picks the function named like the tool', async () => {
    mock.respond = () => ({ body: JSON.stringify(FUNCTIONS) });
    const stores = createMemoryStores();
    await stores.tools.putTool(rec());
    const repo = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger() });
    const [info] = await repo.tools('svc');
    expect(info).toMatchObject({ name: 'svc', description: 'Looks things up.', provider: 'http', crashResumable: false });
    expect(info!.parameters).toEqual(FUNCTIONS.functions[1]!.parameters);
    expect(mock.seen[0]!.method).toBe('GET');
    expect(mock.seen[0]!.url).toBe('/tools/svc/schema');
    expect(mock.seen[0]!.headers.authorization).toBe('Bearer t');
  });

  it.each([
    [404, 'nope'],
    [500, '{"functions":[]}'],
    [200, 'not json'],
    [200, '{"tools":[]}'],
  ])('HTTP %i %j means no schema, not an error', async (status, body) => {
    mock.respond = () => ({ status, body });
    const stores = createMemoryStores();
    await stores.tools.putTool(rec());
    const repo = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger() });
    await expect(repo.schema('svc')).resolves.toEqual({ type: 'object' });
  });

  it('caches the schema for its time to live, then fetches again', async () => {
    mock.respond = () => ({ body: JSON.stringify(FUNCTIONS) });
    const stores = createMemoryStores();
    await stores.tools.putTool(rec());
    let now = 1_000_000;
    const repo = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger(), schemaTtlMs: 30_000, now: () => now });
    await repo.schema('svc');
    await repo.schema('svc');
    now += 29_999;
    await repo.schema('svc');
    expect(mock.seen).toHaveLength(1);
    now += 2;
    await repo.schema('svc');
    expect(mock.seen).toHaveLength(2);
  });

  it('lists only http records and answers nothing for names it does not hold', async () => {
    const stores = createMemoryStores();
    await stores.tools.putTool(rec());
    await stores.tools.putTool(rec({ name: 'spec', kind: 'openapi' }));
    const repo = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger() });
    expect(await repo.names()).toEqual(['svc']);
    expect(await repo.tools('spec')).toEqual([]);
    expect(await repo.schema('ghost')).toBeUndefined();
  });
});

describe('toolPolicy', () => {
  it('returns the retry policy and crash_resumable a record declares', async () => {
    mock.respond = () => ({ status: 404 });
    const stores = createMemoryStores();
    const retry = { max_attempts: 3, base_ms: 10, cap_ms: 100, kinds: ['unavailable'] };
    await stores.tools.putTool(rec({ retry, crash_resumable: true }));
    await stores.tools.putTool(rec({ name: 'plain' }));
    const repo = createToolRepo({ settings: loadSettings({}), toolStore: stores.tools, logger: silentLogger() });
    await expect(toolPolicy(repo, 'svc')).resolves.toEqual({ retry, crashResumable: true });
    await expect(toolPolicy(repo, 'plain')).resolves.toEqual({ crashResumable: false });
    await expect(toolPolicy(repo, 'echo')).resolves.toEqual({ crashResumable: false });
    await expect(toolPolicy(repo, 'ghost')).resolves.toEqual({ crashResumable: false });
  });
});

describe('createToolRepo', () => {
  it('composes the local tools the settings turn on with the registered services', async () => {
    const stores = createMemoryStores();
    await stores.tools.putTool(rec());
    const plain = createToolRepo({ settings: loadSettings({}), toolStore: stores.tools, logger: silentLogger() });
    expect(await plain.names()).toEqual(['echo', 'js_execution', 'print', 'svc', 'wait', 'webhook']);
    const all = createToolRepo({
      settings: loadSettings({}, { localFsRoot: __dirname, localShellEnabled: true, localShellAllow: ['echo'] }),
      toolStore: stores.tools,
      logger: silentLogger(),
    });
    expect(await all.names()).toEqual(['echo', 'js_execution', 'local_fs', 'local_shell', 'print', 'svc', 'wait', 'webhook']);
  });

  it('keeps local_shell off without a root even when enabled', async () => {
    const stores = createMemoryStores();
    const repo = createToolRepo({
      settings: loadSettings({}, { localShellEnabled: true, localShellAllow: ['ls'] }),
      toolStore: stores.tools,
      logger: silentLogger(),
    });
    expect(await repo.names()).not.toContain('local_shell');
  });
});
