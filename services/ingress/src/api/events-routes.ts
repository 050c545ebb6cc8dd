import type { Request, Response, Router } from 'express';
import { badInput, isValidName, RUN_EVENT_TYPES, RUN_STATUSES, unavailable } from '@hookyard/core';
import type { RunEventFeed, RunSummary } from '@hookyard/bus';
import { requireRole } from './auth';
import type { ApiContext } from './context';

/** Streams open at once per ingress; past it a new one is 503 (each holds a socket and a listener). */
export const EVENT_STREAMS_MAX = 200;
/** A comment line this often keeps proxies from closing an idle stream. */
export const EVENT_HEARTBEAT_MS = 15_000;
/** A client this far behind (bytes queued in the socket) is dropped rather than buffered without end. */
const SLOW_CLIENT_BYTES = 1 << 20;
const QUERY_KEYS = new Set(['hook', 'topic', 'status', 'event']);

interface StreamFilter {
  hook?: string;
  topic?: string;
  status?: string;
  /** One or more event types, comma-separated in the query. */
  events?: ReadonlySet<string>;
}

function parseFilter(query: Record<string, unknown>): StreamFilter {
  const errors: string[] = [];
  const filter: StreamFilter = {};
  for (const key of Object.keys(query)) if (!QUERY_KEYS.has(key)) errors.push(`unknown query parameter '${key}' (known: ${[...QUERY_KEYS].join(', ')})`);
  for (const key of ['hook', 'topic'] as const) {
    const v = query[key];
    if (v === undefined) continue;
    if (typeof v === 'string' && isValidName(v)) filter[key] = v;
    else errors.push(`${key} must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(v)}`);
  }
  const status = query.status;
  if (status !== undefined) {
    if (typeof status === 'string' && (RUN_STATUSES as readonly string[]).includes(status)) filter.status = status;
    else errors.push(`status must be one of ${RUN_STATUSES.join('|')}, got ${JSON.stringify(status)}`);
  }
  const event = query.event;
  if (event !== undefined) {
    const wanted = typeof event === 'string' ? event.split(',') : [];
    const unknown = wanted.filter((e) => !(RUN_EVENT_TYPES as readonly string[]).includes(e));
    if (wanted.length === 0 || unknown.length)
      errors.push(`event must be one or more (comma-separated) of ${RUN_EVENT_TYPES.join('|')}, got ${JSON.stringify(event)}`);
    else filter.events = new Set(wanted);
  }
  if (errors.length) throw badInput('bad event stream query', errors);
  return filter;
}

const matches = (f: StreamFilter, s: RunSummary) =>
  (!f.hook || s.hook === f.hook) && (!f.topic || s.topic === f.topic) && (!f.status || s.status === f.status) && (!f.events || f.events.has(s.event));

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
  router.get('/events', requireRole('reader'), (req: Request, res: Response) => {
    const filter = parseFilter(req.query);
    if (!feed) throw unavailable('this ingress has no run event source (it needs HOOKS_NATS_URL, or the embedded default)');
    if (open >= EVENT_STREAMS_MAX) throw unavailable(`too many event streams open (${EVENT_STREAMS_MAX}); retry later`);
    open += 1;
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    res.write('retry: 3000\n: stream open\n\n');
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
    const heartbeat = setInterval(() => res.write(': keepalive\n\n'), EVENT_HEARTBEAT_MS);
    heartbeat.unref();
    const finish = () => {
      if (closed) return;
      closed = true;
      open -= 1;
      stop();
      clearInterval(heartbeat);
    };
    req.on('close', finish);
    res.on('close', finish);
  });
}
