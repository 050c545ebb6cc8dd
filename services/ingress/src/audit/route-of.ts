import type { Router } from 'express';

/** A route as the router will dispatch a request to it: its pattern as registered (`/hooks/:name`) and its decoded parameters. */
export interface MatchedRoute {
  pattern: string;
  params: Record<string, string>;
}

/** What is read of express's router layers (the `router` package): a route layer's pattern matcher and its methods. */
interface RouteLayer {
  route?: { path?: unknown; _handlesMethod?: (method: string) => boolean };
  match?: (path: string) => false | { params?: Record<string, unknown> };
}

/**
 * The route `router` will dispatch `method path` to, found before it runs
 * through the router's own layers the way it dispatches (the first route
 * whose pattern matches and that handles the method), so the trail is keyed
 * by route pattern, never by the raw path, and can read the record before the
 * change. Null: no route (the router's 404), or a path express refuses itself.
 */
export function routeOf(router: Router, method: string, path: string): MatchedRoute | null {
  for (const layer of router.stack as RouteLayer[]) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string' || typeof layer.match !== 'function') continue;
    let m: ReturnType<NonNullable<RouteLayer['match']>>;
    try {
      m = layer.match(path);
    } catch {
      // A malformed %-escape: express answers it with its own 400, before any route runs.
      return null;
    }
    if (!m || !route._handlesMethod?.(method)) continue;
    const params: Record<string, string> = {};
    // A final `*rest` parameter comes as its segments.
    for (const [k, v] of Object.entries(m.params ?? {})) params[k] = Array.isArray(v) ? v.join('/') : String(v);
    return { pattern: route.path, params };
  }
  return null;
}
