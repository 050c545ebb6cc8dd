import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';
import type { Logger } from '@hookyard/core';
import { SECURITY_HEADERS, sendJson } from '../http/headers';
import { takeFirst } from '../door/mount';

/** True for a URL express's `app.route('/mcp')` matches: `/mcp` or `/mcp/`, any case, any query. */
export function isMcpPath(url: string): boolean {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return path.length <= 5 && (path.toLowerCase() === '/mcp' || path.toLowerCase() === '/mcp/');
}

/**
 * /mcp runs before express touches the request, as the public door does
 * (door/mount.ts, takeFirst): express re-prototypes req and res, which slows every later
 * property access in node's http code and in the SDK's conversion of them to
 * web Request and Response, and walks its router. The door takes no
 * middleware: it gets the security headers every express answer carries, and
 * a failure it throws answers as the error middleware answers one that is not
 * a HookyardError (logged, a 500 that says nothing of the cause).
 */
export function mountMcpFirst(app: express.Express, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, logger: Logger): void {
  takeFirst(app, (req, res) => {
    if (!isMcpPath(req.url ?? '')) return false;
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    handle(req, res).catch((err: unknown) => {
      logger.error({ err, method: req.method, path: '/mcp' }, 'management request failed');
      sendJson(res, 500, JSON.stringify({ error: { kind: 'internal', message: 'internal error' } }));
    });
    return true;
  });
}
