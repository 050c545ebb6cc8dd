import { HookyardError, httpExchange, quote, toHookyardError, type ErrorKind } from '@hookyard/core';
import type { ToolCallContext } from './types';

/** A fetch-compatible function; injected so tests and deployments can supply their own. */
export type FetchFn = typeof fetch;

/** The error kind a non-2xx status means for the caller: can a retry help, and why not. */
export function kindOfStatus(status: number): ErrorKind {
  if (status === 504) return 'timeout';
  if (status === 408 || status === 429 || status >= 500) return 'unavailable';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  return 'bad_input';
}

/** The error for a non-2xx reply: names the tool and the status, quotes the start of the body. */
export function statusError(what: string, status: number, body: string): HookyardError {
  return new HookyardError(kindOfStatus(status), `${what} answered HTTP ${status}: ${quote(body)}`);
}

/**
 * Reads a tool call's reply body (bounded, as readBounded) and tells the
 * call's context what came back: status, headers (redacted) and an excerpt
 * of the body, so the run keeps it whether the call succeeded or failed. A
 * body over the cap is told with its headers and no body.
 */
export async function readReply(res: Response, maxBytes: number, what: string, ctx: Pick<ToolCallContext, 'onHttp'>): Promise<string> {
  let body: string;
  try {
    body = await readBounded(res, maxBytes, what);
  } catch (err) {
    ctx.onHttp?.(httpExchange(res.status, res.headers, ''));
    throw err;
  }
  ctx.onHttp?.(httpExchange(res.status, res.headers, body));
  return body;
}

/**
 * Reads a reply body, refusing to hold more than `maxBytes` in memory: a tool
 * that streams forever must not take the executor down with it. `setting`
 * names the variable that sets the cap, for the error.
 */
export async function readBounded(res: Response, maxBytes: number, what: string, setting?: string): Promise<string> {
  return Buffer.from(await readBoundedBytes(res, maxBytes, what, setting)).toString('utf8');
}

/** As readBounded, the bytes in one fresh (unpooled) buffer, so they can be handed to a worker without a copy. */
export async function readBoundedBytes(res: Response, maxBytes: number, what: string, setting?: string): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new HookyardError('bad_input', `${what} replied with more than ${maxBytes} bytes${setting ? ` (the cap is ${setting})` : ''}`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Runs `fn` with a signal that aborts at `timeoutMs` or when `outer` aborts,
 * and turns what went wrong into the right kind: our own deadline is
 * `timeout`, the caller's abort keeps its reason (timeout or shutdown).
 */
export async function withDeadline<T>(what: string, timeoutMs: number, outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const timer = setTimeout(() => own.abort(), timeoutMs);
  const signal = outer ? AbortSignal.any([outer, own.signal]) : own.signal;
  try {
    return await fn(signal);
  } catch (err) {
    if (err instanceof HookyardError) throw err;
    if (own.signal.aborted) throw new HookyardError('timeout', `${what} did not answer within ${timeoutMs} ms`, { cause: err });
    if (outer?.aborted) {
      const reason: unknown = outer.reason;
      const kind: ErrorKind = reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'cancelled';
      throw new HookyardError(kind, `${what} was aborted: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: err });
    }
    const e = transportError(err);
    throw new HookyardError(e.kind, `${what} could not be reached: ${e.message}`, { cause: err, notSent: e.notSent });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * fetch wraps the socket error (ECONNREFUSED, …) as its `cause`. The cause may
 * come from another realm (so `instanceof Error` fails): read its code by shape.
 */
function transportError(err: unknown): HookyardError {
  const e = toHookyardError(err);
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (e.kind !== 'internal' || typeof cause?.code !== 'string') return e;
  const inner = toHookyardError(Object.assign(new Error(typeof cause.message === 'string' ? cause.message : cause.code), { code: cause.code }));
  // A connection never made (NOT_SENT_CODES): fetch had not written a byte of the request.
  return new HookyardError(inner.kind, `${e.message}: ${inner.message}`, { cause: err, notSent: inner.notSent });
}
