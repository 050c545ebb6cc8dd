import type { Router } from 'express';
import { listAudit } from '@hookyard/api';
import { badInput } from '@hookyard/core';
import type { AuditFilter } from '@hookyard/store';
import type { ApiContext } from './context';
import { mount } from './declare';
import { listQueryReader } from './list-query';
import { parseInstant } from './run-wire';

const QUERY_KEYS = new Set(['action', 'actor', 'target', 'since', 'until', 'limit', 'cursor']);
export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 500;
/** An action: dotted lower-case words (`hook.register`), or a family (`hook.*`); or a route as recorded (`POST /api/...`). */
const ACTION = /^(?:[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*(?:\.\*)?|[A-Z]+ \/api\/\S{0,256})$/;
const ACTOR = /^[A-Za-z0-9_.:-]{1,160}$/;

/**
 * `GET /api/audit` (admin): the audit trail, newest first, cursor-paged;
 * filters `action` (exact, or a family `hook.*`), `actor` (a label such as
 * `operator:1a2b3c4d`, a role, `agent:<name>` or `link`), `target`, `since`
 * and `until` (ISO 8601). A bad filter is a 400 naming it and quoting what it got.
 */
export function auditRoutes(router: Router, ctx: ApiContext): void {
  // The query is read here: its lines quote what they got; since and until are checked together.
  mount(
    router,
    listAudit,
    async (req, res) => {
      const { one, limit: readLimit, errors } = listQueryReader(req.query, QUERY_KEYS);
      const filter: AuditFilter = {};
      const action = one('action');
      if (action !== undefined) {
        if (ACTION.test(action)) filter.action = action;
        else errors.push(`action must be an action such as hook.register, or a family such as hook.*, got ${JSON.stringify(action.slice(0, 200))}`);
      }
      const actor = one('actor');
      if (actor !== undefined) {
        if (ACTOR.test(actor)) filter.actor = actor;
        else errors.push(`actor must be a role, link, or a label such as operator:1a2b3c4d or agent:ci-bot, got ${JSON.stringify(actor.slice(0, 200))}`);
      }
      const target = one('target');
      if (target !== undefined) {
        if (target.length >= 1 && target.length <= 512) filter.target = target;
        else errors.push(`target must be 1 to 512 characters, got ${target.length}`);
      }
      for (const key of ['since', 'until'] as const) {
        const v = one(key);
        if (v === undefined) continue;
        const ms = parseInstant(v);
        if (ms === null) errors.push(`${key} must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(v.slice(0, 200))}`);
        else filter[key] = ms;
      }
      if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
        errors.push(`since must not be after until, got since=${new Date(filter.since).toISOString()} until=${new Date(filter.until).toISOString()}`);
      }
      const limit = readLimit(AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT);
      const cursor = one('cursor') ?? null;
      if (cursor !== null && !/^[0-9a-z]{22}$/.test(cursor))
        errors.push(`cursor must be the next_cursor of a previous page, got ${JSON.stringify(cursor.slice(0, 64))}`);
      if (errors.length) throw badInput('bad audit query', errors);
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
