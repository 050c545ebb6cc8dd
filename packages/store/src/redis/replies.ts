import { HookyardError, badInput, conflict, internal, notFound, unavailable } from '@hookyard/core';
import type { Acted, SubjectKey } from '@hookyard/core';
import { versionConflict } from '../state-rules';
import { MAX_HOOKS_PER_EVENT } from '../run-ids';
import { committedRefusal, replayRefusal, staleTokenError, unknownOutcomeRefusal } from '../run-rules';
import * as interactions from '../interaction-rules';

/** What a script was doing, for the error it may become. */
export interface ReplyContext {
  op: string;
  /** The run's id, or the interaction's for resolve_interaction and take_interaction. */
  id?: string;
  /** The attempt's token, for a stale-token refusal. */
  token?: number;
  topic?: string;
  /** put_approval_policy, put_state, delete_state: the version the caller expected. */
  expected?: number;
  /** put_state, delete_state: the subject written. */
  subject?: SubjectKey;
}

/**
 * The named refusals of every script, as lua/codes.lua has them (`ERR_NO_RUN`
 * there is `no_run` here; a test holds the two equal): a script that refuses
 * answers `{ code, details... }` and checkReply turns the code into its error.
 */
export const REPLY_CODES = {
  no_run: -1,
  stale_token: -2,
  run_status: -3,
  committed: -4,
  too_many_hooks: -5,
  policy_moved: -6,
  not_withdrawable: -7,
  state_version: -8,
  undeclared_state: -9,
  attach_held: -10,
  no_interaction: -11,
  declaration_moved: -12,
  resolved: -13,
  taken: -14,
  take_open: -15,
  take_status: -16,
  take_not_ready: -17,
  take_nothing_kept: -18,
  state_bound: -19,
} as const;
export type ReplyCode = keyof typeof REPLY_CODES;

const CODE_NAMES = new Map<number, ReplyCode>(Object.entries(REPLY_CODES).map(([name, code]) => [code, name as ReplyCode]));

/** One element of a script's reply as text: bulk strings as they are, integers in decimal, nothing as ''. */
export function replyText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return JSON.stringify(v);
}

const iso = (ms: unknown) => (ms ? new Date(Number(ms)).toISOString() : '');

/**
 * The one place a script's refusal becomes an error: a reply whose first
 * element is negative is thrown as the error its code names (REPLY_CODES);
 * any other reply is returned. `ctx.id` is the run's or the interaction's id,
 * as the code says.
 */
export function checkReply(ctx: ReplyContext, reply: unknown[]): unknown[] {
  const code = Number(reply[0]);
  if (code >= 0) return reply;
  const id = ctx.id ?? '?';
  const str = (i: number) => replyText(reply[i]);
  switch (CODE_NAMES.get(code)) {
    case 'no_run':
      throw notFound(`run ${id} not found`);
    case 'stale_token':
      throw staleTokenError(id, ctx.token ?? 0, str(1), Number(reply[2] ?? 0));
    case 'run_status':
      if (ctx.op === 'replay') throw replayRefusal(id, str(1));
      if (ctx.op === 'retry') throw conflict(`run ${id} is ${str(1)}; only a failed run can be retried`);
      if (ctx.op === 'resolve_unknown') throw unknownOutcomeRefusal(id, str(1), str(2));
      throw conflict(`run ${id} is ${str(1)}; ${str(1) === 'running' ? 'it cannot be discarded while it runs' : 'it is already discarded'}`);
    case 'committed':
      throw committedRefusal(id, str(1) as Acted, JSON.parse(str(2) || '[]') as string[]);
    case 'too_many_hooks':
      throw badInput(`topic ${ctx.topic ?? '?'} has ${str(1)} hooks; at most ${MAX_HOOKS_PER_EVENT} runs per event`);
    case 'policy_moved':
      throw conflict(
        `the approval policy is at version ${str(1)}, not the version ${ctx.expected ?? '?'} this change was made against; read it again and retry`,
      );
    case 'not_withdrawable':
      throw conflict(`run ${id} committed a ${str(1)}; only a tool start that never left can be withdrawn`);
    case 'state_version':
      throw versionConflict(ctx.subject ?? { scope: '?', kind: '?', key: '?' }, Number(reply[1] ?? 0), ctx.expected ?? 0);
    case 'undeclared_state':
      // put_hook's caller answers these with the nearest declared name and the holder's attach path first.
      throw notFound(`state ${str(1)} is not declared`);
    case 'attach_held':
      throw conflict(`hook ${str(1)} already binds ${str(2) || 'the whole document'}`);
    case 'declaration_moved':
      throw conflict(`state ${id} was declared again (now version ${str(1)}) while this change was made; read it again and retry`);
    case 'no_interaction':
      throw interactions.missing(id);
    case 'resolved':
      throw interactions.alreadyResolved(id, str(1), str(2), str(3), iso(reply[4]));
    case 'taken':
      throw interactions.alreadyTaken(id, str(1), iso(reply[2]));
    case 'take_open':
      throw interactions.takeOpen(id);
    case 'take_status':
      throw interactions.takeWrongStatus(id, str(1));
    case 'take_not_ready':
      throw interactions.takeNotReady(id, str(1), str(2));
    case 'state_bound':
      throw conflict(
        `state ${id} is still bound by hooks ${Object.keys(JSON.parse(str(1) || '{}') as object)
          .sort()
          .join(', ')}`,
      );
    case 'take_nothing_kept':
      throw interactions.takeNothingKept(id, str(1), str(2));
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
