import { type Logger, silentLogger } from '@hookyard/core';
import { checkPrefix, connectNats } from './nats-setup';
import type { NatsCredentials } from './nats-auth';
import { withTimeout } from './nats-errors';
import type { RunEventPublisher, RunSummary } from './run-events';

/** Where a reader of run events (the ingress's `GET /api/events`) listens. */
export interface RunEventFeed {
  /** Calls `listener` for every run event from now on; the answer stops it. */
  listen(listener: (summary: RunSummary) => void): () => void;
  close(): Promise<void>;
}

/** A feed that is also the publisher: the embedded default, where every role is in one process. */
export type RunEventHub = RunEventPublisher & RunEventFeed;

/** Fans each published summary out to the listeners of the moment; keeps nothing. */
export function createRunEventHub(): RunEventHub {
  const listeners = new Set<(s: RunSummary) => void>();
  return {
    async publish(summary) {
      for (const l of [...listeners]) l(summary);
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}

export interface RunEventSubscriberOptions {
  url: string;
  /** Who this connection is to NATS (HOOKS_NATS_USER/_PASSWORD, _TOKEN, _NKEY_SEED, _CREDS, TLS); none: anonymous. */
  credentials?: NatsCredentials;
  /** Subject prefix: `hooks` listens on `hooks.events.run.>`. */
  prefix: string;
  logger?: Logger;
}

/**
 * Listens on `<prefix>.events.run.>` (core NATS, as published: no stream keeps
 * them, so a listener sees what is published while it listens) and fans each
 * summary out to the feed's listeners. A message that is not a summary is
 * logged and dropped. One NATS subscription however many listeners.
 */
export async function createRunEventSubscriber(options: RunEventSubscriberOptions): Promise<RunEventFeed> {
  const logger = options.logger ?? silentLogger();
  checkPrefix(options.prefix);
  const conn = await connectNats(options.url, `hookyard-events-feed-${options.prefix}`, logger, options.credentials);
  const hub = createRunEventHub();
  const sub = conn.nc.subscribe(`${options.prefix}.events.run.>`);
  void (async () => {
    for await (const m of sub) {
      let summary: RunSummary;
      try {
        summary = JSON.parse(m.string()) as RunSummary;
        if (typeof summary?.run_id !== 'string' || typeof summary.status !== 'string') throw new Error('not a run summary');
      } catch (err) {
        logger.warn({ subject: m.subject, err: (err as Error).message }, 'dropped a run event that is not a run summary');
        continue;
      }
      await hub.publish(summary);
    }
  })();
  // The subscription is at the server before the feed is handed out: nothing published after this is missed.
  await conn.nc.flush();
  return {
    listen: (l) => hub.listen(l),
    async close() {
      sub.unsubscribe();
      await hub.close();
      await withTimeout(conn.nc.drain(), 5000, 'drain NATS connection').catch(() => conn.nc.close());
    },
  };
}
