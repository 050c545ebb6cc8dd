import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SettingsError,
  answerClientError,
  createLiveSettings,
  createLogDestination,
  createLogger,
  resolveSettings,
  unknownSettingMessage,
  unknownSettings,
  type LogDestination,
  type Logger,
  type ReloadResult,
  type ReloadTrigger,
  type ResolvedSettings,
} from '@hookyard/core';
import { Counter } from 'prom-client';
import { createNatsIngest, type NatsIngest } from '@hookyard/bus';
import type { ExecutorHandle } from '@hookyard/executor';
import type { SchedulerHandle } from '@hookyard/scheduler';

// Each role's service loads when that role starts, so an executor never holds the ingress's
// express app and a scheduler neither (footprint); the client-error answer every role needs is core's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ingressService = () => require('@hookyard/ingress') as typeof import('@hookyard/ingress');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const executorService = () => require('@hookyard/executor') as typeof import('@hookyard/executor');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const schedulerService = () => require('@hookyard/scheduler') as typeof import('@hookyard/scheduler');
import { createHealthServer } from './health-server';
import { releaseYoungAfterStart } from './heap';
import { countHeld, describeHeld, type Held } from './inventory';
import { buildRuntime, embeddedRefusalError, type RoleName, type Runtime } from './runtime';
import { watchConfigFile, type ConfigWatch } from './config-watch';
import { connectLiveSettings } from './live';
import { startTracing } from './tracing';

export interface Served {
  url: string;
  /** Where the management API answers: the admin listener with HOOKS_ADMIN_PORT, else `url`. */
  apiUrl: string;
  runtime: Runtime;
  /**
   * Re-reads the environment and HOOKS_CONFIG_FILE and applies what can change
   * live, all or nothing (SIGHUP, the file watch and POST /api/settings/reload).
   */
  reload(trigger: ReloadTrigger): ReloadResult;
  /** Runs this process is working on now (0 without an executor). */
  inFlight(): number;
  /**
   * Graceful stop: no new work, in-flight runs get the shutdown grace, then
   * hand-back. On the in-memory store it answers what was dropped with it
   * (counted from the store after the hand-back; only kinds with some), else null.
   */
  stop(): Promise<{ dropped: Held[] | null }>;
}

/**
 * Starts the role(s) of one process and its HTTP server. `resolved` is the
 * boot reading of the settings when the caller already made it (the CLI checks
 * them before it loads the runtime).
 */
export async function serve(role: RoleName, env: NodeJS.ProcessEnv, logger?: Logger, resolved?: ResolvedSettings): Promise<Served> {
  // A reload reads the same way and refuses what boot would (a split role without Redis and NATS).
  const live = createLiveSettings({ env, resolved: resolved ?? resolveSettings(env), check: (next) => embeddedRefusalError(role, next) });
  const settings = live.settings;
  // Before the logger: with tracing on, its lines carry the active span's trace_id.
  const tracing = await startTracing(env, role, settings.instanceId);
  // Never pino's synchronous stdout: a stalled or closed reader must not stop the process.
  const logOut = logger ? undefined : createLogDestination();
  const log = logger ?? createLogger({ level: settings.logLevel, role, instance: settings.instanceId, destination: logOut });
  // A misspelt variable would otherwise be the default, silently.
  for (const u of unknownSettings(env, settings.secretEnvPrefix)) log.warn({ variable: u.variable, suggestion: u.suggestion }, unknownSettingMessage(u));
  const runtime = await buildRuntime(role, settings, log);
  if (logOut) countDroppedLogLines(runtime, logOut);
  const s = runtime.settings;
  let stopping = false;
  let executor: ExecutorHandle | null = null;
  let scheduler: SchedulerHandle | null = null;
  let natsIngest: NatsIngest | null = null;
  // One flood limiter per ingress process, on the stores' buckets (Redis when Redis is set, so replicas share it).
  const limiter = role === 'ingress' || role === 'all' ? ingressService().createIngressLimiter(s, runtime.stores.buckets, log) : null;
  const reload = connectLiveSettings(live, runtime.metrics, { logger: log, executor: () => executor, natsIngest: () => natsIngest, limiter: () => limiter });
  let watcher: ConfigWatch | null = null;
  const ready = async () => {
    if (stopping) throw new Error('shutting down');
    await runtime.stores.ping();
    await runtime.bus.ping();
  };

  let server: Server;
  // With HOOKS_ADMIN_PORT the ingress listens twice over one app: the public door here, the management API there.
  let adminServer: Server | null = null;
  try {
    if (role === 'ingress' || role === 'all') {
      const { createIngressApp, surfaceListener } = ingressService();
      const app = createIngressApp({
        ...runtime,
        tools: runtime.catalogue,
        limiter,
        readiness: async () => (stopping ? Promise.reject(new Error('shutting down')) : undefined),
        settingsControl: { view: () => live.view(), reload: () => reload('api') },
      });
      const { createServer } = await import('node:http');
      if (s.adminPort === undefined) server = createServer(app);
      else {
        server = createServer(surfaceListener(app, 'public'));
        adminServer = createServer(surfaceListener(app, 'admin'));
      }
    } else {
      server = createHealthServer(runtime.metrics, ready);
    }
    if ((role === 'ingress' || role === 'all') && s.natsUrl) natsIngest = await startNatsIngest(runtime);
    if (role === 'executor' || role === 'all') executor = await executorService().startExecutor({ ...runtime });
    if (role === 'scheduler' || role === 'all') scheduler = await schedulerService().startScheduler({ ...runtime });
    await listen(server, s.httpPort, s.httpHost, 'HOOKS_HTTP_PORT');
    if (adminServer) await listen(adminServer, s.adminPort!, s.httpHost, 'HOOKS_ADMIN_PORT');
    if (s.configFile) watcher = watchConfigFile(s.configFile, () => reload('file'), log);
  } catch (err) {
    watcher?.close();
    for (const srv of [server!, adminServer]) if (srv?.listening) srv.close();
    await natsIngest?.close().catch(() => undefined);
    await limiter?.close().catch(() => undefined);
    await executor?.stop(0).catch(() => undefined);
    await scheduler?.stop().catch(() => undefined);
    await runtime.close();
    throw err;
  }
  // Slow-loris guard for every role: a client must send its headers and body in time.
  for (const srv of [server, adminServer]) {
    if (!srv) continue;
    srv.on('clientError', answerClientError);
    srv.headersTimeout = 10_000;
    srv.requestTimeout = 30_000;
  }
  const started = [server && (role === 'ingress' || role === 'all') ? 'ingress' : null, scheduler ? 'scheduler' : null, executor ? 'executor' : null].filter(
    (r): r is string => r !== null,
  );
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  const adminAddr = adminServer?.address() as AddressInfo | undefined;
  const adminUrl = adminAddr ? `http://${host}:${adminAddr.port}` : undefined;
  log.info(
    {
      url,
      ...(adminUrl ? { adminUrl } : {}),
      roles: started,
      store: runtime.stores.kind,
      bus: runtime.bus.kind,
      natsIngest: natsIngest !== null,
      maxWorkers: s.maxWorkers,
    },
    // What really runs here, not only what was asked for.
    `hookyard ${role} listening on ${url}${adminUrl ? ` (management API and /metrics on ${adminUrl})` : ''}: ${started.join(', ')} on a ${runtime.stores.kind} store and a ${runtime.bus.kind} bus${natsIngest ? ', with the NATS door' : ''}`,
  );
  // Started: from here the young generation grows with the load, as V8 grows it (packages/cli/src/heap.ts).
  releaseYoungAfterStart();

  let stopped: Promise<{ dropped: Held[] | null }> | null = null;
  return {
    url,
    apiUrl: adminUrl ?? url,
    runtime,
    reload,
    inFlight: () => executor?.inFlight() ?? 0,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        watcher?.close();
        log.info({ graceMs: s.shutdownGraceMs }, 'shutting down: no new work; runs in flight get the grace');
        const closed = Promise.all([server, adminServer].map((srv) => (srv ? new Promise<void>((resolve) => srv.close(() => resolve())) : Promise.resolve())));
        server.closeIdleConnections?.();
        adminServer?.closeIdleConnections?.();
        await Promise.all([executor?.stop(s.shutdownGraceMs), scheduler?.stop(), natsIngest?.close()]);
        server.closeAllConnections?.();
        adminServer?.closeAllConnections?.();
        await closed;
        // After the hand-back, before the store goes: what the in-memory store takes with it.
        let dropped: Held[] | null = null;
        if (runtime.stores.kind === 'memory') {
          dropped = await countHeld(runtime.stores, {
            now: Date.now(),
            unroutedRetentionMs: runtime.settings.unroutedRetentionMs,
            auditRetentionMs: runtime.settings.auditRetentionMs,
          }).catch((err: unknown) => {
            log.warn({ err }, 'could not count what the in-memory store held');
            return null;
          });
          if (dropped) {
            const lost = Object.fromEntries(dropped.map((h) => [h.noun[1].replaceAll(' ', '_'), h.count]));
            log.warn({ lost }, dropped.length ? `in-memory store dropped: ${describeHeld(dropped)}` : 'in-memory store dropped: nothing');
          }
        }
        await limiter?.close().catch((err: unknown) => log.warn({ err }, 'limiter close failed'));
        await runtime.close();
        await tracing?.flush().catch((err: unknown) => log.warn({ err }, 'spans could not be exported at shutdown'));
        log.info('stopped');
        return { dropped };
      })();
      return stopped;
    },
  };
}

/** Listens on `port`; a port another process holds is a SettingsError naming the setting (one line, exit 2). */
function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(
          new SettingsError(
            setting,
            `port ${port} on ${host} is already in use (another hookyard?): stop what holds it, or set ${setting} to a free port (0 picks one)`,
          ),
        );
      } else if (err.code === 'EACCES') {
        reject(new SettingsError(setting, `port ${port} on ${host} needs privileges this process lacks: set ${setting} to a port above 1023`));
      } else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
}

/**
 * The NATS door (`<prefix>.ingest.<topic>`): every ingress replica pulls from
 * the one durable consumer, and keeps events as the HTTP door does.
 */
async function startNatsIngest(runtime: Runtime): Promise<NatsIngest> {
  const s = runtime.settings;
  const ingest = await createNatsIngest({
    url: s.natsUrl!,
    prefix: s.natsPrefix,
    replicas: s.natsReplicas,
    maxBytes: s.natsIngestMaxBytes,
    logger: runtime.logger,
    credentials: runtime.natsCredentials,
  });
  try {
    const { createDedupeStep, createNatsIngestHandler, unroutedBounds } = ingressService();
    const handler = createNatsIngestHandler({
      stores: runtime.stores,
      bus: runtime.bus,
      metrics: runtime.metrics,
      logger: runtime.logger,
      dispatchGraceMs: s.dispatchGraceMs,
      bodyMaxBytes: s.bodyMaxBytes,
      dedupeTtlMs: s.natsDedupeMs,
      unrouted: unroutedBounds(s, runtime.logger),
      // Its own cache (1 s): a dedupe key changed through the API applies here within a second.
      dedupe: createDedupeStep({ hooks: runtime.stores.hooks, jq: runtime.jq }),
      ...(runtime.events ? { events: runtime.events } : {}),
    });
    await ingest.start(handler, { concurrency: s.maxWorkers });
  } catch (err) {
    await ingest.close().catch(() => undefined);
    throw err;
  }
  runtime.logger.info({ subjects: `${s.natsPrefix}.ingest.>` }, 'NATS ingest started');
  return ingest;
}

/** `hookyard_log_lines_dropped_total`: log lines the non-blocking destination dropped (buffer full, or stdout's reader gone). */
function countDroppedLogLines(runtime: Runtime, out: LogDestination): void {
  let reported = 0;
  new Counter({
    name: 'hookyard_log_lines_dropped_total',
    help: 'Log lines dropped instead of blocking the process: the buffer was full (a slow reader) or stdout was closed (EPIPE)',
    registers: [runtime.metrics.registry],
    collect() {
      const now = out.dropped();
      if (now > reported) this.inc(now - reported);
      reported = now;
    },
  });
}
