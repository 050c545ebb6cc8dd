import { HookyardError, silentLogger, unavailable } from '@hookyard/core';
import { CatalogueRepo } from '../src/discovery/catalogue-repo';
import type { DiscoveryRequest } from '../src/discovery/wire';
import { OpenApiDocumentError } from '../src/openapi/discover';
import type { ToolInfo, ToolRepo } from '../src/types';
import { testContext } from './support/context';
import { memoryToolStore } from './support/tool-store';

/**
 * The ingress's view of the registered tools: what the executors describe,
 * asked through `ask` (here a scripted executor), never the services.
 */
const PETS_TOOLS: ToolInfo[] = [
  { name: 'pets__list_pets', description: 'GET /pets', parameters: { type: 'object' }, provider: 'openapi' },
  { name: 'svc', description: 'from /schema', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, provider: 'http' },
];

async function setup(answer: (r: DiscoveryRequest) => Promise<unknown>) {
  const { store, register } = memoryToolStore();
  await register({ name: 'svc', endpoint: 'https://svc.example/call', protocol: 'openai', description: 'a service' });
  await register({ name: 'pets', kind: 'openapi', endpoint: 'https://pets.example' });
  const asked: DiscoveryRequest[] = [];
  let now = 1000;
  const repo = new CatalogueRepo({
    ask: async (r) => {
      asked.push(r);
      return answer(r);
    },
    timeoutMs: 50,
    toolStore: store,
    logger: silentLogger(),
    cacheMs: 1000,
    now: () => now,
  });
  return { repo, asked, store, tick: (ms: number) => (now += ms) };
}

const silent = async () => {
  throw unavailable('no executor answered the discovery request within 50 ms (no executor is subscribed)');
};

describe('CatalogueRepo', () => {
  it("names and schemas are the executors' catalogue, reused for cacheMs, then asked again", async () => {
    const { repo, asked, tick } = await setup(async () => ({ ok: true, tools: PETS_TOOLS }));
    expect(await repo.names()).toEqual(['pets__list_pets', 'svc']);
    expect(await repo.schema('svc')).toEqual(PETS_TOOLS[1]!.parameters);
    expect((await repo.tools('pets')).map((t) => t.name)).toEqual(['pets__list_pets']);
    expect(asked).toEqual([{ op: 'catalogue' }]);
    tick(1000);
    await repo.names();
    expect(asked).toHaveLength(2);
  });

  it('a name no record could own is answered without asking', async () => {
    const { repo, asked } = await setup(async () => ({ ok: true, tools: PETS_TOOLS }));
    expect(await repo.tools('ghost')).toEqual([]);
    expect(await repo.tools('ghost__op')).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('when the executors fall silent, the last catalogue they gave stays in use', async () => {
    let up = true;
    const { repo, tick } = await setup(async () => (up ? { ok: true, tools: PETS_TOOLS } : silent()));
    expect(await repo.names()).toContain('pets__list_pets');
    up = false;
    tick(5000);
    expect(await repo.names()).toContain('pets__list_pets');
    expect(await repo.schema('svc')).toEqual(PETS_TOOLS[1]!.parameters);
  });

  it('with no answer ever: an HTTP service from its record alone; a provider tool throws unavailable', async () => {
    const { repo } = await setup(silent);
    expect(await repo.names()).toEqual(['svc']);
    expect(await repo.tools('svc')).toEqual([
      { name: 'svc', description: 'a service', parameters: { type: 'object' }, provider: 'http', crashResumable: false },
    ]);
    await expect(repo.tools('pets__list_pets')).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining('no executor answered') });
    await expect(repo.tools('pets')).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('discoverRecord names a pending registration the store holds, never the record; its error comes back with its kind, a bad document as OpenApiDocumentError', async () => {
    const answers: unknown[] = [
      { ok: true, tools: ['pets__list_pets'] },
      { ok: false, error: { kind: 'unavailable', message: 'could not be reached: ECONNREFUSED' } },
      { ok: false, error: { kind: 'unavailable', message: 'is not JSON', document: 'not_json' } },
      { ok: 'maybe' },
    ];
    const taken: unknown[] = [];
    const { repo, asked, store } = await setup(async (r) => {
      // The executor's side: the request names a pending registration, which the store holds.
      if ('pending' in r) taken.push(await store.takePendingTool(r.pending));
      return answers.shift();
    });
    const record = { name: 'pets', kind: 'openapi', endpoint: 'https://pets.example' } as Parameters<CatalogueRepo['discoverRecord']>[0];
    expect(await repo.discoverRecord(record)).toEqual(['pets__list_pets']);
    expect(asked).toEqual([{ op: 'discover', pending: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) }]);
    expect(JSON.stringify(asked)).not.toContain('pets.example');
    expect(taken).toEqual([record]);
    const down = await repo.discoverRecord(record).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(HookyardError);
    expect(down).not.toBeInstanceOf(OpenApiDocumentError);
    expect(down).toMatchObject({ kind: 'unavailable', message: 'could not be reached: ECONNREFUSED' });
    await expect(repo.discoverRecord(record)).rejects.toBeInstanceOf(OpenApiDocumentError);
    await expect(repo.discoverRecord(record)).rejects.toMatchObject({ kind: 'internal', message: expect.stringContaining('unexpected shape') });
    // An http record is not discovered: nobody is asked.
    expect(await repo.discoverRecord({ ...record, kind: 'http' })).toBeUndefined();
    expect(asked).toHaveLength(4);
  });

  it('never calls a tool', async () => {
    const { repo, asked } = await setup(async () => ({ ok: true, tools: PETS_TOOLS }));
    // Called as any ToolRepo is: the executor-facing signature, with arguments and a context.
    const tools: ToolRepo = repo;
    await expect(tools.exec('svc', {}, testContext())).rejects.toMatchObject({ kind: 'internal', message: expect.stringContaining('cannot be called here') });
    expect(asked).toEqual([]);
  });
});
