import { createServer, type RequestListener } from 'node:http';
import type { HookMetrics } from '@hookyard/core';

/**
 * The HTTP surface of a role that is not the ingress (scheduler, executor):
 * `/healthz`, `/readyz` and `/metrics` only.
 */
export function healthListener(metrics: HookMetrics, ready: () => Promise<void>): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, JSON.stringify({ error: 'method not allowed' }));
    if (path === '/healthz') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      ready().then(
        () => send(200, JSON.stringify({ status: 'ready' })),
        (err: unknown) => send(503, JSON.stringify({ status: 'not ready', reason: err instanceof Error ? err.message : String(err) })),
      );
      return;
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => send(200, text, metrics.registry.contentType),
        (err: unknown) => send(500, JSON.stringify({ error: String(err) })),
      );
      return;
    }
    send(404, JSON.stringify({ error: 'not found' }));
  };
}

export function createHealthServer(metrics: HookMetrics, ready: () => Promise<void>) {
  return createServer(healthListener(metrics, ready));
}
