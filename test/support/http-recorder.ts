/**
 * The recording HTTP server the tests point tools, document fetches and
 * exporters at: node:http on 127.0.0.1 (port 0), every request kept as it
 * arrived (method, url, headers, the exact body bytes), each answered by a
 * `respond` the test sets (and may change between tests). An answer may be a
 * promise the test settles later: that holds the call open.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it arrived: the exact body bytes and headers. */
export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Epoch ms when the whole body had arrived. */
  at: number;
}

export interface Reply {
  /** Default 200. */
  status?: number;
  body?: string | Buffer;
  /** Default application/json. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Called once the answer has been handed to the socket (the client may still not have read it). */
  onSent?: () => void;
}

export type Responder = (req: SeenRequest) => Reply | Promise<Reply>;

export interface MockServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  seen: SeenRequest[];
  /** Answers each request (default: 404 "no responder"); a rejection answers 500. */
  respond: Responder;
  /** Stops accepting connections (new ones are refused); calls in flight still get their answer. */
  down(): Promise<void>;
  /** Accepts connections again on the same port. */
  up(): Promise<void>;
  /** Drops open connections (held calls included) and stops listening. */
  close(): Promise<void>;
}

export interface MockServerOptions {
  /** How long an idle keep-alive connection stays open (node's default 5 s). */
  keepAliveTimeoutMs?: number;
}

/** The body as UTF-8 text. */
export const text = (req: SeenRequest): string => req.body.toString('utf8');

/** The body parsed as JSON (a test's own tool gets JSON). */
export const json = <T = any>(req: SeenRequest): T => JSON.parse(text(req)) as T;

/** The request's `idempotency-key` header ('' when absent). */
export const idempotencyKey = (req: SeenRequest): string => String(req.headers['idempotency-key'] ?? '');

/** A node:http server on 127.0.0.1 (port 0) that records every request and answers as told. */
export async function startMockServer(respond?: Responder, opts: MockServerOptions = {}): Promise<MockServer> {
  const mock: MockServer = {
    url: '',
    port: 0,
    seen: [],
    respond: respond ?? (() => ({ status: 404, body: 'no responder' })),
    down: async () => undefined,
    up: async () => undefined,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      mock.seen.push(seen);
      Promise.resolve()
        .then(() => mock.respond(seen))
        .then(
          (r) => {
            res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json', ...r.headers });
            res.end(r.body ?? '', r.onSent);
          },
          () => {
            res.writeHead(500);
            res.end('responder threw');
          },
        );
    });
  });
  if (opts.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mock.port = (server.address() as AddressInfo).port;
  mock.url = `http://127.0.0.1:${mock.port}`;
  mock.down = () => new Promise<void>((resolve) => server.close(() => resolve()));
  mock.up = () => new Promise<void>((resolve) => server.listen(mock.port, '127.0.0.1', resolve));
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
