/**
 * Registering a service that provides tools discovers it then and there, on
 * an executor (the ingress asks over the discovery channel; here the
 * in-memory twin): the answer counts its tools, or is a 422/502 saying why
 * and keeps nothing, or a 503 when no executor answers; `?discover=false`
 * keeps it unchecked. Each discovery's outcome is shown on `GET /api/tools`. Against real node:http servers on
 * 127.0.0.1: a small OpenAPI document, GitHub's published one (npm
 * @octokit/openapi, a hook on `issues/create`), and Hookyard's own
 * `/openapi.json` (a hook lists failed runs through it).
 */
import { readFileSync } from 'node:fs';
import { createSecretResolver, loadSettings, silentLogger } from '@hookyard/core';
import { createDiscoveryHub, type DiscoveryHub, type DiscoveryResponder } from '@hookyard/bus';
import { createMemoryStores } from '@hookyard/store';
import { createCatalogueToolRepo, createDiscoveryAnswer, createToolRepo, type ClosableToolRepo } from '@hookyard/tools';
import { startMockServer, type MockServer } from '../../../test/support/http-recorder';
import { freePort } from '../../../test/support/servers';
import { startHarness, TOKENS, type Harness } from './support/harness';

const GITHUB = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'));
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } },
  },
});

/** What each path of the document server answers. */
const DOCS: Record<string, { status: number; type: string; body: string | Buffer }> = {
  '/pets/openapi.json': { status: 200, type: 'application/json', body: PETS },
  '/html/openapi.json': { status: 200, type: 'text/html', body: '<html>login</html>' },
  '/swagger/openapi.json': { status: 200, type: 'application/json', body: '{"swagger":"2.0","info":{},"paths":{}}' },
  '/gone/openapi.json': { status: 404, type: 'text/plain', body: 'no such page' },
  '/github/openapi.json': { status: 200, type: 'application/json', body: GITHUB },
};

let docs: MockServer;
let docsUrl: string;
let closedUrl: string;
let h: Harness;
/** The executor's repo (it reaches the services) and the ingress's (it asks the executor). */
let tools: ClosableToolRepo;
let catalogue: ClosableToolRepo;
let hub: DiscoveryHub;
let served: DiscoveryResponder;
let answer: ReturnType<typeof createDiscoveryAnswer>;
/** Every request the document server received. */
const seen: string[] = [];

beforeAll(async () => {
  docs = await startMockServer((req) => {
    seen.push(req.url);
    const d = DOCS[req.url] ?? { status: 404, type: 'text/plain', body: 'not here' };
    return { status: d.status, contentType: d.type, headers: { connection: 'close' }, body: d.body };
  });
  docsUrl = docs.url;
  // A port that was just free: nothing listens there.
  closedUrl = `http://127.0.0.1:${await freePort()}`;

  const stores = createMemoryStores();
  // The document servers this test starts listen on loopback: allowed here explicitly.
  const settings = loadSettings({}, { openapiMaxBytes: 16 * 1024 * 1024, outboundAllowNets: ['127.0.0.0/8', '::1'] });
  const secrets = createSecretResolver({ env: { HOOKS_SECRET_HOOKYARD_TOKEN: `Bearer ${TOKENS.reader}` } });
  tools = createToolRepo({ settings, toolStore: stores.tools, logger: silentLogger(), secrets });
  hub = createDiscoveryHub();
  answer = createDiscoveryAnswer({ repo: tools, toolStore: stores.tools, logger: silentLogger() });
  served = hub.serve(answer);
  catalogue = createCatalogueToolRepo({
    settings: loadSettings({}, { discoveryTimeoutMs: 30_000 }),
    toolStore: stores.tools,
    logger: silentLogger(),
    ask: (r, ms) => hub.ask(r, ms),
    cacheMs: 0,
  });
  h = await startHarness({ stores, tools: catalogue, settings: { openapiMaxBytes: 16 * 1024 * 1024 } });
}, 60_000);
afterAll(async () => {
  await h.close();
  await catalogue.close();
  await hub.close();
  await tools.close();
  await docs.close();
});

const register = (record: Record<string, unknown>, query = '') => h.call(`/api/tools${query}`, { method: 'POST', role: 'admin', json: record });

describe('registering an openapi tool discovers it', () => {
  it('answers 201 with the tool count', async () => {
    const r = await register({ name: 'pets', kind: 'openapi', endpoint: `${docsUrl}/pets` });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ created: true, discovered: true, tools: 2, tool: { name: 'pets', kind: 'openapi' } });
    expect((await h.call('/api/tools/pets', { role: 'reader' })).body.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      'pets__get_pet',
      'pets__list_pets',
    ]);
  });

  it.each([
    ['unreachable', () => closedUrl, 502, 'could not be reached'],
    ['an HTTP error', () => `${docsUrl}/gone`, 502, 'answered HTTP 404: "no such page"'],
    ['not JSON', () => `${docsUrl}/html`, 422, 'is not JSON'],
    ['Swagger 2.0', () => `${docsUrl}/swagger`, 422, 'Swagger "2.0" documents are not supported'],
  ])('%s: refused (%#), saying why, and nothing is kept', async (_what, endpoint, status, says) => {
    const r = await register({ name: 'broken', kind: 'openapi', endpoint: endpoint() });
    expect(r.status).toBe(status);
    expect(r.body.error.message).toContain(
      `openapi tool 'broken' could not be discovered, so it was not registered: OpenAPI document of tool 'broken' (${endpoint()}/openapi.json)`,
    );
    expect(r.body.error.message).toContain(says);
    expect(r.body.error.details).toEqual(['register with ?discover=false to keep it without this check (for a service that is not up yet)']);
    expect((await h.call('/api/tools/broken', { role: 'reader' })).status).toBe(404);
  });

  it('?discover=false keeps it unchecked', async () => {
    const r = await register({ name: 'later', kind: 'openapi', endpoint: closedUrl }, '?discover=false');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ created: true, discovered: false });
    expect(r.body.tools).toBeUndefined();
    const listed = (await h.call('/api/tools', { role: 'reader' })).body.registered as { name: string; endpoint: string }[];
    expect(listed.find((t) => t.name === 'later')?.endpoint).toBe(closedUrl);
    // Kept, and reading it still tells the truth: no tools, and the last discovery's error.
    const later = await h.call('/api/tools/later', { role: 'reader' });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ name: 'later', provider: 'openapi', tools: [], discovery: { name: 'later', last_success: null } });
    expect(later.body.discovery.last_error).toEqual({ at: expect.any(String), kind: 'unavailable', message: expect.stringContaining('could not be reached') });
  });

  it("GET /api/tools shows each registration's last discovery: success with its tool count, or the error with its time", async () => {
    const listed = (await h.call('/api/tools', { role: 'reader' })).body.discovery as { name: string; last_success: unknown; last_error: unknown }[];
    expect(listed.find((d) => d.name === 'pets')).toEqual({ name: 'pets', last_success: { at: expect.any(String), tools: 2 }, last_error: null });
    expect(listed.find((d) => d.name === 'later')).toMatchObject({ last_success: null, last_error: { kind: 'unavailable' } });
  });

  it('no executor answering is a 503 saying so; the service is never asked and nothing is kept', async () => {
    await served.close();
    try {
      seen.length = 0;
      const r = await register({ name: 'nobody', kind: 'openapi', endpoint: `${docsUrl}/pets` });
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({
        kind: 'unavailable',
        message: expect.stringContaining('no executor answered the discovery request within 30000 ms (no executor is running)'),
      });
      expect(seen).toEqual([]);
      expect((await h.call('/api/tools/nobody', { role: 'reader' })).status).toBe(404);
    } finally {
      served = hub.serve(answer);
    }
  });

  it('an http tool is not discovered: its answer is as before, and it has no discovery status', async () => {
    const r = await register({ name: 'plain', endpoint: closedUrl, protocol: 'openai' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['created', 'tool']);
    const listed = (await h.call('/api/tools', { role: 'reader' })).body;
    expect(listed.registered.map((t: { name: string }) => t.name)).toContain('plain');
    expect(listed.discovery.map((d: { name: string }) => d.name)).not.toContain('plain');
  });
});

describe('GET /api/tools?format=', () => {
  it('returns the catalogue in each vendor shape, injected arguments hidden', async () => {
    expect((await register({ name: 'keyed', kind: 'openapi', endpoint: `${docsUrl}/pets`, injected: { id: 'pet-7' } })).status).toBe(201);
    const openai = await h.call('/api/tools?format=openai', { role: 'reader' });
    expect(openai.status).toBe(200);
    expect(openai.body.format).toBe('openai');
    const getPet = openai.body.tools.find((t: { function: { name: string } }) => t.function.name === 'keyed__get_pet');
    expect(getPet).toEqual({
      type: 'function',
      function: { name: 'keyed__get_pet', description: 'GET /pets/{id}', parameters: { type: 'object', properties: {}, additionalProperties: false } },
    });
    const anthropic = await h.call('/api/tools?format=anthropic', { role: 'reader' });
    expect(anthropic.body.tools.find((t: { name: string }) => t.name === 'echo')).toEqual(
      expect.objectContaining({ name: 'echo', input_schema: expect.objectContaining({ type: 'object' }) }),
    );
    const mcp = await h.call('/api/tools?format=mcp', { role: 'reader' });
    expect(mcp.body.tools.find((t: { name: string }) => t.name === 'keyed__get_pet')).toEqual({
      name: 'keyed__get_pet',
      description: 'GET /pets/{id}',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    });
  });

  it('an unknown format is a 400 naming the ones there are', async () => {
    const r = await h.call('/api/tools?format=cohere', { role: 'reader' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('format must be one of openai, openai-responses, anthropic, gemini, mcp, got "cohere"');
  });
});

describe("GitHub's OpenAPI document", () => {
  it('registers with all of its operations, and a hook on issues/create is accepted', async () => {
    const operations = Object.values(JSON.parse(GITHUB.toString('utf8')).paths as Record<string, Record<string, unknown>>).reduce(
      (n, item) => n + ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].filter((m) => item[m]).length,
      0,
    );
    const r = await register({ name: 'github', kind: 'openapi', endpoint: `${docsUrl}/github`, timeout_ms: 30_000 });
    expect(r.status).toBe(201);
    expect(r.body.tools).toBe(operations);
    const hook = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: {
        name: 'file-bug',
        topic: 'alerts',
        tool: 'github__issues_create',
        tool_kwargs: { owner: 'octocat', repo: 'hello-world', title: 'Disk full', labels: ['ops'], milestone: null },
      },
    });
    expect(hook.status).toBe(201);
    const wrong = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: {
        name: 'file-bug-2',
        topic: 'alerts',
        tool: 'github__issues_create',
        tool_kwargs: { owner: 'octocat', repo: 'hello-world', title: 'x', milestone: true },
      },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.join('\n')).toContain('tool_kwargs/milestone');
  }, 60_000);
});

describe("Hookyard's own API as a tool source", () => {
  it('its /openapi.json registers as an openapi tool, and a hook lists failed runs through it', async () => {
    const r = await register({ name: 'hookyard', kind: 'openapi', endpoint: h.url, headers: { Authorization: { secret: 'env:HOOKS_SECRET_HOOKYARD_TOKEN' } } });
    expect(r.status).toBe(201);
    expect(r.body.tools).toBeGreaterThan(20);
    const hook = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'failed-report', topic: 'daily', tool: 'hookyard__list_runs', tool_kwargs: { status: 'failed', limit: 10 } },
    });
    expect(hook.status).toBe(201);
    const bad = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'failed-report-2', topic: 'daily', tool: 'hookyard__list_runs', tool_kwargs: { status: 'exploded' } },
    });
    expect(bad.status).toBe(400);
    // The call the hook makes, through the composed repo as the executor makes it: GET /api/hook-runs?status=failed&limit=10.
    const out = (await tools.exec(
      'hookyard__list_runs',
      { status: 'failed', limit: 10 },
      {
        runId: 'r1',
        hook: 'failed-report',
        attempt: 1,
        idempotencyKey: 'r1',
        extras: {},
        signal: new AbortController().signal,
        logger: silentLogger(),
      },
    )) as { runs: unknown[] };
    expect(out).toEqual((await h.call('/api/hook-runs?status=failed&limit=10', { role: 'reader' })).body);
    expect(Array.isArray(out.runs)).toBe(true);
  });
});
