import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it arrived: the exact body bytes and headers. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status?: number;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface MockServer {
  url: string;
  seen: SeenRequest[];
  /** Set per test: answers each request. */
  respond: (req: SeenRequest) => Reply | Promise<Reply>;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 (port 0) that records every request and answers as told. */
export async function startMockServer(): Promise<MockServer> {
  const mock: MockServer = {
    url: '',
    seen: [],
    respond: () => ({ status: 404, body: 'no responder' }),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      mock.seen.push(seen);
      Promise.resolve(mock.respond(seen)).then(
        (r) => {
          res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json', ...r.headers });
          res.end(r.body ?? '');
        },
        () => {
          res.writeHead(500);
          res.end('responder threw');
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
