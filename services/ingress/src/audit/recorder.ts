import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { newRunId, type Clock, type HookMetrics, type Logger, type Role, type Settings } from '@hookyard/core';
import type { AuditActor, AuditEntry, Stores } from '@hookyard/store';
import { auditActionOf, notAChange } from './actions';
import { redactSecrets } from './redact';

/** What a route may set in `res.locals.audit` to say more than the table does, or `false`: not a change, not recorded. */
export interface AuditDetail {
  action?: string;
  target?: string | null;
  before?: unknown;
  after?: unknown;
  detail?: unknown;
}

export interface AuditRecorderDeps {
  stores: Pick<Stores, 'audit'>;
  settings: Pick<Settings, 'auditRetentionMs' | 'auditMaxEntries' | 'auditMaxRefused' | 'apiTokens'>;
  metrics: Pick<HookMetrics, 'auditWriteFailures'>;
  logger: Logger;
  clock: Clock;
}

/** What is recorded of one answered request, before the recorder adds the id and the time and strips secrets. */
export type AuditFacts = Omit<AuditEntry, 'id' | 'at'> & { detail?: unknown };

/**
 * Writes audit entries. A write the store refuses never fails the request it
 * records (that was answered already): it is logged at ERROR and counted in
 * `tai42_hook_runs_audit_write_failures_total`.
 */
export class AuditRecorder {
  constructor(private readonly deps: AuditRecorderDeps) {}

  async record(facts: AuditFacts): Promise<void> {
    const now = this.deps.clock.now();
    const known = this.deps.settings.apiTokens.map((t) => t.token);
    const entry = { id: newRunId(now), at: new Date(now).toISOString(), ...(redactSecrets(facts, known) as AuditFacts) };
    try {
      const { auditRetentionMs: retentionMs, auditMaxEntries: maxEntries, auditMaxRefused: maxRefused } = this.deps.settings;
      await this.deps.stores.audit.record(entry, { retentionMs, maxEntries, maxRefused });
    } catch (err) {
      this.deps.metrics.auditWriteFailures.inc();
      this.deps.logger.error({ err, action: entry.action, target: entry.target, actor: entry.actor.label }, 'audit entry not kept');
    }
  }
}

/** The principal `authenticate` found: an API token (role and label) or an agent. */
function actorOf(res: Response): AuditActor | null {
  const agent = res.locals.agent as { name: string } | undefined;
  if (agent) return { kind: 'agent', role: null, label: `agent:${agent.name}` };
  const role = res.locals.role as Role | undefined;
  if (!role) return null;
  return { kind: 'token', role, label: `${role}:${String(res.locals.tokenId ?? '?')}` };
}

/**
 * Express middleware of the management router, after `authenticate`: every
 * request that may change something (not GET/HEAD, not a dry run, not an
 * agent's call) that reaches a route is recorded once, after its answer has
 * gone, with its status. Refusals (4xx) are recorded too, without before or
 * after (nothing changed): who tried what is part of the trail. A request no
 * route matched (404) is not.
 */
export function auditMiddleware(recorder: AuditRecorder, stores: Stores, clientAddress: (req: IncomingMessage) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    if (notAChange(req.method, path)) return next();
    const known = auditActionOf(req.method, path);
    const bodyOf: { value?: unknown } = {};
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      bodyOf.value = body;
      return json(body);
    };
    const started = known?.action.before ? known.action.before(stores, req, known.params).catch(() => undefined) : Promise.resolve(undefined);
    res.on('finish', () => {
      void (async () => {
        const override = res.locals.audit as AuditDetail | false | undefined;
        // No route matched (the router's own 404), the route says it changed nothing, or a dry run.
        if (override === false || (!req.route && !known) || isDryRun(req)) return;
        const actor = actorOf(res);
        if (!actor) return;
        const ok = res.statusCode < 400;
        const route = (req.route as { path?: string } | undefined)?.path;
        const base: AuditFacts = {
          actor,
          action: known?.action.action ?? `${req.method} /api${route ?? path}`,
          target: known ? known.action.target(req, known.params) : null,
          client: clientAddress(req),
          status: res.statusCode,
          request: { method: req.method, path: req.originalUrl.split('?')[0]!.slice(0, 512) },
        };
        if (ok && known) {
          if (known.action.before) base.before = (await started) ?? null;
          if (known.action.after) base.after = known.action.after(bodyOf.value, req);
          if (known.action.fromAnswer) Object.assign(base, known.action.fromAnswer(bodyOf.value, req));
        }
        if (known?.action.detail) {
          const d = known.action.detail(bodyOf.value, req);
          if (d !== undefined && (ok || known.action.action.startsWith('interaction.'))) base.detail = d;
        }
        if (override) {
          if (override.action !== undefined) base.action = override.action;
          if (override.target !== undefined) base.target = override.target;
          if (ok && 'before' in override) base.before = override.before;
          if (ok && 'after' in override) base.after = override.after;
          if ('detail' in override) base.detail = override.detail;
        }
        await recorder.record(base);
      })();
    });
    next();
  };
}

/** A request that asks for a dry run changes nothing. */
function isDryRun(req: Request): boolean {
  const b = req.body as Record<string, unknown> | undefined;
  return (b !== null && typeof b === 'object' && b.dry_run === true) || req.query.dry_run === 'true';
}
