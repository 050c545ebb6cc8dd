/** One route mounted under /api, as express 5's router stack holds it (`path` with `:param` and `*rest`). */
export interface RouteEntry {
  method: string;
  path: string;
}

/** Reads every route mounted under /api from the app's router stack (as api-inventory.test.ts does). */
export function apiRoutes(app: any): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const layer of app.router.stack) {
    if (layer.rawPath !== '/api' || !layer.handle?.stack) continue;
    for (const inner of layer.handle.stack) {
      if (!inner.route) continue;
      for (const method of Object.keys(inner.route.methods)) out.push({ method: method.toUpperCase(), path: `/api${inner.route.path}` });
    }
  }
  return out;
}

/** The write routes: every method but the reads. */
export const isWrite = (r: RouteEntry): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(r.method);

/** Polls `read` until `check` passes or `ms` is up (an audit entry is written after its answer); answers the last value read. */
export async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}
