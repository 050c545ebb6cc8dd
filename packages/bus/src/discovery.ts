import { HookyardError, silentLogger, type Logger } from '@hookyard/core';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { headers as natsHeaders, type Subscription as NatsSubscription } from 'nats';
import { checkPrefix, connectNats, type TrackedConnection } from './nats-setup';
import type { NatsCredentials } from './nats-auth';
import { withTimeout } from './nats-errors';

/**
 * Discovery requests from the ingress to the executors. The ingress faces the
 * internet and must never dial a registered service or start an MCP stdio
 * child; the executors already call tools (behind the egress policy), so they
 * also answer "what does this registration offer?". Over NATS this is
 * request/reply on `<prefix>.discovery.request`, answered by one executor of
 * the queue group `executors`; in one process an in-memory twin does the same.
 * The bodies are JSON the tools package defines; the bus only carries them.
 */
export interface DiscoveryRequester {
  /**
   * Sends one request and waits for one executor's answer. `unavailable` when
   * no executor listens or none answered within `timeoutMs`.
   */
  ask(request: unknown, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

/** Answers one discovery request (never throws: errors are part of the answer). */
export type DiscoveryHandler = (request: unknown) => Promise<unknown>;

export interface DiscoveryResponder {
  close(): Promise<void>;
}

export interface DiscoveryNatsOptions {
  url: string;
  /** Who this connection is to NATS (HOOKS_NATS_USER/_PASSWORD, _TOKEN, _NKEY_SEED, _CREDS, TLS); none: anonymous. */
  credentials?: NatsCredentials;
  /** Subject prefix: `hooks` asks on `hooks.discovery.request`. */
  prefix: string;
  logger?: Logger;
}

/** `<prefix>.discovery.request`. */
export function discoverySubject(prefix: string): string {
  return `${checkPrefix(prefix)}.discovery.request`;
}

/** The queue group of the executors answering discovery: one of them answers each request. */
export const DISCOVERY_QUEUE = 'executors';

/**
 * Answers travel gzipped (a header says so): a catalogue carries every tool's
 * JSON Schema, and GitHub's 1,223 operations are 1.8 MB of JSON, past NATS's
 * default max_payload of 1 MiB, but 0.2 MB gzipped.
 */
const ENCODING_HEADER = 'Hookyard-Encoding';
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** No executor answered a discovery request in time (none listens, or none was quick enough): `unavailable`, the API's 503. */
export class DiscoveryUnansweredError extends HookyardError {
  constructor(message: string) {
    super('unavailable', message);
    this.name = 'DiscoveryUnansweredError';
  }
}

function noExecutor(timeoutMs: number, why: string): HookyardError {
  return new DiscoveryUnansweredError(
    `no executor answered the discovery request within ${timeoutMs} ms (${why}); discovery runs on the executors: start one, or register with ?discover=false`,
  );
}

/** The ingress's side over NATS. */
export async function createDiscoveryRequester(options: DiscoveryNatsOptions): Promise<DiscoveryRequester> {
  const logger = options.logger ?? silentLogger();
  const subject = discoverySubject(options.prefix);
  const conn = await connectNats(options.url, `hookyard-discovery-${options.prefix}`, logger, options.credentials);
  let closed = false;
  return {
    async ask(request, timeoutMs) {
      if (closed || !conn.isConnected()) throw noExecutor(timeoutMs, 'NATS is not connected');
      let reply;
      try {
        reply = await conn.nc.request(subject, JSON.stringify(request), { timeout: timeoutMs });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === '503') throw noExecutor(timeoutMs, 'no executor is subscribed');
        if (code === 'TIMEOUT') throw noExecutor(timeoutMs, 'timed out');
        throw noExecutor(timeoutMs, err instanceof Error ? err.message : String(err));
      }
      try {
        const gzipped = reply.headers?.get(ENCODING_HEADER) === 'gzip';
        const text = gzipped ? (await gunzipAsync(reply.data)).toString('utf8') : reply.string();
        return JSON.parse(text) as unknown;
      } catch {
        throw new HookyardError('internal', `the executor's discovery answer on ${subject} is not JSON`);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeConnection(conn);
    },
  };
}

/** An executor's side over NATS: answers requests until closed. */
export async function createDiscoveryResponder(options: DiscoveryNatsOptions, handler: DiscoveryHandler): Promise<DiscoveryResponder> {
  const logger = options.logger ?? silentLogger();
  const subject = discoverySubject(options.prefix);
  const conn = await connectNats(options.url, `hookyard-discovery-answer-${options.prefix}`, logger, options.credentials);
  const sub: NatsSubscription = conn.nc.subscribe(subject, { queue: DISCOVERY_QUEUE });
  // The server has the subscription once the flush returns: a request sent after start finds this executor.
  await conn.nc.flush();
  const inFlight = new Set<Promise<void>>();
  void (async () => {
    for await (const msg of sub) {
      const one = (async () => {
        let request: unknown;
        try {
          request = JSON.parse(msg.string());
        } catch {
          request = undefined;
        }
        const answer = await handler(request);
        try {
          const h = natsHeaders();
          h.set(ENCODING_HEADER, 'gzip');
          let body = await gzipAsync(Buffer.from(JSON.stringify(answer), 'utf8'));
          // Past the server's max_payload the reply would be dropped and the ingress would wait out its timeout: say why now.
          const max = conn.nc.info?.max_payload ?? Infinity;
          if (body.length > max - 1024) {
            const message = `the discovery answer is ${body.length} bytes gzipped, over the NATS server's max_payload of ${max} bytes (raise max_payload, or narrow the registration's operations)`;
            logger.error({ bytes: body.length, max }, message);
            body = await gzipAsync(Buffer.from(JSON.stringify({ ok: false, error: { kind: 'unavailable', message } }), 'utf8'));
          }
          msg.respond(body, { headers: h });
        } catch (err) {
          logger.warn({ err }, 'could not send the discovery answer');
        }
      })().finally(() => inFlight.delete(one));
      inFlight.add(one);
    }
  })().catch((err: unknown) => logger.error({ err }, 'discovery responder stopped'));
  return {
    async close() {
      sub.unsubscribe();
      // Answers being worked on are sent before the connection drains.
      await withTimeout(Promise.allSettled([...inFlight]), 5000, 'finish discovery answers').catch(() => undefined);
      await closeConnection(conn);
    },
  };
}

async function closeConnection(conn: TrackedConnection): Promise<void> {
  await withTimeout(conn.nc.drain(), 5000, 'drain NATS connection').catch(() => conn.nc.close());
}

/** Both sides in one process (the embedded default and tests). */
export interface DiscoveryHub extends DiscoveryRequester {
  /** Installs the executor's answer; closing it leaves the hub with none. */
  serve(handler: DiscoveryHandler): DiscoveryResponder;
}

/** The in-memory twin: `ask` calls the served handler (the latest one), with the same timeout and refusal. */
export function createDiscoveryHub(): DiscoveryHub {
  let handler: DiscoveryHandler | null = null;
  let closed = false;
  return {
    async ask(request, timeoutMs) {
      const h = handler;
      if (closed || !h) throw noExecutor(timeoutMs, 'no executor is running');
      // A copy each way, as over the wire: neither side shares objects with the other.
      const sent = JSON.parse(JSON.stringify(request ?? null)) as unknown;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(noExecutor(timeoutMs, 'timed out')), timeoutMs);
      });
      try {
        const answer = await Promise.race([h(sent), late]);
        return JSON.parse(JSON.stringify(answer ?? null)) as unknown;
      } finally {
        clearTimeout(timer);
      }
    },
    serve(h) {
      handler = h;
      return {
        async close() {
          if (handler === h) handler = null;
        },
      };
    },
    async close() {
      closed = true;
      handler = null;
    },
  };
}
