import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP_EXCHANGE_BODY_BYTES } from '@hookyard/core';
import { createOutboundGuard, webhookTool } from '@hookyard/tools';
import { harness, hook, tableJq } from './fixtures';

/**
 * An HTTP tool's reply stays with the attempt that got it: the real `webhook`
 * tool against a real local server; the run's outcome line keeps the status,
 * the headers with secrets redacted and a bounded excerpt of the body, for a
 * failure (HTTP 500) and a success alike.
 */
let server: Server;
let base: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

// Loopback allowed for this test (HOOKS_OUTBOUND_ALLOW_NETS): the server is on 127.0.0.1.
const webhook = () => webhookTool({ allowHosts: [], timeoutMs: 5_000, guard: createOutboundGuard({ allowNets: ['127.0.0.0/8'] }) });

async function runOnce(url: string) {
  const jq = tableJq({ '{url: .url}': (input) => [{ url: (input as { url: string }).url }] });
  const h = harness({ jq, tools: [webhook()] });
  await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'webhook', start_expr: { content: '{url: .url}' } }));
  const [id] = await h.keep('gh', { url });
  await h.executor.handle(id!);
  return (await h.stores.runs.get(id!))!;
}

describe("executor: an HTTP tool's reply is kept with its attempt", () => {
  it('HTTP 500 with a large body and a Set-Cookie: the failed line keeps the status, redacted headers and a 2 KiB excerpt', async () => {
    const body = `upstream exploded: ${'x'.repeat(10_000)}`;
    answer = (_req, res) => {
      res.writeHead(500, {
        'Content-Type': 'text/plain',
        'Set-Cookie': ['session=abc123secret; HttpOnly', 'other=zzz'],
        'X-Auth-Token': 'tok-999',
        'X-Request-Id': 'req-42',
      });
      res.end(body);
    };
    const run = await runOnce(`${base}/fail`);
    // The call left (acted): held as failed, not retried.
    expect(run).toMatchObject({ status: 'failed', acted: 'start', error: { kind: 'unavailable' } });
    const failed = run.history.at(-1)!;
    expect(failed.event).toBe('failed');
    expect(failed.http).toMatchObject({
      status: 500,
      headers: { 'content-type': 'text/plain', 'set-cookie': '[redacted]', 'x-auth-token': '[redacted]', 'x-request-id': 'req-42' },
      body_bytes: Buffer.byteLength(body),
      body_truncated: true,
    });
    expect(failed.http!.body).toBe(body.slice(0, HTTP_EXCHANGE_BODY_BYTES));
    expect(JSON.stringify(run)).not.toMatch(/abc123secret|zzz|tok-999/);
    // Only the line that ended the attempt carries it.
    expect(run.history.filter((e) => e.http).map((e) => e.event)).toEqual(['failed']);
  });

  it('a success keeps its reply too (status, headers, the whole small body)', async () => {
    answer = (_req, res) => {
      res.writeHead(201, { 'Content-Type': 'application/json', Authorization: 'Bearer nope' });
      res.end('{"ok":true}');
    };
    const run = await runOnce(`${base}/ok`);
    expect(run.status).toBe('succeeded');
    expect(run.history.at(-1)).toMatchObject({
      event: 'succeeded',
      http: {
        status: 201,
        headers: { 'content-type': 'application/json', authorization: '[redacted]' },
        body: '{"ok":true}',
        body_bytes: 11,
        body_truncated: false,
      },
    });
  });
});
