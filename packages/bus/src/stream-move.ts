import { randomUUID } from 'node:crypto';
import {
  Events,
  StorageType,
  type JetStreamManager,
  type MsgHdrs,
  type NatsConnection,
  type StreamConfig,
  type StreamInfo,
  type StreamUpdateConfig,
  type MsgRequest,
} from 'nats';
import { conflict, unavailable, type Logger } from '@hookyard/core';
import { ensureStream } from './nats-setup';
import { isAlreadyExists, isNotFound } from './nats-errors';

export interface StreamMoveOptions {
  /** A subject no other stream holds, for the lock stream of the move (e.g. `hooks.runs.moving`). */
  lockSubject: string;
  logger: Logger;
  /** A lock older than this is taken to be a crashed replica's and taken over (default 60 000). */
  staleLockMs?: number;
  /** How often a replica waiting on another's move looks again (default 250). */
  pollMs?: number;
}

interface HeldMessage {
  subject: string;
  data: Uint8Array;
  headers?: MsgHdrs;
}

/**
 * `ensureStream`, for a stream whose storage may have changed (HOOKS_NATS_STORAGE).
 * NATS cannot change a live stream's storage, so a stream found with the other
 * one is moved: sealed (a publish from then on fails loudly, and the door leaves
 * those runs to the sweep), its messages read, deleted, created anew with
 * `cfg.storage`, and the messages published again. One replica moves it, under a
 * lock stream (a create fails for everyone but the first); the others wait for
 * the new stream and then only ensure it. A replica that dies mid-move leaves its
 * lock to go stale and the sealed stream to be moved by the next one; messages
 * read and not yet published again are in its log, and the sweep re-dispatches
 * their runs from Redis.
 */
export async function ensureStreamStorage(
  nc: NatsConnection,
  jsm: JetStreamManager,
  cfg: Partial<StreamConfig> & { name: string; subjects: string[]; storage: StorageType },
  options: StreamMoveOptions,
): Promise<void> {
  const staleLockMs = options.staleLockMs ?? 60_000;
  const pollMs = options.pollMs ?? 250;
  const lockName = `${cfg.name}_MOVING`;
  const deadline = Date.now() + 2 * staleLockMs + 30_000;
  for (;;) {
    const info = await streamInfo(jsm, cfg.name);
    if (!info || info.config.storage === cfg.storage) {
      await ensureStream(jsm, cfg);
      return;
    }
    checkSubjects(info, cfg);
    const token = randomUUID();
    if (await takeLock(jsm, lockName, options.lockSubject, token)) {
      try {
        // Read again under the lock: another replica may have moved it meanwhile.
        const now = await streamInfo(jsm, cfg.name);
        if (now && now.config.storage !== cfg.storage) await move(nc, jsm, now, cfg, options.logger);
      } finally {
        await jsm.streams.delete(lockName).catch(() => undefined);
      }
      continue;
    }
    const lock = await streamInfo(jsm, lockName);
    if (lock && Date.now() - Date.parse(lock.created) > staleLockMs) {
      options.logger.warn({ stream: cfg.name, lock: lockName, since: lock.created }, 'a move of the stream never finished; taking it over');
      await jsm.streams.delete(lockName).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw unavailable(
        `stream ${JSON.stringify(cfg.name)} is still being moved to ${cfg.storage} storage by another replica; if none is starting, delete stream ${JSON.stringify(lockName)} and start again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function move(
  nc: NatsConnection,
  jsm: JetStreamManager,
  info: StreamInfo,
  cfg: Partial<StreamConfig> & { name: string; subjects: string[]; storage: StorageType },
  logger: Logger,
): Promise<void> {
  const name = cfg.name;
  // Sealed first, so no publish lands between the read and the delete unnoticed.
  // nats.js types leave `sealed` out of an update; the server (2.6.2+) takes it.
  if (!info.config.sealed) await jsm.streams.update(name, { ...info.config, sealed: true } as Partial<StreamUpdateConfig>);
  const held = await readAll(jsm, name);
  const payloads = held.map((m) => new TextDecoder().decode(m.data));
  // Logged before the delete: were this replica to die before publishing them again, here they are.
  logger.warn(
    { stream: name, from: info.config.storage, to: cfg.storage, messages: held.length, payloads },
    'moving the stream to its new storage; its messages are published again',
  );
  await jsm.streams.delete(name);
  await ensureStream(jsm, cfg);
  const js = nc.jetstream();
  let published = 0;
  try {
    for (const m of held) {
      await js.publish(m.subject, m.data, m.headers ? { headers: m.headers } : undefined);
      published += 1;
    }
  } catch (err) {
    // The stream itself is in place: start goes on, and the sweep dispatches what these carried.
    logger.error(
      { err, stream: name, unpublished: payloads.slice(published) },
      'messages of the moved stream not published again; the sweep re-dispatches their runs',
    );
    return;
  }
  logger.info({ stream: name, storage: cfg.storage, messages: published }, 'stream moved');
}

/** Every message in the stream, oldest first, one request each: a work-queue stream holds only what is not yet acknowledged. */
async function readAll(jsm: JetStreamManager, name: string): Promise<HeldMessage[]> {
  const out: HeldMessage[] = [];
  for (let seq = 1; ;) {
    let m;
    try {
      // The first message at or past `seq` (server 2.9+; the client's types know only an exact seq).
      m = await jsm.streams.getMessage(name, { seq, next_by_subj: '>' } as MsgRequest);
    } catch (err) {
      if (isNotFound(err)) return out;
      throw err;
    }
    out.push({ subject: m.subject, data: m.data, headers: m.header.keys().length ? m.header : undefined });
    seq = m.seq + 1;
  }
}

/** True when this replica created the lock; false when another holds it. */
async function takeLock(jsm: JetStreamManager, lockName: string, subject: string, token: string): Promise<boolean> {
  try {
    // The token makes every replica's config differ, so a second create fails instead of returning the first's stream.
    await jsm.streams.add({ name: lockName, subjects: [subject], storage: StorageType.Memory, description: `stream move lock ${token}`, max_msgs: 1 });
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** Another stream by that name (a prefix differing only in case) is never deleted. */
function checkSubjects(info: StreamInfo, cfg: { name: string; subjects: string[] }): void {
  const have = [...(info.config.subjects ?? [])].sort().join(',');
  if (have !== [...cfg.subjects].sort().join(',')) {
    throw conflict(
      `move JetStream stream ${JSON.stringify(cfg.name)}: it exists with subjects ${JSON.stringify(have)}, wanted ${JSON.stringify(cfg.subjects.join(','))}`,
    );
  }
}

/**
 * Runs `ensure` again after every reconnect until it passes (or the connection
 * closes): a single NATS server forgets a memory stream and its consumers when
 * it restarts, and nothing else would create them before a role restarts. The
 * runs they held are due in Redis, so the sweep dispatches them again.
 */
export function ensureAgainOnReconnect(nc: NatsConnection, ensure: () => Promise<void>, logger: Logger, what: string, retryMs = 1000): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type !== Events.Reconnect) continue;
      for (let attempt = 1; !nc.isClosed(); attempt += 1) {
        try {
          await ensure();
          break;
        } catch (err) {
          logger.warn({ err, attempt }, `${what} not set up again after a reconnect; retrying`);
          await new Promise((resolve) => setTimeout(resolve, retryMs));
        }
      }
    }
  })().catch(() => undefined);
}
