/**
 * The OpenAPI provider against a node:http mock on 127.0.0.1 serving an
 * OpenAPI 3 document: path, query, header and body parameters, an injected
 * credential header, a relative server path, refresh after the TTL, and a
 * document that cannot be fetched.
 */
import { createLogger, createSecretResolver, HookyardError, type HttpExchange } from '@hookyard/core';
import { OpenApiProvider } from '../src/openapi/openapi-provider';
import { ProviderRepo } from '../src/provider/provider-repo';
import { testContext } from './support/context';
import { startMockServer, type MockServer, type Reply, type SeenRequest } from './support/mock-server';
import { memoryToolStore } from './support/tool-store';

function petstore(extraPaths: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'pets', version: '1' },
    servers: [{ url: '/v1' }],
    paths: {
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, description: 'The pet', schema: { type: 'string' } }],
        get: {
          operationId: 'getPet',
          summary: 'One pet',
          parameters: [
            { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
            { name: 'session', in: 'cookie', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
        delete: { summary: 'Remove a pet', responses: { '204': { description: 'gone' } } },
      },
      '/pets': {
        post: {
          operationId: 'createPet',
          parameters: [{ $ref: '#/components/parameters/ApiKey' }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
          responses: { '201': { description: 'made' } },
        },
      },
      '/notes': { get: { operationId: 'listNotes', responses: { '200': { description: 'text' } } } },
      ...extraPaths,
    },
    components: {
      parameters: { ApiKey: { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } } },
      schemas: {
        NewPet: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, tag: { type: 'string' }, owner: { $ref: '#/components/schemas/Owner' } },
        },
        Owner: { type: 'object', properties: { name: { type: 'string' }, pets: { type: 'array', items: { $ref: '#/components/schemas/NewPet' } } } },
      },
    },
  };
}

async function rejection(p: Promise<unknown>): Promise<HookyardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HookyardError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

let mock: MockServer;
let doc: { status: number; body: string };
const calls = () => mock.seen.filter((s) => s.url !== '/api/openapi.json');
const docFetches = () => mock.seen.filter((s) => s.url === '/api/openapi.json').length;

/** Answers the document from `doc` and everything else with `answer`. */
let answer: (req: SeenRequest) => Reply;

beforeAll(async () => {
  mock = await startMockServer();
  mock.respond = (req) => (req.url === '/api/openapi.json' ? doc : answer(req));
});
afterAll(() => mock.close());

beforeEach(() => {
  mock.seen.length = 0;
  doc = { status: 200, body: JSON.stringify(petstore()) };
  answer = () => ({ status: 200, body: '{"ok":true}' });
});

/** The secrets the record references, as the executor's environment would hold them. */
const ENV: NodeJS.ProcessEnv = { HOOKS_SECRET_PETS_API_KEY: 'secret-1', HOOKS_SECRET_PETS_TOKEN: 'Bearer t-0ken' };

async function setup(
  options: { now?: () => number; documentTtlMs?: number; retryAfterMs?: number; operations?: string[]; headers?: Record<string, unknown> } = {},
) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', destination: { write: (s: string) => lines.push(s) } });
  const { store, register } = memoryToolStore();
  const secrets = createSecretResolver({ env: ENV });
  const provider = new OpenApiProvider({ logger, now: options.now, documentTtlMs: options.documentTtlMs, retryAfterMs: options.retryAfterMs, secrets });
  const repo = new ProviderRepo({ toolStore: store, logger, providers: [provider], secrets });
  await register({
    name: 'petstore',
    kind: 'openapi',
    endpoint: `${mock.url}/api`,
    headers: options.headers ?? { 'X-Client': 'hookyard', Authorization: { secret: 'env:HOOKS_SECRET_PETS_TOKEN' } },
    injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' } },
    ...(options.operations ? { operations: options.operations } : {}),
  });
  return { repo, lines };
}

describe('discovery', () => {
  it('one tool per operation: <registration>__<operationId>, or a method_path slug without one', async () => {
    const { repo } = await setup();
    expect(await repo.names()).toEqual(['petstore__create_pet', 'petstore__delete_pets_pet_id', 'petstore__get_pet', 'petstore__list_notes']);
    const infos = await repo.tools('petstore');
    expect(infos.map((t) => [t.name, t.provider, t.description]).sort()).toEqual([
      ['petstore__create_pet', 'openapi', 'POST /pets'],
      ['petstore__delete_pets_pet_id', 'openapi', 'Remove a pet'],
      ['petstore__get_pet', 'openapi', 'One pet'],
      ['petstore__list_notes', 'openapi', 'GET /notes'],
    ]);
    expect((await repo.tools('petstore__get_pet')).map((t) => t.name)).toEqual(['petstore__get_pet']);
  });

  it('merges path, query and header parameters into one schema (path-level ones too; no cookies)', async () => {
    const { repo } = await setup();
    expect(await repo.schema('petstore__get_pet')).toEqual({
      type: 'object',
      properties: {
        petId: { type: 'string', description: 'The pet' },
        fields: { type: 'array', items: { type: 'string' } },
        'X-Trace': { type: 'string' },
      },
      required: ['petId'],
      additionalProperties: false,
    });
  });

  it('merges the JSON body properties (references inlined, a cycle cut) and hides the injected header from properties and required', async () => {
    const { repo } = await setup();
    const schema = (await repo.schema('petstore__create_pet')) as { properties: Record<string, { properties?: Record<string, unknown> }>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['name', 'tag', 'owner']);
    expect(schema.required).toEqual(['name']);
    expect(schema.properties.owner?.properties).toEqual({ name: { type: 'string' }, pets: { type: 'array', items: {} } });
    expect(JSON.stringify(schema)).not.toContain('X-Api-Key');
  });

  it('the operations list narrows what is exposed (by operationId or by tool-name part)', async () => {
    const { repo } = await setup({ operations: ['getPet', 'list_notes'] });
    expect(await repo.names()).toEqual(['petstore__get_pet', 'petstore__list_notes']);
    expect((await rejection(repo.exec('petstore__create_pet', { name: 'x' }, testContext()))).kind).toBe('not_found');
  });
});

describe('calls', () => {
  it('maps arguments into the encoded path, the query (a list repeats) and headers; returns the JSON reply', async () => {
    const { repo } = await setup();
    answer = () => ({ status: 200, body: '{"id":"a b/c","name":"rex"}' });
    const result = await repo.exec('petstore__get_pet', { petId: 'a b/c', fields: ['name', 'tag'], 'X-Trace': 't-1' }, testContext());
    expect(result).toEqual({ id: 'a b/c', name: 'rex' });
    const [req] = calls();
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/api/v1/pets/a%20b%2Fc?fields=name&fields=tag');
    expect(req?.headers['x-trace']).toBe('t-1');
    expect(req?.headers['x-client']).toBe('hookyard');
    expect(req?.headers.authorization).toBe('Bearer t-0ken');
    expect(req?.headers['idempotency-key']).toBe('idem-123');
    // The document was fetched with the resolved header too.
    expect(mock.seen.find((s) => s.url === '/api/openapi.json')?.headers.authorization).toBe('Bearer t-0ken');
    expect(req?.body.length).toBe(0);
  });

  it('sends the JSON body and the injected credential header, which the caller cannot override', async () => {
    const { repo } = await setup();
    answer = () => ({ status: 201, body: '{"made":true}' });
    expect(await repo.exec('petstore__create_pet', { name: 'rex', tag: 'dog', 'X-Api-Key': 'forged' }, testContext())).toEqual({ made: true });
    const [req] = calls();
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/api/v1/pets');
    expect(req?.body.toString('utf8')).toBe('{"name":"rex","tag":"dog"}');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['x-api-key']).toBe('secret-1');
  });

  it('tells the call each secret it uses (the header reference and the injected credential), before a cold document fetch too', async () => {
    doc = { status: 401, body: 'bad credentials: Bearer t-0ken' };
    const { repo } = await setup();
    const told: string[] = [];
    const err = await rejection(repo.exec('petstore__create_pet', { name: 'rex' }, testContext({ onSecret: (v) => told.push(v) })));
    expect(err.message).toContain('t-0ken');
    expect(new Set(told)).toEqual(new Set(['Bearer t-0ken', 'secret-1']));
    doc = { status: 200, body: JSON.stringify(petstore()) };
    const warm = (await setup()).repo;
    await warm.names();
    const again: string[] = [];
    await warm.exec('petstore__create_pet', { name: 'rex' }, testContext({ onSecret: (v) => again.push(v) }));
    expect(new Set(again)).toEqual(new Set(['Bearer t-0ken', 'secret-1']));
  });

  it('a header reference that is not set: the call fails internal quoting the reference; nothing is fetched or sent', async () => {
    const { repo, lines } = await setup({ headers: { Authorization: { secret: 'env:HOOKS_SECRET_PETS_MISSING' } } });
    const err = await rejection(repo.exec('petstore__get_pet', { petId: '1' }, testContext()));
    expect(err.kind).toBe('internal');
    expect(err.message).toBe(
      "OpenAPI document of tool 'petstore' (" +
        `${mock.url}/api/openapi.json` +
        '): headers.Authorization: secret reference env:HOOKS_SECRET_PETS_MISSING is not set',
    );
    expect(mock.seen).toHaveLength(0);
    expect(lines.join('')).toContain('env:HOOKS_SECRET_PETS_MISSING');
  });

  it('an injected reference that is not set: the call fails internal quoting the reference; nothing is sent', async () => {
    const { repo } = await setup();
    delete ENV.HOOKS_SECRET_PETS_API_KEY;
    try {
      const err = await rejection(repo.exec('petstore__create_pet', { name: 'rex' }, testContext()));
      expect(err.kind).toBe('internal');
      expect(err.message).toBe("tool 'petstore__create_pet': injected.X-Api-Key: secret reference env:HOOKS_SECRET_PETS_API_KEY is not set");
      expect(calls()).toHaveLength(0);
      // An operation that does not take the injected argument does not need it.
      expect(await repo.exec('petstore__list_notes', {}, testContext())).toEqual({ ok: true });
    } finally {
      ENV.HOOKS_SECRET_PETS_API_KEY = 'secret-1';
    }
  });

  it('returns a reply that is not JSON as text', async () => {
    const { repo } = await setup();
    answer = () => ({ status: 200, body: 'line one\nline two', contentType: 'text/plain' });
    expect(await repo.exec('petstore__list_notes', {}, testContext())).toBe('line one\nline two');
  });

  it('a non-2xx answer is an error naming the operation and the status, quoting the body', async () => {
    const { repo } = await setup();
    answer = () => ({ status: 404, body: '{"error":"no such pet"}' });
    const err = await rejection(repo.exec('petstore__delete_pets_pet_id', { petId: '7' }, testContext()));
    expect(err.kind).toBe('not_found');
    expect(err.message).toContain("operation 'petstore__delete_pets_pet_id' (DELETE /pets/{petId})");
    expect(err.message).toContain('HTTP 404');
    expect(err.message).toContain(JSON.stringify('{"error":"no such pet"}'));
    expect(calls()[0]?.url).toBe('/api/v1/pets/7');
  });

  it("tells the call context each operation's reply (status, headers, body excerpt), a failure's and a success's", async () => {
    const { repo } = await setup();
    const seen: HttpExchange[] = [];
    answer = () => ({ status: 404, body: '{"error":"no such pet"}' });
    await rejection(repo.exec('petstore__delete_pets_pet_id', { petId: '7' }, testContext({ onHttp: (x) => seen.push(x) })));
    answer = () => ({ status: 200, body: 'line one', contentType: 'text/plain' });
    await repo.exec('petstore__list_notes', {}, testContext({ onHttp: (x) => seen.push(x) }));
    expect(seen).toEqual([
      expect.objectContaining({ status: 404, body: '{"error":"no such pet"}', body_bytes: 23, body_truncated: false }),
      expect.objectContaining({ status: 200, body: 'line one', headers: expect.objectContaining({ 'content-type': 'text/plain' }) }),
    ]);
  });

  it('refuses an argument the operation has no place for, and a missing path parameter, before sending', async () => {
    const { repo } = await setup();
    const extra = await rejection(repo.exec('petstore__get_pet', { petId: '1', colour: 'red' }, testContext()));
    expect(extra.kind).toBe('bad_input');
    expect(extra.message).toContain('has no parameter "colour"');
    const missing = await rejection(repo.exec('petstore__get_pet', {}, testContext()));
    expect(missing.kind).toBe('bad_input');
    expect(missing.message).toContain("path parameter 'petId' is missing");
    expect(calls()).toHaveLength(0);
  });

  it.each(['..', '.', '%2e%2e', '%2E.', '.%2e', '%252e%252e'])('refuses the dot segment %s as a path parameter, before sending', async (petId) => {
    const { repo } = await setup();
    const err = await rejection(repo.exec('petstore__get_pet', { petId }, testContext()));
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain(`path parameter 'petId' must not be a dot segment, got ${JSON.stringify(petId)}`);
    expect(calls()).toHaveLength(0);
  });

  it('still sends a value that only contains dots', async () => {
    const { repo } = await setup();
    await repo.exec('petstore__get_pet', { petId: '...' }, testContext()).catch(() => undefined);
    await repo.exec('petstore__get_pet', { petId: 'a..b' }, testContext()).catch(() => undefined);
    expect(calls().map((c) => c.url)).toEqual(['/api/v1/pets/...', '/api/v1/pets/a..b']);
  });
});

describe('the document cache', () => {
  it('is reused within the TTL and fetched again after it', async () => {
    let clock = 1_000_000;
    const { repo } = await setup({ now: () => clock, documentTtlMs: 60_000 });
    expect(await repo.names()).not.toContain('petstore__list_owners');
    doc = { status: 200, body: JSON.stringify(petstore({ '/owners': { get: { operationId: 'listOwners', responses: {} } } })) };
    clock += 59_000;
    expect(await repo.names()).not.toContain('petstore__list_owners');
    expect(docFetches()).toBe(1);
    clock += 2_000;
    expect(await repo.names()).toContain('petstore__list_owners');
    expect(docFetches()).toBe(2);
  });

  it('a failed refresh keeps the last good document and logs; the next try waits retryAfterMs', async () => {
    let clock = 1_000_000;
    const { repo, lines } = await setup({ now: () => clock, documentTtlMs: 1_000, retryAfterMs: 5_000 });
    const before = await repo.names();
    doc = { status: 503, body: 'down for maintenance' };
    clock += 2_000;
    expect(await repo.names()).toEqual(before);
    expect(await repo.exec('petstore__list_notes', {}, testContext())).toEqual({ ok: true });
    expect(docFetches()).toBe(2);
    expect(lines.join('')).toContain('the last good document stays in use');
    expect(lines.join('')).toContain('down for maintenance');
    clock += 6_000;
    await repo.names();
    expect(docFetches()).toBe(3);
  });

  it('a document that was never fetched: calls are unavailable quoting the answer, listings leave the service out', async () => {
    doc = { status: 500, body: 'boom' };
    const { repo, lines } = await setup();
    expect(await repo.names()).toEqual([]);
    const err = await rejection(repo.exec('petstore__get_pet', { petId: '1' }, testContext()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain('/api/openapi.json');
    expect(err.message).toContain('HTTP 500: "boom"');
    expect(lines.join('')).toContain('OpenAPI document could not be fetched');
  });

  it('a Swagger 2.0 document is refused, saying so', async () => {
    doc = { status: 200, body: '{"swagger":"2.0","paths":{}}' };
    const { repo } = await setup();
    const err = await rejection(repo.exec('petstore__get_pet', { petId: '1' }, testContext()));
    expect(err.kind).toBe('unavailable');
    expect(err.message).toContain(`is not usable: Swagger "2.0" documents are not supported: serve the API's OpenAPI 3 document`);
  });

  it('a document of another version is refused, quoting it', async () => {
    doc = { status: 200, body: '{"openapi":"2.5","paths":{}}' };
    const { repo } = await setup();
    const err = await rejection(repo.exec('petstore__get_pet', { petId: '1' }, testContext()));
    expect(err.message).toContain('is not usable: only OpenAPI 3 documents are supported, got openapi "2.5"');
  });
});
