import { agentOfHook, type Logger, silentLogger } from '@hookyard/core';
import type { Subscription } from 'nats';
import { checkPrefix, connectNats } from './nats-setup';
import type { NatsCredentials } from './nats-auth';
import { withTimeout } from './nats-errors';
import type { RunEventPublisher, RunSummary } from './run-events';

/** Where a reader of run events (the ingress's `GET /api/events`, its agent door) listens. */
export interface RunEventFeed {
  /** Calls `listener` for every run event from now on (see `listening`); the answer stops it. */
  listen(listener: (summary: RunSummary) => void): () => void;
  /**
   * Settles once the listeners added so far get every event published from then on (the NATS feed takes every
   * run event off NATS only while something listens to all of them: its subscription reaches the server then).
   */
  listening(): Promise<void>;
  /**
   * Calls `listener` for each event of the agent call `runId` (a run of hook `agent:<name>`) from now on; the
   * answer stops it. Routed by run id: an event costs one map lookup however many calls wait, and the events of
   * other hooks never reach it.
   */
  listenCall(runId: string, listener: (summary: RunSummary) => void): () => void;
  close(): Promise<void>;
}

/** A feed that is also the publisher: the embedded default, where every role is in one process. */
export type RunEventHub = RunEventPublisher & RunEventFeed;

/** The listeners of each waiting agent call, by run id. */
export interface CallRouter {
  /** Adds `listener` for the events of run `runId`; the answer removes it (the run's entry goes with its last). */
  add(runId: string, listener: (summary: RunSummary) => void): () => void;
  /** Hands `summary` to the listeners of its run, if any: one lookup. Answers how many were called. */
  deliver(summary: RunSummary): number;
  /** Runs with at least one listener. */
  readonly runs: number;
}

/** A CallRouter on `byRun` (a test may hand a Map that counts its lookups). */
export function createCallRouter(byRun: Map<string, Set<(summary: RunSummary) => void>> = new Map()): CallRouter {
  return {
    add(runId, listener) {
      // Its own function, so the same listener added twice is two entries and each stop removes one.
      const entry = (s: RunSummary) => listener(s);
      let set = byRun.get(runId);
      if (!set) byRun.set(runId, (set = new Set()));
      set.add(entry);
      return () => {
        const now = byRun.get(runId);
        if (!now?.delete(entry)) return;
        if (now.size === 0) byRun.delete(runId);
      };
    },
    deliver(summary) {
      const set = byRun.get(summary.run_id);
      if (!set) return 0;
      const called = set.size;
      for (const l of set.size === 1 ? set : [...set]) l(summary);
      return called;
    },
    get runs() {
      return byRun.size;
    },
  };
}

/** The listeners of every event, called in turn. */
function createFanOut() {
  const listeners = new Set<(s: RunSummary) => void>();
  return {
    deliver(summary: RunSummary) {
      for (const l of [...listeners]) l(summary);
    },
    listen(listener: (s: RunSummary) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    get size() {
      return listeners.size;
    },
    clear: () => listeners.clear(),
  };
}

/**
 * Fans each published summary out to the listeners of the moment, and an agent
 * call's (hook `agent:<name>`, as the NATS feed's subject filter picks them) to
 * the listeners of its run; keeps nothing.
 */
export function createRunEventHub(): RunEventHub {
  const all = createFanOut();
  let calls = createCallRouter();
  return {
    async publish(summary) {
      all.deliver(summary);
      if (agentOfHook(summary.hook) !== null) calls.deliver(summary);
    },
    listen: (listener) => all.listen(listener),
    listening: () => Promise.resolve(),
    listenCall: (runId, listener) => calls.add(runId, listener),
    async close() {
      all.clear();
      calls = createCallRouter();
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

/** The NATS feed; `received` counts the messages its subscriptions took off NATS (what it costs the process). */
export interface RunEventSubscriber extends RunEventFeed {
  readonly received: number;
}

/** The subject of every agent call's events: `<prefix>.events.run.<status>.agent.<name>` (see runEventSubject). */
export function agentCallEventsSubject(prefix: string): string {
  return `${prefix}.events.run.*.agent.*`;
}

/**
 * Listens on `<prefix>.events.run.*.agent.*` (agent calls only) for
 * `listenCall`, all the time, and on `<prefix>.events.run.>` for `listen`
 * only while something listens (`GET /api/events` readers): an ingress nobody
 * watches takes only the agent calls' events off NATS. Core NATS, as
 * published: no stream keeps them, so a listener sees what is published while
 * it listens. A message that is not a summary is logged and dropped. At most
 * two NATS subscriptions however many listeners; a call's event is routed to
 * its waiters by run id.
 */
export async function createRunEventSubscriber(options: RunEventSubscriberOptions): Promise<RunEventSubscriber> {
  const logger = options.logger ?? silentLogger();
  checkPrefix(options.prefix);
  const conn = await connectNats(options.url, `hookyard-events-feed-${options.prefix}`, logger, options.credentials);
  const all = createFanOut();
  const calls = createCallRouter();
  let received = 0;
  const pump = (sub: Subscription, deliver: (s: RunSummary) => unknown) =>
    void (async () => {
      for await (const m of sub) {
        received += 1;
        let summary: RunSummary;
        try {
          summary = JSON.parse(m.string()) as RunSummary;
          if (typeof summary?.run_id !== 'string' || typeof summary.status !== 'string') throw new Error('not a run summary');
        } catch (err) {
          logger.warn({ subject: m.subject, err: (err as Error).message }, 'dropped a run event that is not a run summary');
          continue;
        }
        deliver(summary);
      }
    })();
  let everything: Subscription | null = null;
  let everythingAtServer: Promise<void> = Promise.resolve();
  // The subject filter picks the agent calls' events: NATS does not send this process any other run's for them.
  const agentCalls = conn.nc.subscribe(agentCallEventsSubject(options.prefix));
  pump(agentCalls, calls.deliver);
  // The calls' subscription is at the server before the feed is handed out: nothing published after this is missed.
  await conn.nc.flush();
  let closed = false;
  return {
    listen(l) {
      const stop = all.listen(l);
      if (!everything && !closed) {
        everything = conn.nc.subscribe(`${options.prefix}.events.run.>`);
        pump(everything, all.deliver);
        everythingAtServer = conn.nc.flush().catch((err: unknown) => {
          logger.warn({ err: (err as Error).message }, 'the run event subscription was not confirmed by NATS');
        });
      }
      return () => {
        stop();
        if (all.size === 0 && everything) {
          everything.unsubscribe();
          everything = null;
        }
      };
    },
    listening: () => everythingAtServer,
    get received() {
      return received;
    },
    listenCall: (runId, l) => calls.add(runId, l),
    async close() {
      closed = true;
      everything?.unsubscribe();
      everything = null;
      agentCalls.unsubscribe();
      all.clear();
      await withTimeout(conn.nc.drain(), 5000, 'drain NATS connection').catch(() => conn.nc.close());
    },
  };
}
