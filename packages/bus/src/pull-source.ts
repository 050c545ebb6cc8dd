import { Events, createInbox, nanos, type JsMsg, type Msg, type NatsConnection, type Subscription } from 'nats';
// JsMsgImpl wraps a raw delivery with ack/nak/working/term; nats.js keeps its factory internal.
import { toJsMsg } from 'nats/lib/jetstream/jsmsg';
import type { Logger } from '@hookyard/core';

/**
 * Where a pull worker's messages come from: pull requests that stay open at
 * the server, so a message is delivered the moment it is stored rather than
 * when the next request arrives.
 */
export interface PullSource {
  /** Asks for `batch` more messages; the request waits at the server until filled or expired. */
  request(batch: number): void;
  /** Messages asked for and neither delivered nor expired yet. */
  outstanding(): number;
  close(): void;
}

export interface PullSourceHandlers {
  message(msg: JsMsg): void;
  /** Outstanding dropped for a reason other than a delivery (an expiry, a refusal, a reconnect): time to top up. */
  changed(): void;
}

export interface JetStreamPullSourceOptions {
  nc: NatsConnection;
  stream: string;
  consumer: string;
  /** How long one pull request waits at the server for messages. */
  expiresMs: number;
  /** The ack timeout of a delivered message's ack() call (nats.js's own default: 5000). */
  ackTimeoutMs?: number;
  logger: Logger;
  /** The connection's inbox prefix (HOOKS_NATS_INBOX_PREFIX): a role may subscribe to its own inboxes only. Default `_INBOX`. */
  inboxPrefix?: string;
}

const PENDING_MESSAGES = 'Nats-Pending-Messages';

/**
 * A standing pull on one inbox subscription for the worker's life: a pull
 * request is one publish (no subscription per fetch), several may wait at the
 * server side by side, and each delivery counts one off. The server answers
 * an expired or refused request with a status naming how many of it were
 * left; a reconnect (the server forgot the requests) or a silence longer than
 * two expiries forgets the count, and the worker asks again.
 */
export function openJetStreamPullSource(opts: JetStreamPullSourceOptions, on: PullSourceHandlers): PullSource {
  const { nc, logger } = opts;
  const inbox = createInbox(opts.inboxPrefix);
  const next = `$JS.API.CONSUMER.MSG.NEXT.${opts.stream}.${opts.consumer}`;
  let outstanding = 0;
  let heardAt = Date.now();
  let closed = false;

  const forget = (why: string) => {
    if (outstanding === 0) return;
    logger.debug({ outstanding, why }, 'pull requests forgotten; asking again');
    outstanding = 0;
    on.changed();
  };

  const sub: Subscription = nc.subscribe(inbox, {
    callback: (err, msg: Msg) => {
      if (closed) return;
      heardAt = Date.now();
      if (err) {
        logger.warn({ err: err.message }, 'pull subscription error');
        return forget('subscription error');
      }
      if (msg.subject !== inbox) {
        outstanding = Math.max(0, outstanding - 1);
        return on.message(toJsMsg(msg, opts.ackTimeoutMs ?? 5000));
      }
      // A status on the inbox: 100 idle heartbeat, 408 request expired, 409 refused or ended early.
      const code = msg.headers?.code ?? 0;
      if (code === 100) return;
      const left = Number(msg.headers?.get(PENDING_MESSAGES) || 0);
      if (left > 0) {
        outstanding = Math.max(0, outstanding - left);
        on.changed();
        return;
      }
      // A refusal without a count (e.g. 409 exceeded max waiting): start the count over.
      logger.debug({ code, description: msg.headers?.description }, 'pull request status');
      forget(`status ${code}`);
    },
  });

  const statuses = nc.status()[Symbol.asyncIterator]();
  void (async () => {
    for (let s = await statuses.next(); !s.done && !closed; s = await statuses.next()) if (s.value.type === Events.Reconnect) forget('reconnected');
  })().catch(() => undefined);

  // Every open request expires within expiresMs and the server then says so: two expiries of silence means it forgot them.
  const watchdog = setInterval(() => {
    if (outstanding > 0 && Date.now() - heardAt > 2 * opts.expiresMs) forget('no word from the server');
  }, opts.expiresMs);
  watchdog.unref();

  return {
    request(batch) {
      if (closed || batch < 1) return;
      outstanding += batch;
      if (outstanding === batch) heardAt = Date.now();
      try {
        nc.publish(next, JSON.stringify({ batch, expires: nanos(opts.expiresMs) }), { reply: inbox });
      } catch (err) {
        outstanding -= batch;
        logger.debug({ err: (err as Error).message }, 'pull request not sent');
      }
    },
    outstanding: () => outstanding,
    close() {
      if (closed) return;
      closed = true;
      clearInterval(watchdog);
      void statuses.return?.();
      try {
        sub.unsubscribe();
      } catch {
        /* connection already closed */
      }
    },
  };
}
