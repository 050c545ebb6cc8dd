import type { Express } from 'express';
import type { HookMetrics, Logger } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import type { Stores } from '@hookyard/store';

export interface HealthDeps {
  stores: Stores;
  bus: RunBus;
  metrics: HookMetrics;
  logger: Logger;
  readiness?: () => Promise<void>;
}

/**
 * `/metrics` (the store-wide pending/held-failed gauges are refreshed on each
 * scrape; a store out of reach leaves them as they were and is logged),
 * `/healthz` (the process answers), `/readyz` (store, bus and any co-hosted
 * role are reachable: 200, else 503 with the reason).
 */
export function healthRoutes(app: Express, deps: HealthDeps): void {
  app.get('/metrics', async (_req, res) => {
    try {
      const counts = await deps.stores.runs.counts();
      deps.metrics.pending.set(counts.pending + counts.retry_wait);
      deps.metrics.heldFailed.set(counts.failed);
      deps.metrics.parked.set(counts.parked);
    } catch (err) {
      deps.logger.warn({ err }, 'run counts unavailable for /metrics; gauges keep their last values');
    }
    res.set('Content-Type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const checks: [string, () => Promise<void>][] = [
      [`store (${deps.stores.kind})`, () => deps.stores.ping()],
      [`bus (${deps.bus.kind})`, () => deps.bus.ping()],
    ];
    if (deps.readiness) checks.push(['co-hosted roles', deps.readiness]);
    for (const [what, check] of checks) {
      try {
        await check();
      } catch (err) {
        const reason = `${what} not ready: ${(err as Error).message ?? String(err)}`;
        deps.logger.warn({ err }, reason);
        res.status(503).json({ status: 'unready', reason });
        return;
      }
    }
    res.json({ status: 'ready' });
  });
}
