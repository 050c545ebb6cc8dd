import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response, Router } from 'express';
import { newRunId, type Clock, type HookMetrics, type Logger, type Role, type Settings } from '@hookyard/core';
import type { AuditActor, AuditEntry, AuditList, AuditRecorded, Stores } from '@hookyard/store';
import { personLabel, type Person } from '../oidc/person-oauth';
import { auditActionOf, dryRunRefusal, notAChange } from './actions';
import { routeOf } from './route-of';
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
  metrics: Pick<HookMetrics, 'auditWriteFailures' | 'auditDropped'>;
  logger: Logger;
  clock: Clock;
}

/** What is recorded of one answered request, before the recorder adds the id and the time and strips secrets. */
export type AuditFacts = Omit<AuditEntry, 'id' | 'at'> & { detail?: unknown };

/** At most one WARN per list this often while entries are being dropped for space (each says how many since the last). */
const DROP_WARN_EVERY_MS = 60_000;

/**
 * Writes audit entries. A write the store refuses never fails the request it
 * records (that was answered already): it is logged at ERROR and counted in
 * `tai42_hook_runs_audit_write_failures_total`. Entries the store drops for
 * space (a list past its count bound) are counted in
 * `tai42_hook_runs_audit_dropped_total{list}` and logged at WARN.
 */
export class AuditRecorder {
  private readonly unwarned: Record<AuditList, number> = { changes: 0, refused: 0 };
  private readonly warnedAt: Record<AuditList, number> = { changes: -Infinity, refused: -Infinity };

  constructor(private readonly deps: AuditRecorderDeps) {}

  async record(facts: AuditFacts): Promise<void> {
    const now = this.deps.clock.now();
    const known = this.deps.settings.apiTokens.map((t) => t.token);
    const entry = { id: newRunId(now), at: new Date(now).toISOString(), ...(redactSecrets(facts, known) as AuditFacts) };
    const { settings } = this.deps;
    let kept: AuditRecorded;
    try {
      kept = await this.deps.stores.audit.record(entry, {
        retentionMs: settings.auditRetentionMs,
        maxEntries: settings.auditMaxEntries,
        maxRefused: settings.auditMaxRefused,
      });
    } catch (err) {
      this.deps.metrics.auditWriteFailures.inc();
      this.deps.logger.error({ err, action: entry.action, target: entry.target, actor: entry.actor.label }, 'audit entry not kept');
      return;
    }
    if (kept && kept.dropped > 0) this.dropped(kept.list, kept.dropped, now);
  }

  /** Says that the trail dropped entries for space: always counted, logged at most once a minute per list. */
  private dropped(list: AuditList, count: number, now: number): void {
    this.deps.metrics.auditDropped.inc({ list }, count);
    this.unwarned[list] += count;
    if (now - this.warnedAt[list] < DROP_WARN_EVERY_MS) return;
    const [variable, bound, what] =
      list === 'refused'
        ? ['HOOKS_AUDIT_MAX_REFUSED', this.deps.settings.auditMaxRefused, 'refused attempts']
        : ['HOOKS_AUDIT_MAX_ENTRIES', this.deps.settings.auditMaxEntries, 'changes'];
    this.deps.logger.warn(
      { list, dropped: this.unwarned[list], bound },
      `audit trail full: dropped the ${this.unwarned[list]} oldest ${what} to keep ${bound} (${variable}); raise it to keep more`,
    );
    this.unwarned[list] = 0;
    this.warnedAt[list] = now;
  }
}

/** A route that performed a dry run (or any request that changed nothing) says so, after it did: the trail records no entry for it. */
export function changedNothing(res: Response): void {
  res.locals.audit = false;
}

/** The principal `authenticate` found: an API token (role and label), a person (IdP subject and name) or an agent. */
function actorOf(res: Response): AuditActor | null {
  const agent = res.locals.agent as { name: string } | undefined;
  if (agent) return { kind: 'agent', role: null, label: `agent:${agent.name}` };
  const role = res.locals.role as Role | undefined;
  if (!role) return null;
  const person = res.locals.person as Person | undefined;
  if (person) return { kind: 'person', role, label: personLabel(person) };
  return { kind: 'token', role, label: `${role}:${String(res.locals.tokenId ?? '?')}` };
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Express middleware of the management router `routes`, after `authenticate`:
 * every request to one of its routes that may change something (not a read,
 * not an agent's call) is recorded once, when the route answers: after the
 * change committed, whether or not the client is still there to read the
 * answer. Refusals (4xx) are recorded too, without before or after (nothing
 * changed): who tried what is part of the trail. Not recorded: a request no
 * route matched (404), and one whose route said it changed nothing
 * (changedNothing: a dry run it performed). The route is found by its pattern
 * (routeOf), never by the raw path; a `dry_run` the route does not honour is
 * refused (dryRunRefusal), and that refusal is recorded.
 */
export function auditMiddleware(recorder: AuditRecorder, stores: Stores, clientAddress: (req: IncomingMessage) => string, routes: Router) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (READS.has(req.method)) return next();
    const matched = routeOf(routes, req.method, req.path);
    if (!matched) return next();
    const refusal = dryRunRefusal(req, req.method, matched.pattern);
    if (notAChange(req.method, matched.pattern)) return next(refusal);
    const known = auditActionOf(req.method, matched.pattern);
    const params = matched.params;
    const bodyOf: { value?: unknown } = {};
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      bodyOf.value = body;
      return json(body);
    };
    const started = known?.before && !refusal ? known.before(stores, req, params).catch(() => undefined) : Promise.resolve(undefined);
    const write = async () => {
      const override = res.locals.audit as AuditDetail | false | undefined;
      if (override === false) return;
      const actor = actorOf(res);
      if (!actor) return;
      const ok = res.statusCode < 400;
      const route = (req.route as { path?: string } | undefined)?.path ?? matched.pattern;
      const base: AuditFacts = {
        actor,
        action: known?.action ?? `${req.method} /api${route}`,
        target: known ? known.target(req, params) : null,
        client: clientAddress(req),
        status: res.statusCode,
        request: { method: req.method, path: req.originalUrl.split('?')[0]!.slice(0, 512) },
      };
      if (ok && known) {
        if (known.before) base.before = (await started) ?? null;
        if (known.after) base.after = known.after(bodyOf.value, req);
        if (known.fromAnswer) Object.assign(base, known.fromAnswer(bodyOf.value, req));
      }
      if (known?.detail) {
        const d = known.detail(bodyOf.value, req);
        if (d !== undefined && (ok || known.action.startsWith('interaction.'))) base.detail = d;
      }
      if (override) {
        if (override.action !== undefined) base.action = override.action;
        if (override.target !== undefined) base.target = override.target;
        if (ok && 'before' in override) base.before = override.before;
        if (ok && 'after' in override) base.after = override.after;
        if ('detail' in override) base.detail = override.detail;
      }
      await recorder.record(base);
    };
    // Recorded when the route answers (res.end), not on 'finish': a client that hangs up first never lets 'finish'
    // fire, though the route still made its change and answers after it committed.
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let answered = false;
    res.end = ((...args: unknown[]) => {
      try {
        return end(...args);
      } finally {
        if (!answered) {
          answered = true;
          void write();
        }
      }
    }) as Response['end'];
    next(refusal);
  };
}
