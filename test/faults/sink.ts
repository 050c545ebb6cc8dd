/**
 * The sink: the HTTP service two tools call. It records every call with its
 * idempotency key and whether its 200 went out, and answers after a random
 * delay so that a fault lands while calls are in flight.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkCall {
  /** The tool: 'once' (not crash-resumable) or 'resume' (crash-resumable). */
  tool: string;
  key: string;
  body: { n?: number; f?: string };
  /** The 200 was written to the socket (the executor may still have died before reading it). */
  answered: boolean;
}

export class Sink {
  readonly calls: SinkCall[] = [];
  private server: Server | null = null;
  url = '';

  constructor(
    private readonly rand: () => number,
    private readonly delayMs: [number, number] = [30, 250],
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.method !== 'POST') {
        // The tool layer asks GET /schema first; "no schema" is a valid answer.
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: SinkCall['body'] = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SinkCall['body'];
        } catch {
          /* recorded as is */
        }
        const call: SinkCall = { tool: (req.url ?? '/').slice(1), key: String(req.headers['idempotency-key'] ?? ''), body, answered: false };
        this.calls.push(call);
        const [lo, hi] = this.delayMs;
        setTimeout(
          () => {
            // One connection per call: a sink taken down refuses the next call cleanly
            // (ECONNREFUSED, provably not sent) instead of resetting a reused socket.
            res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
            res.end(JSON.stringify({ ok: call.key }), () => (call.answered = true));
          },
          lo + this.rand() * (hi - lo),
        );
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  private port = 0;

  /** Stops accepting calls (new connections are refused); calls in flight still get their answer. */
  async down(): Promise<void> {
    await new Promise<void>((r) => this.server!.close(() => r()));
  }

  /** Accepts calls again on the same port. */
  async up(): Promise<void> {
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', () => r()));
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}
