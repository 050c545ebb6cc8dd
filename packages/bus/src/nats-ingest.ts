import { DiscardPolicy, nanos, type JsMsg } from 'nats';
import { badInput, setOwn, silentLogger, unavailable, type Logger } from '@hookyard/core';
import { connectNats, ensureConsumer, ensureStream, pullConsumerConfig, streamName, workQueueStreamConfig } from './nats-setup';
import type { NatsCredentials } from './nats-auth';
import { toBusError, withTimeout } from './nats-errors';
import { openJetStreamPullSource } from './pull-source';
import { startPullWorker, type PullWorker } from './pull-worker';

/** One event delivered on `${prefix}.ingest.<topic>`. */
export interface IngestMessage {
  /** The subject after `${prefix}.ingest.` (may itself contain dots; the caller validates it). */
  topic: string;
  data: Uint8Array;
  /** NATS headers, names lower-cased (as node's HTTP headers), first value of each. */
  headers: Record<string, string>;
  /** The `Nats-Msg-Id` header: the sender's delivery id, for the caller's dedupe. */
  msgId: string | null;
}

/** What the caller did with an event: kept it, had seen it, or refused it for good. */
export type IngestVerdict = 'accepted' | 'duplicate' | 'rejected';

export type IngestHandler = (msg: IngestMessage) => Promise<IngestVerdict>;

export interface NatsIngest {
  /**
   * Starts consuming. 'accepted' and 'duplicate' ack the message; 'rejected'
   * terminates it (never redelivered); a throw (store down) naks it with a
   * delay so it comes back later.
   */
  start(handler: IngestHandler, options?: { concurrency?: number }): Promise<void>;
  /** Messages handled at once from the next one admitted (a live HOOKS_MAX_WORKERS); none in flight is cancelled. */
  resize(concurrency: number): void;
  /** Stops pulling and waits for handlers in flight. */
  stop(): Promise<void>;
  /** Stops (if started) and closes the connection. */
  close(): Promise<void>;
}

export interface NatsIngestOptions {
  url: string;
  /** Who this connection is to NATS (HOOKS_NATS_USER/_PASSWORD, _TOKEN, _NKEY_SEED, _CREDS, TLS); none: anonymous. */
  credentials?: NatsCredentials;
  /** Subject prefix: `hooks` consumes `hooks.ingest.>` from stream `HOOKS_INGEST`. */
  prefix: string;
  logger?: Logger;
  /** Ack wait of the `ingress` consumer (default 30 000). */
  ackWaitMs?: number;
  /** Delay before a message whose handler threw comes back (default 5000). */
  retryDelayMs?: number;
  /** Replicas of the ingest stream on a NATS cluster (HOOKS_NATS_REPLICAS; default 1). */
  replicas?: number;
  /** Bytes the ingest stream holds at most (HOOKS_NATS_INGEST_MAX_BYTES; default INGEST_MAX_BYTES); a publish past it is refused. */
  maxBytes?: number;
}

/** The durable pull consumer every ingress replica shares. */
export const INGEST_CONSUMER = 'ingress';
/** Events are not yet kept anywhere else: keep them a week while the store is down. */
const INGEST_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** The ingest stream's default bound (HOOKS_NATS_INGEST_MAX_BYTES): 1 GiB. */
export const INGEST_MAX_BYTES = 1024 ** 3;
/**
 * JetStream's duplicate window is one per stream, over every subject: a
 * Nats-Msg-Id on one topic would make the same id on another topic a
 * duplicate that nothing keeps. The door claims ids per topic itself
 * (HOOKS_NATS_DEDUPE_SECONDS), so the stream's window is the shortest the
 * server accepts: nats-server refuses less than 100 ms and reads 0 as its
 * 2-minute default; it has no way to turn the window off.
 */
export const INGEST_DUPLICATE_WINDOW_MS = 100;

export function ingestSubject(prefix: string, topic: string): string {
  return `${prefix}.ingest.${topic}`;
}

/**
 * The NATS door for platform teams. Work-queue retention: an event leaves the
 * stream once the ingress kept (or refused) it. Unlimited deliveries: a throw
 * means the store is down, and the event must wait for it, not be dropped.
 */
export async function createNatsIngest(options: NatsIngestOptions): Promise<NatsIngest> {
  const logger = options.logger ?? silentLogger();
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const retryDelayMs = options.retryDelayMs ?? 5000;
  const stream = streamName(options.prefix, 'INGEST');
  const subjectHead = `${options.prefix}.ingest.`;
  const conn = await connectNats(options.url, `hookyard-ingest-${options.prefix}`, logger, options.credentials);
  const { nc } = conn;
  try {
    const jsm = await nc.jetstreamManager();
    await ensureStream(
      jsm,
      {
        ...workQueueStreamConfig(stream, `${subjectHead}>`, INGEST_MAX_AGE_MS, options.replicas ?? 1),
        duplicate_window: nanos(INGEST_DUPLICATE_WINDOW_MS),
        // Full while the ingress is away: a publish is refused (the publisher sees the error and
        // can retry) rather than the oldest event dropped, or the disk filled.
        max_bytes: options.maxBytes ?? INGEST_MAX_BYTES,
        discard: DiscardPolicy.New,
      },
      logger,
    );
    await ensureConsumer(jsm, stream, pullConsumerConfig(INGEST_CONSUMER, ackWaitMs, 1024, -1));
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw toBusError(err, `set up ingest stream ${JSON.stringify(stream)}`);
  }
  let worker: PullWorker | null = null;
  let closed = false;

  const toMessage = (msg: JsMsg): IngestMessage => {
    const headers: Record<string, string> = {};
    for (const key of msg.headers?.keys() ?? []) setOwn(headers, key.toLowerCase(), msg.headers!.get(key));
    return {
      topic: msg.subject.slice(subjectHead.length),
      data: msg.data,
      headers,
      msgId: msg.headers?.get('Nats-Msg-Id') || null,
    };
  };

  const settle = (msg: JsMsg, outcome: PromiseSettledResult<unknown>) => {
    if (outcome.status === 'rejected') {
      logger.warn({ err: outcome.reason, subject: msg.subject, delivered: msg.info.redeliveryCount }, 'ingest handler failed; retrying later');
      msg.nak(retryDelayMs);
    } else if (outcome.value === 'rejected') {
      msg.term();
    } else if (outcome.value === 'accepted' || outcome.value === 'duplicate') {
      msg.ack();
    } else {
      logger.error({ verdict: outcome.value, subject: msg.subject }, 'ingest handler returned an unknown verdict; retrying later');
      msg.nak(retryDelayMs);
    }
  };

  const stop = async () => {
    const w = worker;
    worker = null;
    await w?.stop();
  };

  return {
    async start(handler, opts = {}) {
      if (closed) throw unavailable('NATS ingest is closed; cannot start');
      if (worker) throw badInput('NATS ingest already started');
      const concurrency = opts.concurrency ?? 16;
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw badInput(`ingest concurrency must be a positive integer, got ${JSON.stringify(concurrency)}`);
      }
      try {
        // Checked here so a missing consumer is an error of subscribe, not of every pull.
        await nc.jetstream().consumers.get(stream, INGEST_CONSUMER);
      } catch (err) {
        throw toBusError(err, `open consumer ${JSON.stringify(INGEST_CONSUMER)} on ${JSON.stringify(stream)}`);
      }
      worker = startPullWorker({
        open: (handlers) =>
          openJetStreamPullSource({ nc, stream, consumer: INGEST_CONSUMER, expiresMs: 5000, logger, inboxPrefix: options.credentials?.inboxPrefix }, handlers),
        concurrency,
        heartbeatMs: Math.max(100, Math.floor(ackWaitMs / 3)),
        logger,
        prepare: (msg) => ({
          tasks: [() => handler(toMessage(msg))],
          settle: ([outcome]) => settle(msg, outcome!),
        }),
      });
    },
    resize(concurrency) {
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw badInput(`ingest concurrency must be a positive integer, got ${JSON.stringify(concurrency)}`);
      worker?.resize(concurrency);
    },
    stop,
    async close() {
      if (closed) return;
      closed = true;
      await stop();
      await withTimeout(nc.drain(), 5000, 'drain NATS connection').catch(() => nc.close());
    },
  };
}
