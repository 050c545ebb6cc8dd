import {
  AckPolicy,
  DeliverPolicy,
  Events,
  RetentionPolicy,
  StorageType,
  connect,
  nanos,
  type ConsumerConfig,
  type JetStreamManager,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import { HookyardError, badInput, conflict, type Logger } from '@hookyard/core';
import { authRefusal, natsAuthOptions, type NatsCredentials } from './nats-auth';
import { isAlreadyExists, isNotFound, toBusError } from './nats-errors';

/** Subject tokens separated by dots; no wildcards or spaces, so it is safe inside a subject. */
const PREFIX_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Rejects a subject prefix with wildcards, spaces or empty tokens. */
export function checkPrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw badInput(`NATS prefix ${JSON.stringify(prefix)} does not match ${PREFIX_PATTERN.source}`);
  }
  return prefix;
}

/** Checks a subject prefix ("hooks") and names its stream: `hooks` + `RUNS` -> `HOOKS_RUNS`. */
export function streamName(prefix: string, suffix: string): string {
  checkPrefix(prefix);
  return `${prefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}_${suffix}`;
}

/** One subject token (a hook name, a status); rejects what would change the subject's shape. */
export function subjectToken(value: string, field: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) {
    throw badInput(`${field} ${JSON.stringify(value)} cannot be a NATS subject token (expected [A-Za-z0-9_-]+)`);
  }
  return value;
}

/** A connection that keeps reconnecting forever and tells whether it is up right now. */
export interface TrackedConnection {
  nc: NatsConnection;
  /** False between a disconnect and the next reconnect. */
  isConnected(): boolean;
}

/**
 * A NATS server list fit for a message or a log line: the user info of every
 * entry (`user:password@`, `token@`) becomes `***@`. Entries without a scheme
 * (`alice:pw@host:4222`) are covered too.
 */
export function redactNatsUrl(url: string): string {
  return url
    .split(',')
    .map((entry) => entry.replace(/^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#]*@/, (_m, scheme: string | undefined) => `${scheme ?? ''}***@`))
    .join(',');
}

/** Connects with `credentials` (the settings' user and password, token, NKey seed or .creds, and TLS; see nats-auth.ts). */
export async function connectNats(url: string, name: string, logger: Logger, credentials?: NatsCredentials): Promise<TrackedConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: url.split(',').map((s) => s.trim()),
      name,
      maxReconnectAttempts: -1,
      // No `new Error()` per request (every JetStream publish is one) to keep the caller's stack for a timeout:
      // our errors say what was being done; measured 20-50 % more publishes/s from 64 callers.
      noAsyncTraces: true,
      reconnectTimeWait: 500,
      timeout: 5000,
      ...natsAuthOptions(credentials),
    });
  } catch (err) {
    // Never the credentials: the server list is quoted with its user info redacted.
    const refused = authRefusal(err, JSON.stringify(redactNatsUrl(url)), credentials);
    if (refused) throw refused;
    const e = toBusError(err, `connect to NATS at ${JSON.stringify(redactNatsUrl(url))}`);
    if (e.message.includes('@')) e.message = redactCredentialsIn(e.message, url);
    throw e;
  }
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) {
        connected = false;
        logger.warn({ nats: name, data: s.data }, 'NATS connection lost; reconnecting');
      } else if (s.type === Events.Reconnect) {
        connected = true;
        logger.info({ nats: name, data: s.data }, 'NATS connection restored');
      }
    }
  })().catch(() => undefined);
  return { nc, isConnected: () => connected && !nc.isClosed() };
}

/** Removes any user info of `url`'s entries that a client error message may have quoted. */
function redactCredentialsIn(text: string, url: string): string {
  let out = text;
  for (const entry of url.split(',')) {
    const m = /^\s*(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^/?#]*)@/.exec(entry);
    if (m?.[1]) out = out.split(`${m[1]}@`).join('***@');
  }
  return out;
}

/**
 * Creates the stream, or updates it when it exists, so every replica can run
 * this at start. A stream of that name bound to other subjects is a conflict
 * (two prefixes that differ only in case), never silently rebound.
 */
export async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string; subjects: string[] }, logger?: Logger): Promise<void> {
  const doing = `ensure JetStream stream ${JSON.stringify(cfg.name)}`;
  try {
    let existing;
    try {
      existing = await jsm.streams.info(cfg.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!existing) {
      try {
        await jsm.streams.add(cfg);
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        existing = await jsm.streams.info(cfg.name);
      }
    }
    const have = [...(existing.config.subjects ?? [])].sort().join(',');
    if (have !== [...cfg.subjects].sort().join(',')) {
      throw conflict(`${doing}: it exists with subjects ${JSON.stringify(have)}, wanted ${JSON.stringify(cfg.subjects.join(','))}`);
    }
    // Retention and storage cannot change on a live stream; limits can.
    const { retention: _r, storage: _s, name: _n, ...updatable } = cfg;
    const had = existing.config.max_bytes ?? -1;
    const shrinks = cfg.max_bytes !== undefined && cfg.max_bytes > 0 && (had <= 0 || had > cfg.max_bytes);
    // A tenth spare for publishes that land between the read above and the update.
    if (shrinks && existing.state.bytes > cfg.max_bytes! * 0.9) {
      // The server would drop the oldest messages to fit a smaller bound, even with discard `new`:
      // what the stream holds is kept, and the bound applies from a start that finds it under.
      delete updatable.max_bytes;
      delete updatable.discard;
      logger?.warn(
        { stream: cfg.name, bytes: existing.state.bytes, max_bytes: cfg.max_bytes },
        'stream holds (nearly) more than its configured bound; its old bound is kept until a start finds it under, so nothing it holds is dropped',
      );
    }
    await jsm.streams.update(cfg.name, { ...existing.config, ...updatable });
  } catch (err) {
    throw err instanceof HookyardError ? err : toBusError(err, doing);
  }
}

/** Creates the durable pull consumer, or brings an existing one to this config. */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, cfg: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const doing = `ensure durable consumer ${JSON.stringify(cfg.durable_name)} on stream ${JSON.stringify(stream)}`;
  try {
    try {
      await jsm.consumers.info(stream, cfg.durable_name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.consumers.add(stream, cfg);
        return;
      } catch (addErr) {
        if (!isAlreadyExists(addErr)) throw addErr;
      }
    }
    const { durable_name: _d, ack_policy: _a, deliver_policy: _p, ...updatable } = cfg;
    await jsm.consumers.update(stream, cfg.durable_name, updatable);
  } catch (err) {
    throw toBusError(err, doing);
  }
}

/** The consumer shape both the run bus and the ingest use: durable, pull, explicit acks. */
export function pullConsumerConfig(
  durable: string,
  ackWaitMs: number,
  maxAckPending: number,
  maxDeliver: number,
): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: maxAckPending,
    max_deliver: maxDeliver,
  };
}

/** Where a stream keeps its messages (HOOKS_NATS_STORAGE for the run stream). */
export type StreamStorage = 'memory' | 'file';

/**
 * A work-queue stream: a message leaves the stream once acknowledged.
 * `replicas` (default 1) copies it over that many servers of a NATS cluster;
 * `storage` defaults to file.
 */
export function workQueueStreamConfig(
  name: string,
  subject: string,
  maxAgeMs: number,
  replicas = 1,
  storage: StreamStorage = 'file',
): Partial<StreamConfig> & { name: string; subjects: string[]; storage: StorageType } {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5)
    throw badInput(`stream replicas must be a whole number from 1 to 5, got ${JSON.stringify(replicas)}`);
  return {
    name,
    subjects: [subject],
    retention: RetentionPolicy.Workqueue,
    storage: storage === 'memory' ? StorageType.Memory : StorageType.File,
    max_age: nanos(maxAgeMs),
    num_replicas: replicas,
  };
}
