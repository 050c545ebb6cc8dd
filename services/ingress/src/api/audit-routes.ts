import type { Router } from 'express';
import { listAudit } from '@hookyard/api';
import { badInput } from '@hookyard/core';
import type { AuditFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { parseInstant } from './run-wire';

export const AUDIT_DEFAULT_LIMIT = 50;

/**
 * `GET /api/audit` (admin): the audit trail, newest first, cursor-paged;
 * filters `action` (exact, or a family `hook.*`), `actor` (a label such as
 * `operator:1a2b3c4d`, a role, `agent:<name>` or `link`), `target`, `since`
 * and `until` (ISO 8601). A bad filter is a 400 naming it and quoting what it got.
 */
export function auditRoutes(router: Router, ctx: ApiContext): void {
  // The query is checked by its declaration (its lines quote what they got); since and until are checked together here.
  mount(
    router,
    listAudit,
    async (req, res) => {
      const q = req.checked.query;
      const errors: string[] = [];
      const filter: AuditFilter = {
        ...(q.action !== undefined ? { action: q.action } : {}),
        ...(q.actor !== undefined ? { actor: q.actor } : {}),
        ...(q.target !== undefined ? { target: q.target } : {}),
      };
      // A time that matches ISO 8601 but is no date, and since after until, are checked here.
      for (const key of ['since', 'until'] as const) {
        const v = q[key];
        if (v === undefined) continue;
        const ms = parseInstant(v);
        if (ms === null) errors.push(`${key} must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(v)}`);
        else filter[key] = ms;
      }
      if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
        errors.push(`since must not be after until, got since=${new Date(filter.since).toISOString()} until=${new Date(filter.until).toISOString()}`);
      }
      if (errors.length) throw badInput('bad audit query', errors);
      const limit = q.limit ?? AUDIT_DEFAULT_LIMIT;
      const cursor = q.cursor ?? null;
      const now = ctx.clock.now();
      const page = await ctx.stores.audit.list(filter, limit, now - ctx.settings.auditRetentionMs, cursor);
      res.json({
        ...page,
        retention_days: ctx.settings.auditRetentionMs / 86_400_000,
        max_entries: ctx.settings.auditMaxEntries,
        max_refused: ctx.settings.auditMaxRefused,
      });
    },
    { validateAnswers: ctx.validateAnswers },
  );
}
