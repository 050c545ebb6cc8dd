import type { IncomingMessage } from 'node:http';
import express from 'express';
import { secretScopeOf, systemClock, type Logger, type Settings } from '@hookyard/core';
import type { RoleDeps } from '@hookyard/role';
import type { BucketStore } from '@hookyard/store';
import { createApiRouter } from './api/router';
import { errorHandler, securityHeaders, unknownRoute } from './api/errors';
import { createDoorHandler } from './door/door-handler';
import { mountDoorFirst } from './door/mount';
import { createTriggerHandler } from './door/trigger-handler';
import { createVerifierStep } from './door/verifier-step';
import { createDedupeStep } from './door/dedupe';
import { SchemaChecker } from './hooks/schema-checker';
import { approvalLinkRouter } from './approvals/link-routes';
import { AuditRecorder } from './audit/recorder';
import { healthRoutes } from './ops/health';
import { openapiRouter } from './openapi';
import { consoleRouter } from './console';
import { createSecretResolver, type SecretResolver } from './verify';
import { createDoorLimiter, type DoorLimiter } from './limiter';
import { clientAddressFrom, parseTrustedProxies } from './limiter/address';
import type { SettingsControl } from './api/settings-routes';
import { unroutedBounds } from './door/unrouted';
import { AgentCalls } from './agent/calls';
import { createMcpDoor } from './agent/mcp-door';
import { mountMcpFirst } from './agent/mcp-mount';
import type { IssuerKeysOptions } from './oidc/issuer-keys';
import { agentOAuthOf } from './oidc/agent-oauth';
import { personOAuthOf } from './oidc/person-oauth';
import { consoleSsoOf } from './oidc/console-sso';
import { protectedResourceRoutes } from './oidc/resource-routes';

export { answerClientError } from './client-error';
export { onPublicSurface, surfaceListener, type IngressSurface } from './http/surface';
export type { SettingsControl } from './api/settings-routes';
// The NATS door lives beside the HTTP one; the CLI wires it to the bus.
export { MSG_ID_MAX_LENGTH, createNatsIngestHandler, createDedupeStep, type NatsIngestHandlerDeps } from './nats';
export { unroutedBounds } from './door/unrouted';

/** What the ingress runs on: the role's deps and what only the ingress takes. */
export interface IngressDeps extends RoleDeps {
  /** Check every answer of a declared route against its declaration (test harnesses turn it on): one off its shape fails with 500. */
  validateAnswers?: boolean;
  /** Extra readiness check of co-hosted roles (embedded `all` mode). */
  readiness?: () => Promise<void>;
  /** Resolves verifier secret references (default: environment and mounted files). */
  secrets?: SecretResolver;
  /** How long the door waits for a slow client's body before a 408 (default 10000). */
  doorReadTimeoutMs?: number;
  /** How long the door reuses a topic's verifier binding and dedupe key (default 1000). */
  verifierCacheMs?: number;
  /**
   * The flood limiter (door per client and per topic, API per client). Absent:
   * a per-process limiter from settings; `null`: none. Build a shared one with
   * `createIngressLimiter` (on the stores' buckets; the caller closes it).
   */
  limiter?: DoorLimiter | null;
  /** This process's live settings, for GET /api/settings and POST /api/settings/reload (made by `hookyard serve`). */
  settingsControl?: SettingsControl;
  /** Folder of the built operator console (default: the console package's dist/, written by `pnpm build`). */
  consoleAssets?: string;
  /** How the agent door reaches the IdPs of HOOKS_OIDC_ISSUER (fetch, JWKS cooldown); default: the real ones. */
  oidcKeys?: IssuerKeysOptions;
}

/**
 * The flood limiter the settings describe, on the stores' buckets: shared by
 * the replicas when the stores are on Redis (HOOKS_REDIS_URL), on the stores' one connection; without
 * buckets, per-process ones.
 */
export function createIngressLimiter(settings: Settings, buckets: BucketStore | undefined, logger?: Logger): DoorLimiter {
  return createDoorLimiter({
    buckets,
    rate: settings.doorRate,
    burst: settings.doorBurst,
    apiRate: settings.apiRate,
    apiBurst: settings.apiBurst,
    agentRate: settings.agentRate,
    agentBurst: settings.agentBurst,
    trustedProxies: settings.trustedProxies,
    logger,
  });
}

const DEFAULT_READ_TIMEOUT_MS = 10_000;

/**
 * The ingress: the public door, the management API under /api, /metrics,
 * /healthz, /readyz and the operator console at /console. The door and /mcp are registered first and run on node's own
 * request/response with no middleware in front; everything else gets the
 * security headers, its routes, a JSON 404 and the one error middleware.
 */
export function createIngressApp(deps: IngressDeps): express.Express {
  const clock = deps.clock ?? systemClock;
  const { settings, logger } = deps;
  const secrets = deps.secrets ?? createSecretResolver({ scope: secretScopeOf(settings) });
  const verifier = createVerifierStep({
    hooks: deps.stores.hooks,
    secrets,
    metrics: deps.metrics,
    logger,
    cacheMs: deps.verifierCacheMs,
    now: () => clock.now(),
  });
  const dedupe = createDedupeStep({ hooks: deps.stores.hooks, jq: deps.jq, cacheMs: deps.verifierCacheMs, now: () => clock.now() });
  // Absent: per-process buckets (no bucket store), on the settings' rates.
  const limiter = deps.limiter === undefined ? createIngressLimiter(settings, undefined, logger) : deps.limiter;
  const clientOf = (req: IncomingMessage) => limiter!.clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'] as string | undefined);
  // What the public door and the trigger door share: the keep, its caps and the run events.
  const doorBase = {
    stores: deps.stores,
    bus: deps.bus,
    metrics: deps.metrics,
    logger,
    clock,
    dispatchGraceMs: settings.dispatchGraceMs,
    bodyMaxBytes: settings.bodyMaxBytes,
    queryMaxBytes: settings.queryMaxBytes,
    readTimeoutMs: deps.doorReadTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    ...(deps.events ? { events: deps.events } : {}),
  };
  const door = createDoorHandler({
    ...doorBase,
    verify: verifier.step,
    dedupe,
    allowsGet: verifier.allowsGet,
    limit: limiter ? (req, topic) => limiter.checkDoor(clientOf(req), topic) : undefined,
    unrouted: unroutedBounds(settings, logger),
  });

  const trigger = createTriggerHandler({
    ...doorBase,
    limit: limiter ? (req, key) => limiter.checkDoor(clientOf(req), key) : undefined,
  });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  mountDoorFirst(app, door);

  app.use(securityHeaders);
  // Trigger links: a URL that fires one hook, for senders that cannot sign (door `trigger`).
  // Any other method is 405 (the handler answers it); only POST is a route.
  app.use('/trigger', (req, res, next) => (req.method === 'POST' ? next() : trigger(req, res, '')));
  app.post('/trigger/:token', (req, res) => trigger(req, res, String(req.params.token)));
  // The agent door: MCP over streamable HTTP, its own auth (agent tokens), limiter bucket and body cap.
  const calls = new AgentCalls({ settings, stores: deps.stores, bus: deps.bus, clock, logger, runEvents: deps.runEvents, events: deps.events });
  const limitAgent = limiter ? (agent: string) => limiter.checkAgent(agent) : undefined;
  // With HOOKS_OIDC_ISSUER the door is also an OAuth protected resource: access tokens beside hya_ tokens, and its metadata.
  const agentOAuth = agentOAuthOf(settings, deps.oidcKeys);
  protectedResourceRoutes(app, agentOAuth);
  const mcp = createMcpDoor({ ...deps, calls, settings, clock, logger, limit: limitAgent, oauth: agentOAuth });
  // Every method reaches the door, which answers 405 itself for those MCP does not use; before express, as the public door.
  mountMcpFirst(app, (req, res) => mcp.handle(req, res), logger);
  app.use('/api/tools', mcp.onToolWrites);
  healthRoutes(app, { stores: deps.stores, bus: deps.bus, metrics: deps.metrics, logger, readiness: deps.readiness });
  app.use(openapiRouter());
  app.use(consoleRouter(deps.consoleAssets, consoleSsoOf(settings)));
  // A link answer records who used it: the address as the limiter reads it (HOOKS_TRUSTED_PROXIES), also with the limiter off.
  const proxies = parseTrustedProxies(settings.trustedProxies).table;
  const clientAddress = (req: IncomingMessage) =>
    clientAddressFrom(proxies, req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'] as string | undefined);
  const audit = new AuditRecorder({ stores: deps.stores, settings, metrics: deps.metrics, logger, clock });
  app.use(
    approvalLinkRouter({
      audit,
      stores: deps.stores,
      bus: deps.bus,
      clock,
      logger,
      settings,
      secrets,
      clientAddress,
      ...(deps.events ? { events: deps.events } : {}),
    }),
  );
  app.use(
    '/api',
    createApiRouter(
      {
        settings,
        stores: deps.stores,
        bus: deps.bus,
        jq: deps.jq,
        tools: deps.tools,
        metrics: deps.metrics,
        logger,
        clock,
        schemas: new SchemaChecker(),
        ...(deps.runEvents ? { runEvents: deps.runEvents } : {}),
        ...(deps.events ? { events: deps.events } : {}),
        ...(deps.settingsControl ? { settingsControl: deps.settingsControl } : {}),
        ...(limitAgent ? { limitAgent } : {}),
        agentOAuth,
        personOAuth: personOAuthOf(settings, agentOAuth?.verify),
        onVerifierChanged: (topic) => verifier.invalidate(topic),
        onDedupeChanged: (topic) => dedupe.invalidate(topic),
        onAgentRevoked: (name) => void mcp.closeAgentSessions(name),
        onAgentUpdated: (name) => mcp.agentToolsChanged(name),
        secrets,
        audit,
        clientAddress,
        ...(deps.validateAnswers ? { validateAnswers: true } : {}),
      },
      limiter ? (req) => limiter.checkApi(clientOf(req)) : undefined,
    ),
  );
  app.use(unknownRoute);
  app.use(errorHandler(logger));
  return app;
}
