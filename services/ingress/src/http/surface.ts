import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { APPROVAL_LINK_PATH } from '@hookyard/core';
import { sendJson } from './headers';

/** Which listener a request came in on when HOOKS_ADMIN_PORT splits the ingress in two. */
export type IngressSurface = 'public' | 'admin';

/** The routes the internet may reach: the door, signed approval links, the probes and the icon. */
export function onPublicSurface(url: string | undefined): boolean {
  const path = (url ?? '/').split('?')[0]!;
  return (
    path.startsWith('/universal_webhook/') ||
    path === '/healthz' ||
    path === '/readyz' ||
    path === '/favicon.ico' ||
    path === APPROVAL_LINK_PATH ||
    path.startsWith(`${APPROVAL_LINK_PATH}/`)
  );
}

/**
 * One app behind two listeners: the public port answers only the public
 * routes, the admin port (management API, /metrics, /openapi.json, the
 * console, the probes) everything but the door. Both share one app, so caches
 * (a topic's verifier binding) and the limiter stay one.
 */
export function surfaceListener(app: RequestListener, surface: IngressSurface): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const isPublic = onPublicSurface(req.url);
    // Probes and the icon answer on both ports.
    const both = path === '/healthz' || path === '/readyz' || path === '/favicon.ico';
    if (surface === 'public' ? isPublic : !isPublic || both) return app(req, res);
    // Unread bodies are left to node: the answer closes the connection.
    const where =
      surface === 'public' ? 'the management API, /metrics and the console listen on HOOKS_ADMIN_PORT' : 'the public door listens on HOOKS_HTTP_PORT';
    const body = JSON.stringify({ error: { kind: 'not_found', message: `no route ${req.method ?? 'GET'} ${path} on this port (${where})` } });
    sendJson(res, 404, body, undefined, true);
  };
}
