import { agentOfHook, type ErrorKind, type Logger, type RunEventType, type RunStatus, silentLogger, unavailable } from '@hookyard/core';
import { checkPrefix, connectNats, subjectToken } from './nats-setup';
import type { NatsCredentials } from './nats-auth';
import { toBusError, withTimeout } from './nats-errors';

/** What the platform tells about a run that reached a state worth announcing. */
export interface RunSummary {
  run_id: string;
  /** What happened: accepted, started, parked, retry_scheduled, finished, retried, discarded, woken. */
  event: RunEventType;
  /** ISO time it happened. */
  at: string;
  hook: string;
  topic: string;
  status: RunStatus;
  attempts: number;
  error_kind: ErrorKind | null;
  error_message: string | null;
  /** ISO timestamps, as on the Run. */
  created_at: string;
  finished_at: string | null;
  /** When the next attempt is due (a retry_scheduled event), else null. */
  due_at: string | null;
  duration_ms: number | null;
}

/** Announces run events on core NATS (fire and forget; no stream keeps them). */
export interface RunEventPublisher {
  publish(summary: RunSummary): Promise<void>;
  close(): Promise<void>;
}

export interface RunEventPublisherOptions {
  url: string;
  /** Who this connection is to NATS (HOOKS_NATS_USER/_PASSWORD, _TOKEN, _NKEY_SEED, _CREDS, TLS); none: anonymous. */
  credentials?: NatsCredentials;
  /** Subject prefix: `hooks` publishes on `hooks.events.run.<status>.<hook>`. */
  prefix: string;
  logger?: Logger;
}

/**
 * `<prefix>.events.run.<status>.<hook>`, and `<prefix>.events.run.<status>.agent.<name>` for an agent's call
 * (its hook slot `agent:<name>` holds a colon, which no subject token may); a status, hook or agent name that is
 * not one subject token is bad_input.
 */
export function runEventSubject(prefix: string, summary: Pick<RunSummary, 'status' | 'hook'>): string {
  const agent = agentOfHook(summary.hook);
  const tail = agent === null ? subjectToken(summary.hook, 'hook name') : `agent.${subjectToken(agent, 'agent name')}`;
  return `${prefix}.events.run.${subjectToken(summary.status, 'run status')}.${tail}`;
}

/**
 * Connects to NATS (reconnecting forever); `publish` rejects `unavailable` while disconnected.
 * The events of one turn of the event loop leave together (one socket write, not one per run);
 * close() sends what is pending before it drains.
 */
export async function createRunEventPublisher(options: RunEventPublisherOptions): Promise<RunEventPublisher> {
  const logger = options.logger ?? silentLogger();
  // A bad prefix fails at boot rather than on the first event.
  checkPrefix(options.prefix);
  const conn = await connectNats(options.url, `hookyard-events-${options.prefix}`, logger, options.credentials);
  let closed = false;
  // Subjects by status, then hook: checked once, not per event (hooks are few; the cap guards the rest).
  const subjects = new Map<string, Map<string, string>>();
  let cached = 0;
  const subjectOf = (summary: RunSummary): string => {
    let byHook = subjects.get(summary.status);
    let subject = byHook?.get(summary.hook);
    if (subject !== undefined) return subject;
    subject = runEventSubject(options.prefix, summary);
    if (cached >= 10_000) {
      subjects.clear();
      cached = 0;
      byHook = undefined;
    }
    if (!byHook) subjects.set(summary.status, (byHook = new Map<string, string>()));
    byHook.set(summary.hook, subject);
    cached += 1;
    return subject;
  };
  let pending: Array<{ subject: string; data: string; runId: string }> = [];
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    flushing = undefined;
    const batch = pending;
    pending = [];
    for (const e of batch) {
      try {
        conn.nc.publish(e.subject, e.data);
      } catch (err) {
        // Best effort: the run itself is kept; say which event was lost.
        logger.warn({ run: e.runId, err: toBusError(err, `publish run event to ${JSON.stringify(e.subject)}`).message }, 'could not publish the run event');
      }
    }
  };
  return {
    async publish(summary) {
      const subject = subjectOf(summary);
      // Events are best effort, but a caller should know one was not sent rather than have it buffered unseen.
      if (closed || !conn.isConnected()) throw unavailable(`NATS is not connected; run event for ${JSON.stringify(summary.run_id)} not published`);
      pending.push({ subject, data: JSON.stringify(summary), runId: summary.run_id });
      flushing ??= setImmediate(flush);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (flushing) {
        clearImmediate(flushing);
        flush();
      }
      await withTimeout(conn.nc.drain(), 5000, 'drain NATS connection').catch(() => conn.nc.close());
    },
  };
}

/** A publisher that keeps what it was given, for tests and the embedded default. */
export interface MemoryRunEventPublisher extends RunEventPublisher {
  readonly published: readonly RunSummary[];
}

/** Records summaries in `published`; checks the subject tokens as the NATS one does. */
export function createMemoryRunEventPublisher(): MemoryRunEventPublisher {
  const published: RunSummary[] = [];
  let closed = false;
  return {
    published,
    async publish(summary) {
      if (closed) throw unavailable(`run event publisher is closed; run event for ${JSON.stringify(summary.run_id)} not published`);
      runEventSubject('memory', summary);
      published.push(summary);
    },
    async close() {
      closed = true;
    },
  };
}
