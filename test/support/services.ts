import { createConnection } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { JetStreamManager, NatsConnection } from 'nats';

/** Redis and NATS for integration tests: REDIS_URL / NATS_URL, defaulting to loopback. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * Loopback, for the tool servers tests start: outbound tool calls reach only
 * public addresses unless HOOKS_OUTBOUND_ALLOW_NETS allows a range, so a test
 * that calls its own server says so in its setup.
 */
export const LOOPBACK_NETS: string[] = ['127.0.0.0/8', '::1'];
/** LOOPBACK_NETS as the HOOKS_OUTBOUND_ALLOW_NETS value of a spawned role. */
export const LOOPBACK_NETS_ENV = LOOPBACK_NETS.join(',');

/** Whether a TCP connection to host:port opens within a second. */
export function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host, port });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1000, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return tcpOpen(u.hostname, Number(u.port || defaultPort));
}

/**
 * Fails (never skips) when a service the suite needs is not there, saying what to start.
 * Call from beforeAll.
 */
export async function requireRedis(): Promise<string> {
  if (!(await reachable(REDIS_URL, 6379))) {
    throw new Error(`Redis is not reachable at ${REDIS_URL}. Start one (redis-server --port 6379) or set REDIS_URL; integration tests never skip.`);
  }
  return REDIS_URL;
}

export async function requireNats(): Promise<string> {
  if (!(await reachable(NATS_URL, 4222))) {
    throw new Error(`NATS is not reachable at ${NATS_URL}. Start one with JetStream (nats-server -js) or set NATS_URL; integration tests never skip.`);
  }
  return NATS_URL;
}

/** A random prefix that isolates one test's keys, streams and subjects. */
export function uniquePrefix(label = 't'): string {
  return `${label}${randomBytes(4).toString('hex')}`;
}

/** Deletes every Redis key whose name holds `prefix` (plain `prefix:...` and hash-tagged `{prefix:...}` alike). */
export async function deleteRedisKeys(prefix: string, url = REDIS_URL): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const r = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    await r.quit();
  }
}

/** Deletes every JetStream stream named `<PREFIX>_...` (what roles and buses with HOOKS_NATS_PREFIX `prefix` create). */
export async function deleteStreams(prefix: string, servers: string = NATS_URL): Promise<void> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: servers.split(',') });
  try {
    await deleteStreamsOn(nc, prefix);
  } finally {
    await nc.close();
  }
}

async function deleteStreamsOn(nc: NatsConnection, prefix: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const upper = `${prefix.toUpperCase()}_`;
  for await (const s of jsm.streams.list()) {
    if (s.config.name.startsWith(upper)) await jsm.streams.delete(s.config.name).catch(() => undefined);
  }
}

/** Deletes every Redis key and JetStream stream a test made under `prefix` (its HOOKS_KEY_PREFIX / HOOKS_NATS_PREFIX). */
export async function cleanupPrefix(prefix: string, urls: { redis?: string; nats?: string } = {}): Promise<void> {
  await deleteRedisKeys(prefix, urls.redis);
  await deleteStreams(prefix, urls.nats);
}

/** One suite's own corner of the shared NATS: a connection and a unique prefix whose streams close() deletes. */
export interface NatsSetup {
  url: string;
  nc: NatsConnection;
  /** Unique per setup: the HOOKS_NATS_PREFIX / bus prefix of what the suite starts. */
  prefix: string;
  jsm(): Promise<JetStreamManager>;
  /** `<PREFIX>_<suffix>`, the name a bus gives its stream (`RUNS`, `INGEST`). */
  stream(suffix: string): string;
  /** Deletes the prefix's streams, then closes the connection. */
  close(): Promise<void>;
}

/** Requires the shared NATS (never skips) and connects to it under a fresh prefix. */
export async function setupNats(label = 'n', opts: { name?: string } = {}): Promise<NatsSetup> {
  const url = await requireNats();
  const { connect } = await import('nats');
  const prefix = uniquePrefix(label);
  const nc = await connect({ servers: url, ...(opts.name ? { name: opts.name } : {}) });
  return {
    url,
    nc,
    prefix,
    jsm: () => nc.jetstreamManager(),
    stream: (suffix) => `${prefix.toUpperCase()}_${suffix}`,
    close: async () => {
      try {
        await deleteStreamsOn(nc, prefix);
      } finally {
        await nc.close();
      }
    },
  };
}
