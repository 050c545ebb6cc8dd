/**
 * GitHub's published OpenAPI document (npm @octokit/openapi,
 * generated/api.github.com.json: 13 MB, every REST operation) served byte for
 * byte by a node:http server on 127.0.0.1 and discovered whole, once for this
 * file: one tool per operation, every name fit for the model APIs, every
 * schema compiling with ajv in strict mode, and calls landing on the wire as
 * GitHub expects them.
 */
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { HookyardError, createLogger, silentLogger } from '@hookyard/core';
import { OpenApiProvider } from '../src/openapi/openapi-provider';
import { ProviderRepo } from '../src/provider/provider-repo';
import { CATALOGUE_FORMATS, toolDefinitions } from '../src/catalogue';
import type { ToolInfo } from '../src/types';
import { vendorMisses } from './support/vendor-rules';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';
import { memoryToolStore } from './support/tool-store';

const DOCUMENT = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The operations the document declares, counted from the document itself. */
function operationIds(): string[] {
  const doc = JSON.parse(DOCUMENT) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(doc.paths).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m]!.operationId!));
}

let mock: MockServer;
let tools: ToolInfo[];
let repo: ProviderRepo;

beforeAll(async () => {
  mock = await startMockServer();
  // `Connection: close`: discovery takes seconds on a busy machine, past the server's keep-alive; a reused socket it closed meanwhile would reset the first call.
  mock.respond = (req) =>
    req.url === '/api/openapi.json' ? { status: 200, body: DOCUMENT, headers: { connection: 'close' } } : { status: 201, body: '{"number":1347}' };
  const { store, register } = memoryToolStore();
  const provider = new OpenApiProvider({ logger: silentLogger() });
  repo = new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [provider] });
  await register({ name: 'github', kind: 'openapi', endpoint: `${mock.url}/api`, timeout_ms: 20_000, headers: { Accept: 'application/vnd.github+json' } });
  tools = await repo.tools('github');
}, 60_000);
afterAll(async () => {
  await repo.close();
  await mock.close();
});

describe("GitHub's OpenAPI document", () => {
  it('is discovered whole: one tool per operation', () => {
    const ids = operationIds();
    expect(ids.length).toBeGreaterThan(1000);
    expect(tools).toHaveLength(ids.length);
    expect(new Set(tools.map((t) => t.name)).size).toBe(ids.length);
  });

  it('every tool name matches ^[a-zA-Z0-9_-]{1,64}$ (the model APIs refuse others)', () => {
    const bad = tools.map((t) => t.name).filter((n) => !/^[a-zA-Z0-9_-]{1,64}$/.test(n));
    expect(bad).toEqual([]);
    // The longest ones were shortened with a hash, not dropped.
    expect(tools.filter((t) => /_[0-9a-f]{8}$/.test(t.name)).length).toBeGreaterThan(40);
  });

  it('every schema compiles with ajv in strict mode', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const failures: string[] = [];
    for (const t of tools) {
      try {
        ajv.compile(t.parameters);
      } catch (err) {
        failures.push(`${t.name}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('issues/create takes what GitHub documents: a title, an optional nullable milestone, labels', () => {
    const t = tools.find((x) => x.name === 'github__issues_create')!;
    expect(t.parameters.required).toEqual(['owner', 'repo', 'title']);
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(t.parameters);
    expect(validate({ owner: 'octocat', repo: 'hello', title: 'Found a bug', milestone: null, labels: ['bug'] })).toBe(true);
    expect(validate({ owner: 'octocat', repo: 'hello', title: 'Found a bug', milestone: 1 })).toBe(true);
    expect(validate({ owner: 'octocat', repo: 'hello' })).toBe(false);
  });

  it('a POST with a JSON body and a path parameter holding a space lands as GitHub expects', async () => {
    mock.seen.length = 0;
    const out = await repo.exec(
      'github__issues_create',
      { owner: 'octo cat', repo: 'hello-world', title: 'Found a bug', labels: ['bug'], milestone: null },
      testContext(),
    );
    expect(out).toEqual({ number: 1347 });
    expect(mock.seen).toHaveLength(1);
    const req = mock.seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/repos/octo%20cat/hello-world/issues');
    expect(req.body.toString('utf8')).toBe('{"title":"Found a bug","labels":["bug"],"milestone":null}');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.accept).toBe('application/vnd.github+json');
  });

  it('a GET maps its query parameters (repos/list-for-org)', async () => {
    mock.seen.length = 0;
    await repo.exec('github__repos_list-for-org', { org: 'octo-org', type: 'public', per_page: 5 }, testContext());
    expect(mock.seen.map((s) => [s.method, s.url])).toEqual([['GET', '/api/orgs/octo-org/repos?type=public&per_page=5']]);
  });
});

describe("GitHub's catalogue exported for the model APIs", () => {
  it.each(CATALOGUE_FORMATS)('%s: every one of its tools follows the vendor rules', (format) => {
    const defs = toolDefinitions(tools, format);
    expect(defs).toHaveLength(tools.length);
    expect(vendorMisses(format, defs)).toEqual([]);
  });

  it('openai: the descriptions GitHub writes past 1024 characters are cut there', () => {
    const longer = tools.filter((t) => t.description.length > 1024);
    expect(longer.length).toBeGreaterThan(0);
    const defs = toolDefinitions(longer, 'openai') as Array<{ function: { description: string } }>;
    for (const d of defs) {
      expect(d.function.description.length).toBeLessThanOrEqual(1024);
      expect(d.function.description.length).toBeGreaterThan(1000);
      expect(d.function.description.endsWith('…')).toBe(true);
    }
  });
});

describe('the document size cap (HOOKS_OPENAPI_MAX_BYTES)', () => {
  it('a document over the cap is refused, naming the setting', async () => {
    const lines: string[] = [];
    const { store, register } = memoryToolStore();
    const provider = new OpenApiProvider({
      logger: createLogger({ level: 'warn', destination: { write: (s: string) => lines.push(s) } }),
      maxDocumentBytes: 1_000_000,
    });
    await register({ name: 'github', kind: 'openapi', endpoint: `${mock.url}/api` });
    const record = (await store.getTool('github'))!;
    const err = await provider.check(record).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookyardError);
    expect((err as HookyardError).message).toBe(
      `OpenAPI document of tool 'github' (${mock.url}/api/openapi.json) replied with more than 1000000 bytes (the cap is HOOKS_OPENAPI_MAX_BYTES)`,
    );
    await provider.close();
  });
});
