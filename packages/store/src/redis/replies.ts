import { HookyardError, badInput, conflict, internal, notFound, unavailable } from '@hookyard/core';
import type { Acted, SubjectKey } from '@hookyard/core';
import { versionConflict } from '../state-rules';
import { MAX_HOOKS_PER_EVENT } from '../run-ids';
import { committedRefusal, replayRefusal, staleTokenError } from '../run-rules';

/** What a script was doing, for the error it may become. */
export interface ReplyContext {
  op: string;
  id?: string;
  token?: number;
  topic?: string;
  /** put_approval_policy, put_state, delete_state: the version the caller expected. */
  expected?: number;
  /** put_state, delete_state: the subject written. */
  subject?: SubjectKey;
}

/**
 * The one place a script's negative code becomes an error. Codes:
 * -1 no such run; -2 stale token / not running {status, token}; -3 wrong status
 * for the verb {status}; -4 hook committed a resume/take {acted, ids}; -5 too many hooks {count};
 * -6 approval policy version moved {kept version}; -7 a committed claim cannot be withdrawn {acted};
 * -8 a subject's state is at another version {kept version}.
 */
/** One element of a script's reply as text: bulk strings as they are, integers in decimal, nothing as ''. */
export function replyText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return JSON.stringify(v);
}

export function checkReply(ctx: ReplyContext, reply: unknown[]): unknown[] {
  const code = Number(reply[0]);
  if (code >= 0) return reply;
  const id = ctx.id ?? '?';
  const str = (i: number) => replyText(reply[i]);
  switch (code) {
    case -1:
      throw notFound(`run ${id} not found`);
    case -2:
      throw staleTokenError(id, ctx.token ?? 0, str(1), Number(reply[2] ?? 0));
    case -3:
      if (ctx.op === 'replay') throw replayRefusal(id, str(1));
      if (ctx.op === 'retry') throw conflict(`run ${id} is ${str(1)}; only a failed run can be retried`);
      throw conflict(`run ${id} is ${str(1)}; ${str(1) === 'running' ? 'it cannot be discarded while it runs' : 'it is already discarded'}`);
    case -4:
      throw committedRefusal(id, str(1) as Acted, JSON.parse(str(2) || '[]') as string[]);
    case -5:
      throw badInput(`topic ${ctx.topic ?? '?'} has ${str(1)} hooks; at most ${MAX_HOOKS_PER_EVENT} runs per event`);
    case -6:
      throw conflict(
        `the approval policy is at version ${str(1)}, not the version ${ctx.expected ?? '?'} this change was made against; read it again and retry`,
      );
    case -7:
      throw conflict(`run ${id} committed a ${str(1)}; only a tool start that never left can be withdrawn`);
    case -8:
      throw versionConflict(ctx.subject ?? { scope: '?', kind: '?', key: '?' }, Number(reply[1] ?? 0), ctx.expected ?? 0);
    default:
      throw internal(`store script ${ctx.op} answered unknown code ${code}`);
  }
}

/**
 * The one classification of a failed store write (every script that writes
 * goes through Scripts.run, which calls this). `sent` is decided BEFORE the
 * write is issued, never from the connection's state after the failure (by
 * then a dropped connection looks the same whether or not the script ran):
 *
 * - not sent (`notSent`): the script was never issued (the connection was not
 *   ready, or the store's start-up checks failed first): nothing was written.
 * - a reply error: Redis answered and refused it (see storeError).
 * - anything else after it was issued (a command timeout, a connection that
 *   dropped before the answer, ioredis giving up on a re-sent command) is
 *   `outcomeUnknown`: the script may have run, or may still run when ioredis
 *   re-sends it on reconnect. The caller says how to find out.
 */
export function writeError(op: string, err: unknown, sent: boolean): HookyardError {
  if (err instanceof HookyardError) return err;
  const e = err as { name?: string; message?: string };
  const message = e?.message ?? String(err);
  if (!sent) return new HookyardError('unavailable', `redis ${op} not sent: ${message}`, { cause: err, notSent: true });
  if (e?.name === 'ReplyError') return storeError(op, err);
  return new HookyardError('unavailable', `redis ${op} outcome unknown: ${message}`, { cause: err, outcomeUnknown: true });
}

/**
 * Sends one write (a script, or plain commands) on `client`, classified by
 * writeError: issued only on a connection ready now (else "not sent", nothing
 * queued to be written later), and any failure after it was issued is
 * "outcome unknown" unless Redis answered.
 */
export async function sendWrite<T>(client: { readonly status: string }, op: string, send: () => Promise<T>): Promise<T> {
  if (client.status !== 'ready') throw writeError(op, new Error(`connection is ${client.status}`), false);
  try {
    return await send();
  } catch (err) {
    throw writeError(op, err, true);
  }
}

/**
 * Waits for the store's start-up checks (StoreSetup.ready) before write `op`:
 * when Redis is unreachable for them, `op` was not sent (`notSent`).
 */
export async function readyToWrite(setup: { ready(op: string): Promise<void> }, op: string): Promise<void> {
  try {
    await setup.ready(op);
  } catch (err) {
    if (!(err instanceof HookyardError) || err.kind !== 'unavailable') throw err;
    const why = err.cause instanceof Error ? err.cause.message : err.message;
    throw new HookyardError('unavailable', `redis ${op} not sent: ${why}`, { cause: err, notSent: true });
  }
}

const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|NOREPLICAS)/;

/**
 * Anything Redis or the client throws, as a HookyardError: an unreachable or
 * busy Redis is `unavailable` (the caller may try again); a refused command is
 * `internal` (a bug in the store, not a passing condition).
 */
export function storeError(op: string, err: unknown): HookyardError {
  if (err instanceof HookyardError) return err;
  const e = err as { name?: string; message?: string };
  const message = e?.message ?? String(err);
  if (e?.name === 'ReplyError' && !TRANSIENT_REPLY.test(message)) {
    return internal(`redis refused ${op}: ${message}`, err);
  }
  return unavailable(`redis ${op} failed: ${message}`, err);
}
