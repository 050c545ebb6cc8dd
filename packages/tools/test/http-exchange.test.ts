import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HookyardError, REMOTE_PROTOCOLS, silentLogger, type HttpExchange, type RemoteToolRecord } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { RemoteRepo } from '../src/remote/remote-repo';
import { testContext } from './support/context';

/** Every remote protocol tells the call's context what its HTTP reply was, a failure's (500) as a success's. */
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/fail')) {
        res.writeHead(500, { 'Content-Type': 'text/plain', 'Set-Cookie': 'sid=hush' });
        res.end('broken');
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"output":1,"message":{"content":1}}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe('remote tools: the reply is told to the call context', () => {
  it.each([...REMOTE_PROTOCOLS])('%s: a 500 and a 200 both reach ctx.onHttp (cookie redacted)', async (protocol) => {
    const stores = createMemoryStores();
    const at = '2025-01-01T00:00:00.000Z';
    const rec = (name: string, path: string): RemoteToolRecord => ({
      name,
      kind: 'http',
      endpoint: `${url}/${path}`,
      method: 'POST',
      timeout_ms: 5000,
      headers: {},
      protocol,
      created_at: at,
      updated_at: at,
    });
    await stores.tools.putTool(rec('bad', 'fail'));
    await stores.tools.putTool(rec('good', 'ok'));
    const repo = new RemoteRepo({ toolStore: stores.tools, logger: silentLogger() });
    const seen: HttpExchange[] = [];
    const ctx = testContext({ onHttp: (x) => seen.push(x) });
    const err = await repo.exec('bad', {}, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookyardError);
    await repo.exec('good', {}, ctx);
    expect(seen).toEqual([
      {
        status: 500,
        headers: expect.objectContaining({ 'set-cookie': '[redacted]', 'content-type': 'text/plain' }),
        body: 'broken',
        body_bytes: 6,
        body_truncated: false,
      },
      expect.objectContaining({ status: 200, body_truncated: false }),
    ]);
  });
});
