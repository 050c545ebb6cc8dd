import { createOutboundGuard, type OutboundGuard } from '../src/outbound';
import { webhookTool } from '../src/local/webhook';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';

let mock: MockServer;
/** The tests' own loopback server is reachable only because this guard allows 127.0.0.0/8 explicitly. */
let loopbackAllowed: OutboundGuard;
/** The deployment default: no range allowed beyond public addresses. */
let strict: OutboundGuard;
beforeAll(async () => {
  mock = await startMockServer();
  loopbackAllowed = createOutboundGuard({ allowNets: ['127.0.0.0/8', '::1'] });
  strict = createOutboundGuard({ allowNets: [] });
});
afterAll(async () => {
  await mock.close();
  await loopbackAllowed.close();
  await strict.close();
});
beforeEach(() => {
  mock.seen.length = 0;
});

const ctx = testContext();

describe('webhook', () => {
  it('calls an endpoint in an allowed range with JSON, the idempotency key and extra headers', async () => {
    mock.respond = () => ({ status: 201, body: '{"got":true}' });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000, guard: loopbackAllowed });
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
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/admin`],
    ['localhost (a name that resolves to loopback)', (port: number) => `http://localhost:${port}/admin`],
    ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['10.0.0.5', () => 'http://10.0.0.5/admin'],
    ['[::1]', (port: number) => `http://[::1]:${port}/`],
    ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['0.0.0.0', (port: number) => `http://0.0.0.0:${port}/`],
  ])('refuses %s by default, even when the host is listed, and sends nothing', async (_what, urlOf) => {
    const url = urlOf(Number(new URL(mock.url).port));
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const tool = webhookTool({ allowHosts: [host], timeoutMs: 5000, guard: strict });
    await expect(tool.run({ url }, ctx)).rejects.toMatchObject({ kind: 'forbidden', message: expect.stringContaining('refused') });
    // Not listed either: the same refusal.
    const unlisted = webhookTool({ allowHosts: [], timeoutMs: 5000, guard: strict });
    await expect(unlisted.run({ url }, ctx)).rejects.toMatchObject({ kind: 'forbidden' });
    expect(mock.seen).toHaveLength(0);
  });

  it('checks every address a name resolves to, and connects to the checked one', async () => {
    const seen: string[] = [];
    const rebinding = createOutboundGuard({
      allowNets: [],
      lookup: async (host) => {
        seen.push(host);
        return [
          { address: '93.184.215.14', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ];
      },
    });
    try {
      const tool = webhookTool({ allowHosts: ['rebind.example'], timeoutMs: 5000, guard: rebinding });
      await expect(tool.run({ url: `http://rebind.example:${new URL(mock.url).port}/x` }, ctx)).rejects.toMatchObject({
        kind: 'forbidden',
        message: expect.stringContaining('rebind.example resolves to 127.0.0.1 is a loopback address'),
      });
      expect(seen).toEqual(['rebind.example']);
      expect(mock.seen).toHaveLength(0);
    } finally {
      await rebinding.close();
    }
    // A name resolved (once) to the allowed loopback address reaches the server through that address.
    const pinned = createOutboundGuard({ allowNets: ['127.0.0.0/8'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    try {
      mock.respond = () => ({ status: 200, body: 'ok' });
      const tool = webhookTool({ allowHosts: ['svc.example'], timeoutMs: 5000, guard: pinned });
      await expect(tool.run({ url: `http://svc.example:${new URL(mock.url).port}/y`, method: 'GET' }, ctx)).resolves.toEqual({ status: 200, body: 'ok' });
      expect(mock.seen.map((s) => [s.url, s.headers.host])).toEqual([['/y', `svc.example:${new URL(mock.url).port}`]]);
    } finally {
      await pinned.close();
    }
  });

  it('refuses a host that is neither listed nor in an allowed range, before sending anything', async () => {
    let calls = 0;
    const tool = webhookTool({
      allowHosts: ['example.com'],
      timeoutMs: 5000,
      fetch: async () => {
        calls++;
        return new Response('{}');
      },
    });
    await expect(tool.run({ url: 'https://example.com.evil.test/' }, ctx)).rejects.toMatchObject({
      kind: 'unauthorized',
      message: expect.stringContaining('not on the allowed hosts'),
    });
    const public1 = createOutboundGuard({ allowNets: ['127.0.0.0/8'], lookup: async () => [{ address: '93.184.215.14', family: 4 }] });
    try {
      const unlisted = webhookTool({ allowHosts: [], timeoutMs: 5000, guard: public1 });
      await expect(unlisted.run({ url: 'http://public.example/' }, ctx)).rejects.toMatchObject({
        kind: 'forbidden',
        message: expect.stringContaining('not in HOOKS_OUTBOUND_ALLOW_NETS (and the host is not in HOOKS_WEBHOOK_ALLOW_HOSTS)'),
      });
    } finally {
      await public1.close();
    }
    expect(calls).toBe(0);
  });

  it('allows an exact allowed host (case-insensitive)', async () => {
    const urls: string[] = [];
    const tool = webhookTool({
      allowHosts: ['Hooks.Example.com'],
      timeoutMs: 5000,
      fetch: (async (u: URL) => {
        urls.push(String(u));
        return new Response('plain', { status: 200 });
      }) as unknown as typeof fetch,
    });
    await expect(tool.run({ url: 'https://hooks.example.com/x', method: 'GET' }, ctx)).resolves.toEqual({ status: 200, body: 'plain' });
    expect(urls).toEqual(['https://hooks.example.com/x']);
  });

  it('does not follow a redirect (it could bounce into the internal network)', async () => {
    mock.respond = () => ({ status: 302, body: '', headers: { Location: 'http://169.254.169.254/' } });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000, guard: loopbackAllowed });
    await expect(tool.run({ url: `${mock.url}/r` }, ctx)).rejects.toMatchObject({ kind: 'bad_input', message: expect.stringContaining('HTTP 302') });
    expect(mock.seen).toHaveLength(1);
  });

  it('reads its time bound from the call context (the live tool timeout), not from the one it was built with', async () => {
    // Built with a long bound, called with a short one: the call's own bound cuts it off.
    const held: Array<() => void> = [];
    mock.respond = () => new Promise((resolve) => held.push(() => resolve({ status: 200, body: '{}' })));
    const long = webhookTool({ allowHosts: [], timeoutMs: 600_000, guard: loopbackAllowed });
    await expect(long.run({ url: `${mock.url}/slow` }, testContext({ timeoutMs: 100 }))).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('within 100 ms'),
    });
    // `timeout_ms` may shorten the call's bound, never lengthen it.
    await expect(long.run({ url: `${mock.url}/slow`, timeout_ms: 600_000 }, testContext({ timeoutMs: 100 }))).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('within 100 ms'),
    });
    held.forEach((answer) => answer());
    // Built with a short bound, called with a long one: an answer 300 ms later arrives.
    mock.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: '{"late":true}' }), 300));
    const short = webhookTool({ allowHosts: [], timeoutMs: 20, guard: loopbackAllowed });
    await expect(short.run({ url: `${mock.url}/late` }, testContext({ timeoutMs: 60_000 }))).resolves.toEqual({ status: 200, body: { late: true } });
  });

  it('maps statuses to kinds and refuses bad input', async () => {
    mock.respond = () => ({ status: 503, body: 'busy' });
    const tool = webhookTool({ allowHosts: [], timeoutMs: 5000, guard: loopbackAllowed });
    await expect(tool.run({ url: `${mock.url}/x` }, ctx)).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining('"busy"') });
    await expect(tool.run({ url: 'file:///etc/passwd' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool.run({ url: 'nope' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool.run({ url: `${mock.url}/x`, method: 'TRACE' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
  });
});
