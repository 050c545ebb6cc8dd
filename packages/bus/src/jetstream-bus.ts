import { headers as natsHeaders, type JsMsg } from 'nats';
import { badInput, silentLogger, unavailable, type Logger } from '@hookyard/core';
import { connectNats, ensureConsumer, pullConsumerConfig, streamName, workQueueStreamConfig, type StreamStorage } from './nats-setup';
import { ensureAgainOnReconnect, ensureStreamStorage } from './stream-move';
import type { NatsCredentials } from './nats-auth';
import { toBusError, withTimeout } from './nats-errors';
import { openJetStreamPullSource } from './pull-source';
import { startPullWorker, type PullWorker } from './pull-worker';
import { PLAN_HEADER, decodeHints, encodeHints } from './run-hints';
import type { RunBus, Subscription } from './types';

export interface JetStreamBusOptions {
  /** NATS server URL(s), comma-separated. */
  url: string;
  /** Who this connection is to NATS (HOOKS_NATS_USER/_PASSWORD, _TOKEN, _NKEY_SEED, _CREDS, TLS); none: anonymous. */
  credentials?: NatsCredentials;
  /** Subject prefix; `hooks` gives subjects `hooks.runs.ready.>` and stream `HOOKS_RUNS`. */
  prefix: string;
  logger?: Logger;
  /** How long a delivered message may go unacknowledged before redelivery (default RUN_ACK_WAIT_MS, 10 000). */
  ackWaitMs?: number;
  /** Messages delivered and not yet acknowledged, across all replicas (default 4096). */
  maxAckPending?: number;
  /** Bound on one publish, so a publish while the server is away rejects instead of hanging (default 2000). */
  publishTimeoutMs?: number;
  /** Replicas of the run stream on a NATS cluster (HOOKS_NATS_REPLICAS; default 1). */
  replicas?: number;
  /**
   * Storage of the run stream (HOOKS_NATS_STORAGE; default file). Memory is safe because Redis keeps
   * the runs and the sweep re-dispatches any a NATS restart drops. A stream of the other storage is
   * moved at start.
   */
  storage?: StreamStorage;
}

/** The durable pull consumer every executor replica shares. */
export const RUN_CONSUMER = 'executor';
/** Run ids per message: one event with many hooks is a handful of publishes, not one per run. */
export const RUN_IDS_PER_MESSAGE = 100;
/** A dispatch older than this is stale: the sweep will have re-dispatched the run. */
const RUN_MESSAGE_MAX_AGE_MS = 24 * 3600 * 1000;
/** After this many deliveries without an ack the message is dropped; the sweep covers the run. */
const RUN_MAX_DELIVER = 10;
/**
 * A held message is marked in progress every third of this; one left with an executor that stopped
 * answering (frozen, cut off) goes to another this long after its last mark.
 */
export const RUN_ACK_WAIT_MS = 10_000;
/** A frozen executor's open pull requests take new messages until they expire: this long at most. */
export const RUN_PULL_EXPIRES_MS = 2000;

export function runSubject(prefix: string): string {
  return `${prefix}.runs.ready.ids`;
}

/**
 * The dispatch channel on JetStream. Work-queue retention: the executors form
 * one consumer group, so an acknowledged message has no further reader and
 * leaves the stream at once, which keeps it small without a limits sweep.
 */
export async function createJetStreamBus(options: JetStreamBusOptions): Promise<RunBus> {
  const logger = options.logger ?? silentLogger();
  const ackWaitMs = options.ackWaitMs ?? RUN_ACK_WAIT_MS;
  const publishTimeoutMs = options.publishTimeoutMs ?? 2000;
  const stream = streamName(options.prefix, 'RUNS');
  const subject = runSubject(options.prefix);
  const conn = await connectNats(options.url, `hookyard-bus-${options.prefix}`, logger, options.credentials);
  const { nc } = conn;
  const storage = options.storage ?? 'file';
  const setUp = async () => {
    const jsm = await nc.jetstreamManager();
    const cfg = workQueueStreamConfig(stream, `${options.prefix}.runs.ready.>`, RUN_MESSAGE_MAX_AGE_MS, options.replicas ?? 1, storage);
    await ensureStreamStorage(nc, jsm, cfg, { lockSubject: `${options.prefix}.runs.moving`, logger });
    await ensureConsumer(jsm, stream, pullConsumerConfig(RUN_CONSUMER, ackWaitMs, options.maxAckPending ?? 4096, RUN_MAX_DELIVER));
  };
  try {
    await setUp();
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw toBusError(err, `set up run stream ${JSON.stringify(stream)}`);
  }
  // A single server forgets a memory stream, consumer and all, when it restarts.
  if (storage === 'memory') ensureAgainOnReconnect(nc, setUp, logger, `run stream ${JSON.stringify(stream)}`);
  const js = nc.jetstream();
  const workers = new Set<PullWorker>();
  let closed = false;

  const readIds = (msg: JsMsg): string[] => {
    const ids: unknown = msg.json();
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw badInput(`run message is not a JSON array of strings: ${msg.string().slice(0, 200)}`);
    }
    return ids;
  };

  return {
    kind: 'jetstream',
    async publish(runIds, options) {
      if (closed) throw unavailable(`run bus is closed; ${runIds.length} run id(s) not published`);
      if (!conn.isConnected()) throw unavailable(`NATS is disconnected; ${runIds.length} run id(s) not published to ${JSON.stringify(subject)}`);
      const chunks: string[][] = [];
      for (let i = 0; i < runIds.length; i += RUN_IDS_PER_MESSAGE) chunks.push(runIds.slice(i, i + RUN_IDS_PER_MESSAGE));
      try {
        // Acks in flight together: the caller waits one round trip, not one per chunk.
        const hints = options?.hints;
        const opts = (start: number, chunk: string[]) => {
          const plan = hints ? encodeHints(hints.slice(start, start + chunk.length)) : null;
          if (!plan && !options?.traceparent) return { timeout: publishTimeoutMs };
          return { timeout: publishTimeoutMs, headers: messageHeaders(options?.traceparent, plan) };
        };
        await Promise.all(chunks.map((chunk, n) => js.publish(subject, JSON.stringify(chunk), opts(n * RUN_IDS_PER_MESSAGE, chunk))));
      } catch (err) {
        const doing = `publish ${runIds.length} run id(s) to ${JSON.stringify(subject)}`;
        if (!conn.isConnected()) throw unavailable(`${doing}: NATS disconnected`, err);
        throw toBusError(err, doing);
      }
    },
    async subscribe(handler, opts): Promise<Subscription> {
      if (closed) throw unavailable('run bus is closed; cannot subscribe');
      if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
        throw badInput(`subscribe concurrency must be a positive integer, got ${JSON.stringify(opts.concurrency)}`);
      }
      try {
        // Checked here so a missing consumer is an error of subscribe, not of every pull.
        await js.consumers.get(stream, RUN_CONSUMER);
      } catch (err) {
        throw toBusError(err, `open consumer ${JSON.stringify(RUN_CONSUMER)} on ${JSON.stringify(stream)}`);
      }
      const worker = startPullWorker({
        open: (handlers) =>
          openJetStreamPullSource(
            { nc, stream, consumer: RUN_CONSUMER, expiresMs: RUN_PULL_EXPIRES_MS, logger, inboxPrefix: options.credentials?.inboxPrefix },
            handlers,
          ),
        concurrency: opts.concurrency,
        heartbeatMs: Math.max(100, Math.floor(ackWaitMs / 3)),
        logger,
        prepare: (msg) => {
          const traceparent = msg.headers?.get(TRACEPARENT) || undefined;
          const ids = readIds(msg);
          const hints = msg.headers ? decodeHints(msg.headers.get(PLAN_HEADER) || undefined, ids.length) : null;
          return {
            tasks: ids.map((id, i) => () => handler(id, traceparent, hints?.[i])),
            // Acked even when a handler threw: the sweep re-dispatches what was not done.
            settle: (outcomes) => {
              for (const o of outcomes) if (o.status === 'rejected') logger.debug({ err: o.reason }, 'run handler threw');
              msg.ack();
            },
          };
        },
      });
      workers.add(worker);
      return {
        resize(concurrency) {
          if (!Number.isInteger(concurrency) || concurrency < 1)
            throw badInput(`subscribe concurrency must be a positive integer, got ${JSON.stringify(concurrency)}`);
          worker.resize(concurrency);
        },
        async stop() {
          workers.delete(worker);
          await worker.stop();
        },
      };
    },
    async ping() {
      if (closed || nc.isClosed()) throw unavailable('run bus is closed');
      if (!conn.isConnected()) throw unavailable('NATS is disconnected; reconnecting');
      try {
        await withTimeout(nc.rtt(), 2000, 'ping NATS');
      } catch (err) {
        throw toBusError(err, 'ping NATS');
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // Handlers still running are not waited for (stop() is the graceful path):
      // their messages are redelivered after ack wait.
      for (const w of workers) w.abort();
      workers.clear();
      try {
        await withTimeout(nc.drain(), 5000, 'drain NATS connection');
      } catch {
        await nc.close().catch(() => undefined);
      }
    },
  };
}

/** The message header carrying the publisher's W3C trace context. */
const TRACEPARENT = 'traceparent';

function messageHeaders(traceparent: string | undefined, plan: string | null) {
  const h = natsHeaders();
  if (traceparent) h.set(TRACEPARENT, traceparent);
  if (plan) h.set(PLAN_HEADER, plan);
  return h;
}
