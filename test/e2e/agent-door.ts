/**
 * What the agent-call e2e tests need besides the roles: a tool server that
 * holds its calls until the test lets them go and tells which of them lost
 * their caller (an executor killed mid-call), and the agent's side of the
 * door (`POST /api/calls`, `GET /api/calls/{id}` with an agent token).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the tool server received. */
export interface ToolCall {
  /** The Idempotency-Key header: the run id of the agent's call. */
  key: string;
  body: Record<string, unknown>;
  /** The caller's connection closed before the answer was written (its executor died mid-call). */
  cut: boolean;
  /** The answer was handed to the socket. */
  answered: boolean;
}

/**
 * A tool's HTTP service that records every call by its idempotency key.
 * While holding, a call gets no answer until `release()`; after it, every
 * call is answered at once with `{deployed: <body>}`.
 */
export class HoldingTool {
  readonly calls: ToolCall[] = [];
  private readonly waiting = new Map<ToolCall, () => void>();
  private holding = true;
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // The tool layer may ask for a schema first: "none" is a valid answer.
        if (req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          /* recorded as empty: the assertions on arguments then fail */
        }
        const call: ToolCall = { key: String(req.headers['idempotency-key'] ?? ''), body, cut: false, answered: false };
        this.calls.push(call);
        res.on('close', () => {
          if (!res.writableFinished) call.cut = true;
        });
        const answer = () => {
          this.waiting.delete(call);
          if (call.cut || res.destroyed) return;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ deployed: body }), () => (call.answered = true));
        };
        if (this.holding) this.waiting.set(call, answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The calls held now (received, not answered, their caller still connected). */
  held(): ToolCall[] {
    return [...this.waiting.keys()].filter((c) => !c.cut);
  }

  /** Answers every held call and every later one at once. */
  release(): void {
    this.holding = false;
    for (const answer of [...this.waiting.values()]) answer();
  }

  /** How many times the tool was called with this idempotency key. */
  callsOf(key: string): number {
    return this.calls.filter((c) => c.key === key).length;
  }

  async close(): Promise<void> {
    this.release();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The agent's view of its call, as `/api/calls` answers it. */
export interface CallView {
  id: string;
  status: string;
  done: boolean;
  result?: unknown;
  error?: { kind: string; message: string; retryable?: boolean };
  denial?: { message: string; rule: string | null };
  interaction?: { id: string; rule: string | null };
  sentence: string;
}

/** An agent's call as the HTTP call API takes it. */
export interface AgentCallBody {
  tool: string;
  arguments: Record<string, unknown>;
  idempotency_key: string;
  wait_seconds?: number;
}

/** An agent's client of the HTTP call API. */
export class AgentClient {
  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  /** `POST /api/calls`: 200 with the outcome when it came within the wait, else 202. */
  async call(body: AgentCallBody): Promise<{ status: number; view: CallView }> {
    return this.send('POST', '/api/calls', body);
  }

  /** `GET /api/calls/{id}`. */
  async get(id: string): Promise<{ status: number; view: CallView }> {
    return this.send('GET', `/api/calls/${id}`);
  }

  private async send(method: string, path: string, body?: unknown): Promise<{ status: number; view: CallView }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 202) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
    return { status: res.status, view: JSON.parse(text) as CallView };
  }
}
