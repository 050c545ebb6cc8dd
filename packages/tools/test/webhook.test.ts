import { webhookTool, isLoopbackHost } from '../src/local/webhook';
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

const ctx = testContext();

describe('webhook', () => {
  it('calls a loopback endpoint with JSON, the idempotency key and extra headers', async () => {
    mock.respond = () => ({ status: 201, body: '{"got":true}' });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000 });
    const out = await tool.run({ url: `${mock.url}/hook`, body: { a: 1 }, headers: { 'X-Trace': 't1' } }, ctx);
    expect(out).toEqual({ status: 201, body: { got: true } });
    const req = mock.seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.body.toString()).toBe('{"a":1}');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['idempotency-key']).toBe('idem-123');
    expect(req.headers['x-trace']).toBe('t1');
  });

  it.each([
    'http://10.0.0.5/admin',
    'http://169.254.169.254/latest/meta-data/',
    'http://192.168.1.1/',
    'http://0.0.0.0/',
    'http://metadata.google.internal/',
    'https://example.com.evil.test/',
    'http://[::ffff:10.0.0.1]/',
  ])('refuses %s (not loopback, not allowed) before sending anything', async (url) => {
    let calls = 0;
    const tool = webhookTool({ allowHosts: ['example.com'], timeoutMs: 5000, fetch: (async () => {
      calls++;
      return new Response('{}');
    }) as typeof fetch });
    await expect(tool.run({ url }, ctx)).rejects.toMatchObject({ kind: 'unauthorized', message: expect.stringContaining('not on the allowed hosts') });
    expect(calls).toBe(0);
  });

  it('allows an exact allowed host (case-insensitive)', async () => {
    const urls: string[] = [];
    const tool = webhookTool({ allowHosts: ['Hooks.Example.com'], timeoutMs: 5000, fetch: (async (u: URL) => {
      urls.push(String(u));
      return new Response('plain', { status: 200 });
    }) as unknown as typeof fetch });
    await expect(tool.run({ url: 'https://hooks.example.com/x', method: 'GET' }, ctx)).resolves.toEqual({ status: 200, body: 'plain' });
    expect(urls).toEqual(['https://hooks.example.com/x']);
  });

  it('does not follow a redirect (it could bounce into the internal network)', async () => {
    mock.respond = () => ({ status: 302, body: '' });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000 });
    await expect(tool.run({ url: `${mock.url}/r` }, ctx)).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringContaining('HTTP 302') });
    expect(mock.seen).toHaveLength(1);
  });

  it('maps statuses to kinds and refuses bad input', async () => {
    mock.respond = () => ({ status: 503, body: 'busy' });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000 });
    await expect(tool.run({ url: `${mock.url}/x` }, ctx)).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining('"busy"') });
    await expect(tool.run({ url: 'file:///etc/passwd' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool.run({ url: 'nope' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool.run({ url: `${mock.url}/x`, method: 'TRACE' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
  });

  it('knows loopback', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'api.localhost'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['10.0.0.1', '0.0.0.0', 'localhost.evil.test', '[::2]', '128.0.0.1'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });
});
