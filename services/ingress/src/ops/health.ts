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
  /** How long /readyz waits for each check (default READY_DEADLINE_MS). */
  readyDeadlineMs?: number;
}

/**
 * `/metrics` (the store-wide pending/held-failed gauges are refreshed on each
 * scrape; a store out of reach leaves them as they were and is logged),
 * `/healthz` (the process answers), `/readyz` (the store and any co-hosted
 * role answer within READY_DEADLINE_MS: 200, else 503 with the reason; a bus
 * out of reach leaves the ingress ready, with `degraded` saying so, since the
 * door still keeps events and the sweep dispatches them later).
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
    const deadlineMs = deps.readyDeadlineMs ?? READY_DEADLINE_MS;
    // The door keeps events while the store answers; the bus only dispatches (the sweep covers a lost publish).
    const gating: [string, () => Promise<void>][] = [[`store (${deps.stores.kind})`, () => deps.stores.ping()]];
    if (deps.readiness) gating.push(['co-hosted roles', deps.readiness]);
    const [bus, ...results] = await Promise.all([
      within(`bus (${deps.bus.kind})`, deadlineMs, () => deps.bus.ping()),
      ...gating.map(([what, check]) => within(what, deadlineMs, check)),
    ]);
    const failed = results.find((r) => r !== null);
    if (failed) {
      deps.logger.warn({ reason: failed }, 'ingress not ready');
      res.status(503).json({ status: 'unready', reason: failed });
      return;
    }
    if (bus) {
      deps.logger.warn({ reason: bus }, 'ingress ready without its bus: events are kept and the sweep dispatches them later');
      res.json({ status: 'ready', degraded: `${bus}; events are kept, the sweep dispatches them once it is back` });
      return;
    }
    res.json({ status: 'ready' });
  });
}

/** Well inside the kubelet's default probe timeout (1 s): a hung store is an answer, not a probe timeout. */
export const READY_DEADLINE_MS = 800;

/** Runs `check` within `deadlineMs`: null when it passed, else the reason naming `what`. */
async function within(what: string, deadlineMs: number, check: () => Promise<void>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${what} not ready: no answer within ${deadlineMs} ms`), deadlineMs);
  });
  try {
    return await Promise.race([
      check().then(
        () => null,
        (err: unknown) => `${what} not ready: ${(err as Error)?.message ?? String(err)}`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
