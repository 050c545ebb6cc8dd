import express, { type Request, type Router } from 'express';
import { StateSchemas, badInput } from '@hookyard/core';
import { JSON_MAX_DEPTH, exceedsJsonDepth } from '../door/json-depth';
import { SECURITY_HEADERS } from '../http/headers';
import { authenticate, createTokenResolver } from './auth';
import { callRoutes } from './calls-routes';
import type { ApiContext } from './context';
import { unknownRoute } from './errors';
import { hookRoutes } from './hooks-routes';
import { interactionRoutes } from './interactions-routes';
import { policyRoutes } from './policy-routes';
import { answerRoutes } from './answer-routes';
import { bulkRunRoutes } from './runs-bulk';
import { runRoutes } from './runs-routes';
import { templateRoutes } from './templates-routes';
import { toolRoutes } from './tools-routes';
import { eventRoutes } from './events-routes';
import { verifierRoutes } from './verifier-routes';
import { triggerLinkRoutes } from './trigger-link-routes';
import { dedupeRoutes } from './dedupe-routes';
import { stateRoutes } from './states-routes';
import { stateDeclarationRoutes } from './state-declaration-routes';
import { whoamiRoutes } from './whoami-routes';
import { settingsRoutes } from './settings-routes';
import { unroutedRoutes } from './unrouted-routes';
import { agentRoutes } from './agents-routes';
import { auditRoutes } from './audit-routes';
import { AuditRecorder, auditMiddleware } from '../audit/recorder';
import { deliveryRoutes } from './deliveries-routes';
import { statsRoutes } from './stats-routes';

/** The looser management limit (per client); 429 with Retry-After when over. */
export type ApiLimitStep = (req: Request) => Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;

/** Marks every management answer as Hookyard's, so a client can tell it from something else at the URL. */
export const API_MARK_HEADER = 'X-Hookyard-Api';

/**
 * Everything under `/api`: limiter -> bearer token -> JSON body -> the routes
 * (each states its role first) -> a JSON 404 for anything else.
 */
export function createApiRouter(ctx: ApiContext, limit?: ApiLimitStep): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(API_MARK_HEADER, '1');
    next();
  });
  if (limit) {
    router.use(async (req, res, next) => {
      const verdict = await limit(req);
      if (verdict.ok) return next();
      // No error kind maps to 429, so the limiter answers here rather than through the error middleware.
      res
        .status(429)
        .set(SECURITY_HEADERS)
        .set('Retry-After', String(Math.max(1, Math.ceil(verdict.retryAfterSeconds))))
        .json({ error: { kind: 'unavailable', message: 'too many management requests; retry later' } });
    });
  }
  router.use(authenticate(createTokenResolver(ctx.settings.apiTokens), ctx.stores, ctx.agentOAuth ?? null, ctx.personOAuth ?? null));
  router.use(
    express.json({
      limit: ctx.settings.apiBodyMaxBytes,
      strict: false,
      // As at the door: a body nested past the cap is refused before JSON.parse builds a tree
      // that recursive code later (JSON.stringify, a merge, jq, Lua cjson) would overflow on.
      verify: (_req, _res, buf) => {
        if (exceedsJsonDepth(buf.toString('utf8'))) throw badInput(`request body nests deeper than ${JSON_MAX_DEPTH} levels`);
      },
    }),
  );
  // Every change (not a read, not an agent's call) is recorded once, when its route answers; routes are found by pattern in this router.
  router.use(auditMiddleware(ctx.audit ?? new AuditRecorder(ctx), ctx.stores, ctx.clientAddress ?? ((req) => req.socket.remoteAddress ?? ''), router));
  whoamiRoutes(router, ctx);
  auditRoutes(router, ctx);
  eventRoutes(router, ctx, ctx.runEvents);
  hookRoutes(router, ctx);
  verifierRoutes(router, ctx);
  triggerLinkRoutes(router, ctx);
  dedupeRoutes(router, ctx);
  bulkRunRoutes(router, ctx);
  runRoutes(router, ctx);
  deliveryRoutes(router, ctx);
  statsRoutes(router, ctx);
  interactionRoutes(router, ctx);
  toolRoutes(router, ctx);
  templateRoutes(router, ctx);
  policyRoutes(router, ctx);
  answerRoutes(router, ctx);
  // Before stateRoutes: /states/:scope/:kind/:key would read `declarations` as a scope.
  stateDeclarationRoutes(router, ctx, new StateSchemas());
  stateRoutes(router, ctx);
  settingsRoutes(router, ctx);
  unroutedRoutes(router, ctx);
  agentRoutes(router, ctx);
  callRoutes(router, ctx);
  router.use(unknownRoute);
  return router;
}
