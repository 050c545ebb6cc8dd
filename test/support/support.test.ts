/**
 * The shared test helpers do what the suites rely on: the recording server
 * keeps a request's exact bytes and answers as told (held, refused, thrown),
 * and RoleProcess.stop ends a process that ignores SIGTERM.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { idempotencyKey, json, startMockServer, text, type MockServer, type Reply } from './http-recorder';
import { eventually, RoleProcess } from './processes';

/** One raw request (node:http, so the body goes out byte for byte); answers status, headers and body. */
function send(url: string, init: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer }) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(`${url}${init.path ?? '/'}`, { method: init.method ?? 'POST', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('the recording HTTP server', () => {
  let server: MockServer;
  afterEach(() => server?.close());

  it('keeps method, path and query, headers and the exact body bytes, and answers with the reply', async () => {
    server = await startMockServer(() => ({ status: 201, contentType: 'text/plain', headers: { 'x-answer': 'yes' }, body: 'made' }));
    const bytes = Buffer.from([0x7b, 0xff, 0x00, 0xfe, 0x7d]); // not UTF-8: a decode-and-encode would change it
    const res = await send(server.url, { path: '/hook?x=1', headers: { 'idempotency-key': 'k-1', 'content-type': 'application/octet-stream' }, body: bytes });
    expect(res).toMatchObject({ status: 201, body: 'made', headers: { 'content-type': 'text/plain', 'x-answer': 'yes' } });
    expect(server.seen).toHaveLength(1);
    const [seen] = server.seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/hook?x=1' });
    expect(seen!.body.equals(bytes)).toBe(true);
    expect(idempotencyKey(seen!)).toBe('k-1');
    expect(seen!.headers['content-type']).toBe('application/octet-stream');
  });

  it('answers 404 with no responder, 500 when the responder throws; text and json read the body', async () => {
    server = await startMockServer();
    expect((await send(server.url, { method: 'GET' })).status).toBe(404);
    server.respond = (req) => {
      if (json<{ boom?: boolean }>(req).boom) throw new Error('boom');
      return { body: text(req) };
    };
    expect(await send(server.url, { body: Buffer.from('{"boom":true}') })).toMatchObject({ status: 500 });
    expect(await send(server.url, { body: Buffer.from('{"ok":1}') })).toMatchObject({ status: 200, body: '{"ok":1}' });
    expect(server.seen.map((r) => r.method)).toEqual(['GET', 'POST', 'POST']);
  });

  it('holds a call until the test answers it, and says when the answer was handed to the socket', async () => {
    let answer: ((r: Reply) => void) | undefined;
    let sent = false;
    server = await startMockServer(() => new Promise<Reply>((resolve) => (answer = resolve)));
    const pending = send(server.url, { body: Buffer.from('{}') });
    await eventually(async () => (answer ? true : undefined), 5_000, 'the call to arrive');
    expect(sent).toBe(false);
    answer!({ body: '"late"', onSent: () => (sent = true) });
    expect(await pending).toMatchObject({ status: 200, body: '"late"' });
    await eventually(async () => (sent ? true : undefined), 5_000, 'onSent');
  });

  it('down refuses new connections on its port, up accepts them there again', async () => {
    server = await startMockServer(() => ({ body: '{}' }));
    await server.down();
    await expect(send(server.url, { body: Buffer.from('{}') })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await server.up();
    expect((await send(server.url, { body: Buffer.from('{}') })).status).toBe(200);
  });
});

describe('RoleProcess.stop', () => {
  it('sends SIGTERM, and SIGKILLs a process still there after the grace', async () => {
    // Ignores SIGTERM from the moment it says ready, so only the SIGKILL can end it.
    const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);"], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = new RoleProcess('stubborn', child);
    await eventually(async () => (proc.lines.includes('ready') ? true : undefined), 10_000, 'the child to be ready');
    expect(await proc.stop('SIGTERM', 500)).toBeNull();
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('resolves to the exit code of a process that exits on SIGTERM', async () => {
    const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => process.exit(0)); console.log('ready'); setInterval(() => {}, 1000);"], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = new RoleProcess('polite', child);
    await eventually(async () => (proc.lines.includes('ready') ? true : undefined), 10_000, 'the child to be ready');
    expect(await proc.stop()).toBe(0);
    expect(child.signalCode).toBeNull();
  });
});
