import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';

/** The public door's path prefix; the topic is the one segment after it. */
export const DOOR_PREFIX = '/universal_webhook/';

/**
 * The door runs before express touches the request: express's app.handle
 * re-prototypes req/res (slowing every later property access in node's own
 * http code) and walks its router, which together cost the door about half of
 * its throughput. So door paths are taken off at the app's entry; anything
 * else, including a malformed door path, goes through express as usual.
 */
export function mountDoorFirst(app: express.Express, door: (req: IncomingMessage, res: ServerResponse, topic: string) => void): void {
  takeFirst(app, (req, res) => {
    const topic = doorTopic(req.url ?? '');
    if (topic === undefined) return false;
    door(req, res, topic);
    return true;
  });
}

/**
 * Puts `take` in front of express at the app's entry: it answers true when it
 * took the request (and answers it itself); anything else goes through express
 * as usual. Each call adds one in front of those before it (the door, /mcp).
 */
export function takeFirst(app: express.Express, take: (req: IncomingMessage, res: ServerResponse) => boolean): void {
  const target = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, next?: unknown): void };
  const viaExpress = target.handle.bind(app);
  target.handle = (req, res, next) => {
    if (!take(req, res)) viaExpress(req, res, next);
  };
}

/** The topic of a door URL (`/universal_webhook/{topic}[/][?query]`), or undefined when the URL is not the door. */
export function doorTopic(url: string): string | undefined {
  if (!url.startsWith(DOOR_PREFIX)) return undefined;
  const q = url.indexOf('?');
  let segment = url.slice(DOOR_PREFIX.length, q < 0 ? undefined : q);
  if (segment.endsWith('/')) segment = segment.slice(0, -1);
  if (segment === '' || segment.includes('/')) return undefined;
  if (!segment.includes('%')) return segment;
  try {
    // Decoded like an express param: a `%2F` becomes `/` and then fails the topic pattern (404).
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
