import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createMetrics, createLogger, loadSettings, type Settings } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createMemoryStores, type DeliveryClaim, type KeptRun, type Stores } from '@hookyard/store';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { LocalRepo, echoTool } from '@hookyard/tools';
import { createIngressApp, type IngressDeps } from '../../services/ingress/src/start';

export const ADMIN_TOKEN = 'door-admin-token-0123456789abcdef';

type KeepInput = Parameters<Stores['runs']['keepEvent']>[0];

/** One call of the store's keepEvent or keepDelivery as the door made it. */
export interface KeepCall {
  input: KeepInput;
  /** The delivery claim taken with the keep (keepDelivery), else null. */
  claim: DeliveryClaim | null;
  /** The runs kept; null when the call failed or was a duplicate. */
  kept: KeptRun[] | null;
  duplicate: boolean;
  error: unknown;
}

/** The ingress app in this process, on 127.0.0.1 port 0, memory store and bus, the real jq engine. */
export interface DoorApp {
  url: string;
  port: number;
  /** The stores underneath (not wrapped; memory unless given): read runs and hooks here. */
  inner: Stores;
  /** Every keepEvent / keepDelivery call the door made, in order. */
  keeps: KeepCall[];
  /** The next `n` keep calls fail before touching the store. */
  failNextKeeps(n: number): void;
  /** Log records at warn and above. */
  logs: Record<string, any>[];
  settings: Settings;
  /** Registers a hook through the management API (status must be 201/200). */
  putHook(name: string, topic: string, extra?: Record<string, unknown>): Promise<void>;
  /** Binds a verifier through the management API. */
  putVerifier(topic: string, binding: Record<string, unknown>): Promise<void>;
  /** Every run the store holds (all pages). */
  allRuns(): Promise<Array<{ id: string; topic: string; payload: unknown }>>;
  close(): Promise<void>;
}

export async function startDoorApp(opts: { settings?: Partial<Settings>; deps?: Partial<IngressDeps>; stores?: Stores } = {}): Promise<DoorApp> {
  const settings = loadSettings({}, { apiTokens: [{ role: 'admin', token: ADMIN_TOKEN }], ...opts.settings });
  const inner = opts.stores ?? createMemoryStores();
  const keeps: KeepCall[] = [];
  let failing = 0;
  async function record<T>(call: KeepCall, keep: () => Promise<T>, runsOf: (out: T) => KeptRun[] | null): Promise<T> {
    keeps.push(call);
    if (failing > 0) {
      failing--;
      call.error = new Error('store refused (test)');
      throw call.error;
    }
    try {
      const out = await keep();
      call.kept = runsOf(out);
      call.duplicate = call.kept === null;
      return out;
    } catch (err) {
      call.error = err;
      throw err;
    }
  }
  const runs = Object.assign(Object.create(inner.runs), {
    keepEvent: (input: KeepInput) =>
      record(
        { input, claim: null, kept: null, duplicate: false, error: null },
        () => inner.runs.keepEvent(input),
        (kept) => kept,
      ),
    keepDelivery: (input: KeepInput, claim: DeliveryClaim) =>
      record(
        { input, claim, kept: null, duplicate: false, error: null },
        () => inner.runs.keepDelivery(input, claim),
        (r) => (r.status === 'kept' ? r.runs : null),
      ),
  }) as Stores['runs'];
  const stores: Stores = { ...inner, runs };
  const logs: Record<string, any>[] = [];
  const logger = createLogger({
    level: 'warn',
    destination: {
      write(line: string) {
        try {
          logs.push(JSON.parse(line));
        } catch {
          logs.push({ raw: line });
        }
      },
    },
  });
  const jq: HookyardJqEngine = await createJqEngine({ workers: 1 });
  const bus = createMemoryBus();
  const app = createIngressApp({
    // Every answer of a declared route is held to its declared shape: drift fails the test that made it.
    validateAnswers: true,
    settings,
    stores,
    bus,
    jq,
    tools: new LocalRepo([echoTool]),
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    ...opts.deps,
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  };

  return {
    url,
    port,
    inner,
    keeps,
    logs,
    settings,
    failNextKeeps(n) {
      failing = n;
    },
    putHook: (name, topic, extra = {}) => api('POST', '/api/hooks', { name, topic, tool: 'echo', tool_kwargs: {}, ...extra }),
    putVerifier: (topic, binding) => api('PUT', `/api/hooks/topics/${topic}/verifier`, binding),
    async allRuns() {
      const out: Array<{ id: string; topic: string; payload: unknown }> = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10_000; page++) {
        const r = await inner.runs.list({}, 500, cursor);
        out.push(...(r.runs as unknown as Array<{ id: string; topic: string; payload: unknown }>));
        cursor = r.nextCursor;
        if (!cursor) break;
      }
      return out;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bus.close();
      await jq.close();
    },
  };
}

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** True when the server closed the connection. */
  closed: boolean;
}

/**
 * Writes raw bytes to the server (optionally in pieces, with a pause between
 * them) and reads one HTTP/1.1 response. Bounded: gives up after `timeoutMs`.
 */
export function rawRequest(port: number, pieces: Array<Buffer | string>, opts: { gapMs?: number; timeoutMs?: number } = {}): Promise<RawResponse> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      sock.destroy();
      if (err) return reject(err);
      const parsed = parseResponse(Buffer.concat(chunks));
      if (!parsed) return reject(new Error(`no complete HTTP response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`));
      resolve({ ...parsed, closed });
    };
    timers.push(setTimeout(() => finish(new Error(`no response within ${timeoutMs} ms`)), timeoutMs));
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      const parsed = parseResponse(Buffer.concat(chunks));
      // Complete with a Content-Length: stop reading (the server may keep the connection open).
      if (parsed && parsed.complete) {
        // Give a closing server one moment to be seen as closing.
        timers.push(setTimeout(() => finish(), 50));
      }
    });
    sock.on('end', () => {
      closed = true;
      finish();
    });
    sock.on('close', () => {
      closed = true;
      finish();
    });
    sock.on('error', (err) => {
      // A server that refuses mid-write may reset: answer what was read, if anything.
      closed = true;
      if (chunks.length) finish();
      else finish(err);
    });
    sock.on('connect', () => {
      const gap = opts.gapMs ?? 0;
      pieces.forEach((p, i) => {
        const write = () => {
          if (!settled && !sock.destroyed) sock.write(p);
        };
        if (gap === 0 || i === 0) write();
        else timers.push(setTimeout(write, gap * i));
      });
    });
  });
}

function parseResponse(buf: Buffer): (Omit<RawResponse, 'closed'> & { complete: boolean }) | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = buf.subarray(end + 4);
  const len = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  return { status: Number(m[1]), headers, body: body.toString('utf8'), complete: len !== undefined && body.length >= len };
}

/** The two headers every answer of the ingress carries. */
export function securityHeadersOf(headers: IncomingHttpHeaders | Record<string, string | undefined>): { nosniff: unknown; cache: unknown } {
  return { nosniff: headers['x-content-type-options'], cache: headers['cache-control'] };
}

export const SECURITY = { nosniff: 'nosniff', cache: 'no-store' };
