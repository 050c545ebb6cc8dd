/**
 * The sink: the HTTP service two tools call. It records every call with its
 * idempotency key and whether its 200 went out, and answers after a random
 * delay so that a fault lands while calls are in flight.
 */
import { sleep } from '../support/processes';
import { idempotencyKey, json, startMockServer, type MockServer } from '../support/http-recorder';

export interface SinkCall {
  /** The tool: 'once' (not crash-resumable) or 'resume' (crash-resumable). */
  tool: string;
  key: string;
  body: { n?: number; f?: string };
  /** The 200 was written to the socket (the executor may still have died before reading it). */
  answered: boolean;
  /** Date.now() when the call arrived. */
  at: number;
}

export class Sink {
  readonly calls: SinkCall[] = [];
  private server: MockServer | null = null;
  url = '';

  constructor(
    private readonly rand: () => number,
    private readonly delayMs: [number, number] = [30, 250],
  ) {}

  async start(): Promise<void> {
    this.server = await startMockServer(
      async (req) => {
        // The tool layer asks GET /schema first; "no schema" is a valid answer.
        if (req.method !== 'POST') return { status: 404 };
        let body: SinkCall['body'] = {};
        try {
          body = json<SinkCall['body']>(req);
        } catch {
          /* recorded as is */
        }
        const call: SinkCall = { tool: req.url.slice(1), key: idempotencyKey(req), body, answered: false, at: Date.now() };
        this.calls.push(call);
        const [lo, hi] = this.delayMs;
        await sleep(lo + this.rand() * (hi - lo));
        // One connection per call: a sink taken down refuses the next call cleanly
        // (ECONNREFUSED, provably not sent) instead of resetting a reused socket.
        return { headers: { connection: 'close' }, body: JSON.stringify({ ok: call.key }), onSent: () => (call.answered = true) };
      },
      { keepAliveTimeoutMs: 1000 },
    );
    this.url = this.server.url;
  }

  /** Stops accepting calls (new connections are refused); calls in flight still get their answer. */
  down(): Promise<void> {
    return this.server!.down();
  }

  /** Accepts calls again on the same port. */
  up(): Promise<void> {
    return this.server!.up();
  }

  async close(): Promise<void> {
    await this.server?.close();
  }
}
