import type { Router } from 'express';
import { runEvents, type RequestOf } from '@hookyard/api';
import { unavailable } from '@hookyard/core';
import type { RunEventFeed, RunSummary } from '@hookyard/bus';
import { SECURITY_HEADERS } from '../http/headers';
import { callerOf, roleOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';
/** A comment line this often keeps proxies from closing an idle stream. */
export const EVENT_HEARTBEAT_MS = 15_000;
/** A client this far behind (bytes queued in the socket) is dropped rather than buffered without end. */
const SLOW_CLIENT_BYTES = 1 << 20;

interface StreamFilter {
  hook?: string;
  topic?: string;
  status?: string;
  /** One or more event types, comma-separated in the query. */
  events?: ReadonlySet<string>;
}

/** The stream's filter from its query (checked against the declaration: every bad value one line of a 400). */
function filterOf(q: RequestOf<typeof runEvents>['query']): StreamFilter {
  return {
    ...(q.hook !== undefined ? { hook: q.hook } : {}),
    ...(q.topic !== undefined ? { topic: q.topic } : {}),
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.event !== undefined ? { events: new Set(q.event.split(',')) } : {}),
  };
}

const matches = (f: StreamFilter, s: RunSummary) =>
  (!f.hook || s.hook === f.hook) && (!f.topic || s.topic === f.topic) && (!f.status || s.status === f.status) && (!f.events || f.events.has(s.event));

/**
 * Who may open one more stream, given what is open: a token holds at most
 * `perToken` (429, its own limit); reader tokens together stop `perToken` short
 * of `max`, so an operator or admin can always open a token's worth (503 for
 * a reader past that); past `max` every new stream is 503. Null: it may.
 */
export function streamRefusal(
  open: { all: number; readers: number; byToken: number },
  role: string,
  limits: { max: number; perToken: number },
): { status: 429 | 503; message: string } | null {
  const { max, perToken } = limits;
  if (open.byToken >= perToken)
    return {
      status: 429,
      message: `this token already holds ${open.byToken} event streams, the most one token may hold (HOOKS_EVENT_STREAMS_PER_TOKEN=${perToken}); close one first`,
    };
  if (open.all >= max)
    return {
      status: 503,
      message: `too many event streams open (${open.all}, the most this ingress holds: HOOKS_EVENT_STREAMS_MAX=${max}); this token holds ${open.byToken}; retry later`,
    };
  if (role === 'reader' && open.readers >= max - perToken)
    return {
      status: 503,
      message: `reader tokens hold ${open.readers} event streams, all they may (HOOKS_EVENT_STREAMS_MAX=${max} less ${perToken} kept for operator and admin tokens); this token holds ${open.byToken}; retry later`,
    };
  return null;
}

/**
 * `GET /api/events`: server-sent events, one `event: run` per run summary
 * (the same JSON as `hooks.events.run.*`: accepted, started, parked, retry
 * scheduled, an outcome, an operator's retry or discard, woken), optionally
 * only of a hook, topic, status or event types. Authenticated like every API
 * route (a browser reads it through fetch with the bearer header). What was
 * published before the stream opened is not replayed: the runs list is the
 * record, the stream only says what changed.
 */
export function eventRoutes(router: Router, ctx: ApiContext, feed: RunEventFeed | undefined): void {
  let open = 0;
  let readers = 0;
  /** Streams open per token, keyed by the caller as the auth layer names it (role and a hash prefix, never the token). */
  const byToken = new Map<string, number>();
  // Declared with a text/event-stream answer and its query's lines (unknown, then each bad value quoted).
  mount(router, runEvents, (req, res) => {
    const filter = filterOf(req.checked.query);
    if (!feed) throw unavailable('this ingress has no run event source (it needs HOOKS_NATS_URL, or the embedded default)');
    const caller = callerOf(res);
    const role = roleOf(res);
    // Read at each open: both are live settings.
    const limits = { max: ctx.settings.eventStreamsMax, perToken: ctx.settings.eventStreamsPerToken };
    const refusal = streamRefusal({ all: open, readers, byToken: byToken.get(caller) ?? 0 }, role, limits);
    if (refusal?.status === 503) throw unavailable(refusal.message);
    if (refusal) {
      ctx.logger.warn({ caller, held: byToken.get(caller), perToken: limits.perToken }, 'refused an event stream: the token holds its most');
      // No error kind maps to 429 (as for the API limiter), so this answers here, in the error middleware's shape.
      res
        .status(429)
        .set(SECURITY_HEADERS)
        .json({ error: { kind: 'unavailable', message: refusal.message } });
      return;
    }
    open += 1;
    if (role === 'reader') readers += 1;
    byToken.set(caller, (byToken.get(caller) ?? 0) + 1);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    let closed = false;
    const stop = feed.listen((summary) => {
      if (closed || !matches(filter, summary)) return;
      if (res.writableLength > SLOW_CLIENT_BYTES) {
        ctx.logger.warn({ queued: res.writableLength }, 'dropped an event stream that stopped reading');
        finish();
        res.destroy();
        return;
      }
      res.write(`event: run\nid: ${summary.run_id}.${summary.event}.${summary.attempts}\ndata: ${JSON.stringify(summary)}\n\n`);
    });
    // Open once the feed hears every event (its NATS subscription is at the server): a reader told "open" misses nothing after.
    void feed.listening().then(() => {
      if (!closed) res.write('retry: 3000\n: stream open\n\n');
    });
    const heartbeat = setInterval(() => res.write(': keepalive\n\n'), EVENT_HEARTBEAT_MS);
    heartbeat.unref();
    const finish = () => {
      if (closed) return;
      closed = true;
      open -= 1;
      if (role === 'reader') readers -= 1;
      const held = (byToken.get(caller) ?? 1) - 1;
      if (held > 0) byToken.set(caller, held);
      else byToken.delete(caller);
      stop();
      clearInterval(heartbeat);
    };
    req.on('close', finish);
    res.on('close', finish);
  });
}
