import { HookyardError, silentLogger, type RemoteProtocol, type RemoteToolRecord } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { RemoteRepo } from '../src/remote/remote-repo';
import { testContext } from './support/context';
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

function record(protocol: RemoteProtocol, overrides: Partial<RemoteToolRecord> = {}): RemoteToolRecord {
  return {
    name: 'svc',
    kind: 'http',
    endpoint: `${mock.url}/tools/svc`,
    method: 'POST',
    timeout_ms: 5000,
    headers: { 'X-Api-Key': 'k1' },
    // Stored properties: `a` is replaced by the call's `a` (the call wins, shallow).
    body_properties: { z: 1, a: { stored: true } },
    protocol,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

async function repoWith(rec: RemoteToolRecord, extra: Partial<ConstructorParameters<typeof RemoteRepo>[0]> = {}): Promise<RemoteRepo> {
  const stores = createMemoryStores();
  await stores.tools.putTool(rec);
  return new RemoteRepo({ toolStore: stores.tools, logger: silentLogger(), ...extra });
}

// Nested keys out of order, to prove `openai` sorts them at every depth.
const CALL_ARGS = { m: 'hi', a: { d: 4, c: [{ y: 1, x: 2 }] } };
const SORTED_ARGS = '{"a":{"c":[{"x":2,"y":1}],"d":4},"m":"hi","z":1}';
const MERGED_OBJECT = '{"z":1,"a":{"d":4,"c":[{"y":1,"x":2}]},"m":"hi"}';

const CASES: { protocol: RemoteProtocol; wire: string; reply: string; result: unknown }[] = [
  {
    protocol: 'openai',
    wire: `{"name":"svc","arguments":${JSON.stringify(SORTED_ARGS)}}`,
    reply: '{"answer":42}',
    result: { answer: 42 },
  },
  {
    protocol: 'openai-object',
    wire: `{"name":"svc","arguments":${MERGED_OBJECT}}`,
    reply: '{"answer":[1,2]}',
    result: { answer: [1, 2] },
  },
  {
    protocol: 'ollama',
    wire: `{"name":"svc","arguments":${MERGED_OBJECT}}`,
    reply: '{"model":"m","message":{"role":"assistant","content":"done"}}',
    result: 'done',
  },
  {
    protocol: 'langserve-openai',
    wire: `{"name":"svc","arguments":${JSON.stringify(SORTED_ARGS)}}`,
    reply: '{"output":{"r":1},"metadata":{}}',
    result: { r: 1 },
  },
  {
    protocol: 'langserve-direct',
    wire: MERGED_OBJECT,
    reply: '{"whole":"reply"}',
    result: { whole: 'reply' },
  },
];

describe.each(CASES)('protocol $protocol', ({ protocol, wire, reply, result }) => {
  it('puts the exact bytes on the wire and takes the right part of the reply', async () => {
    mock.respond = () => ({ status: 200, body: reply });
    const repo = await repoWith(record(protocol));
    const out = await repo.exec('svc', CALL_ARGS, testContext());
    expect(out).toEqual(result);
    expect(mock.seen).toHaveLength(1);
    const req = mock.seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/tools/svc');
    expect(req.body.toString('utf8')).toBe(wire);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['idempotency-key']).toBe('idem-123');
    expect(req.headers['x-api-key']).toBe('k1');
  });
});

describe('unwrap failures quote the body', () => {
  it.each([
    ['ollama', '{"message":{"role":"assistant"}}', "replied without 'message.content'"],
    ['ollama', '{"choices":[]}', "replied without 'message.content'"],
    ['ollama', '{"message":"flat"}', "replied without 'message.content'"],
    ['langserve-openai', '{"result":{"r":1}}', "replied without 'output'"],
    ['openai', '<html>oops</html>', 'not JSON'],
    ['openai-object', '', 'not JSON'],
    ['langserve-direct', 'plain text', 'not JSON'],
    ['ollama', 'nope', 'not JSON'],
    ['langserve-openai', '{"output":', 'not JSON'],
  ] as [RemoteProtocol, string, string][])('%s reply %j', async (protocol, body, says) => {
    mock.respond = () => ({ status: 200, body });
    const repo = await repoWith(record(protocol));
    const err = (await repo.exec('svc', {}, testContext()).catch((e: unknown) => e)) as HookyardError;
    expect(err).toBeInstanceOf(HookyardError);
    expect(err.kind).toBe('bad_input');
    expect(err.message).toContain("tool 'svc'");
    expect(err.message).toContain(says);
    expect(err.message).toContain(JSON.stringify(body));
  });

  it('an explicit null output is a value, not a missing field', async () => {
    mock.respond = () => ({ status: 200, body: '{"output":null}' });
    const repo = await repoWith(record('langserve-openai'));
    await expect(repo.exec('svc', {}, testContext())).resolves.toBeNull();
  });
});

describe('headers and methods', () => {
  it('stored headers override the content type (case-insensitively); the idempotency key is always ours', async () => {
    mock.respond = () => ({ body: '{}' });
    const repo = await repoWith(record('openai', { headers: { 'content-type': 'application/vnd.svc+json', 'Idempotency-Key': 'stored' } }));
    await repo.exec('svc', {}, testContext());
    expect(mock.seen[0]!.headers['content-type']).toBe('application/vnd.svc+json');
    expect(mock.seen[0]!.headers['idempotency-key']).toBe('idem-123');
  });

  it('GET sends the merged arguments as query parameters and no body', async () => {
    mock.respond = () => ({ body: '{"ok":true}' });
    const repo = await repoWith(record('openai', { method: 'GET', body_properties: { n: 2 } }));
    await expect(repo.exec('svc', { q: 'a b', o: { k: 1 } }, testContext())).resolves.toEqual({ ok: true });
    const req = mock.seen[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/tools/svc?n=2&q=a+b&o=%7B%22k%22%3A1%7D');
    expect(req.body.length).toBe(0);
  });

  it.each(['PUT', 'PATCH', 'DELETE'])('%s carries the protocol body', async (method) => {
    mock.respond = () => ({ body: '{}' });
    const repo = await repoWith(record('langserve-direct', { method, body_properties: {} }));
    await repo.exec('svc', { x: 1 }, testContext());
    expect(mock.seen[0]!.method).toBe(method);
    expect(mock.seen[0]!.body.toString()).toBe('{"x":1}');
  });
});

describe('status and transport errors', () => {
  it.each([
    [503, 'unavailable'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [429, 'unavailable'],
    [408, 'unavailable'],
    [504, 'timeout'],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not_found'],
    [409, 'conflict'],
    [400, 'bad_input'],
    [422, 'bad_input'],
    [302, 'bad_input'],
  ])('HTTP %i -> %s, naming the tool and status and quoting the body', async (status, kind) => {
    mock.respond = () => ({ status, body: `{"detail":"status ${status} here"}` });
    const repo = await repoWith(record('openai'));
    const err = (await repo.exec('svc', {}, testContext()).catch((e: unknown) => e)) as HookyardError;
    expect(err).toBeInstanceOf(HookyardError);
    expect(err.kind).toBe(kind);
    expect(err.message).toContain("tool 'svc'");
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.message).toContain(JSON.stringify(`{"detail":"status ${status} here"}`));
  });

  it('a reply slower than timeout_ms is a timeout', async () => {
    mock.respond = () => new Promise((resolve) => setTimeout(() => resolve({ body: '{}' }), 3000).unref());
    const repo = await repoWith(record('openai', { timeout_ms: 100 }));
    const err = (await repo.exec('svc', {}, testContext()).catch((e: unknown) => e)) as HookyardError;
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain('100 ms');
  });

  it('a closed port is unavailable', async () => {
    const gone = await startMockServer();
    await gone.close();
    const repo = await repoWith(record('openai', { endpoint: `${gone.url}/x` }));
    const err = (await repo.exec('svc', {}, testContext()).catch((e: unknown) => e)) as HookyardError;
    expect(err.kind).toBe('unavailable');
  });

  it('an unknown name is not_found', async () => {
    const repo = await repoWith(record('openai'));
    await expect(repo.exec('ghost', {}, testContext())).rejects.toMatchObject({ kind: 'not_found' });
  });
});
