import type { Router } from 'express';
import {
  INTERACTION_ID_PATTERN,
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  RUN_ID_PATTERN,
  badInput,
  createSecretResolver,
  isValidName,
  notFound,
  secretScopeOf,
} from '@hookyard/core';
import type { InteractionKind, InteractionStatus } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import type { InteractionFilter } from '@hookyard/store';
import { resolveFailure } from '../approvals/answer';
import { operatorLinks } from '../approvals/operator-links';
import { AuditRecorder } from '../audit/recorder';
import { cancelInteraction, getInteraction, listInteractions } from '@hookyard/api';
import { callerOf, roleOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';
import { listQueryReader } from './list-query';

export const INTERACTION_LIST_DEFAULT_LIMIT = 50;
export const INTERACTION_LIST_MAX_LIMIT = 500;
const QUERY_KEYS = new Set(['status', 'kind', 'run', 'hook', 'limit', 'cursor']);
const BODY_KEYS = new Set(['reason']);

/** Reads `GET /api/interactions` query parameters; every bad value is one line of a 400. */
export function parseInteractionQuery(query: Record<string, unknown>): { filter: InteractionFilter; limit: number; cursor: string | null } {
  const { one, limit: readLimit, errors } = listQueryReader(query, QUERY_KEYS);
  const filter: InteractionFilter = {};
  const status = one('status');
  if (status !== undefined) {
    if ((INTERACTION_STATUSES as readonly string[]).includes(status)) filter.status = status as InteractionStatus;
    else errors.push(`status must be one of ${INTERACTION_STATUSES.join('|')}, got ${JSON.stringify(status)}`);
  }
  const kind = one('kind');
  if (kind !== undefined) {
    if ((INTERACTION_KINDS as readonly string[]).includes(kind)) filter.kind = kind as InteractionKind;
    else errors.push(`kind must be one of ${INTERACTION_KINDS.join('|')}, got ${JSON.stringify(kind)}`);
  }
  const run = one('run');
  if (run !== undefined) {
    if (RUN_ID_PATTERN.test(run)) filter.run = run;
    else errors.push(`run must be a run id, got ${JSON.stringify(run)}`);
  }
  const hook = one('hook');
  if (hook !== undefined) {
    if (isValidName(hook)) filter.hook = hook;
    else errors.push(`hook must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(hook)}`);
  }
  const limit = readLimit(INTERACTION_LIST_DEFAULT_LIMIT, INTERACTION_LIST_MAX_LIMIT);
  const cursor = one('cursor') ?? null;
  if (cursor !== null && !INTERACTION_ID_PATTERN.test(cursor)) errors.push(`cursor must be the next_cursor of a previous page, got ${JSON.stringify(cursor)}`);
  if (errors.length) throw badInput('bad interaction list query', errors);
  return { filter, limit, cursor };
}

/** `{reason?}`: the operator's words, kept in the resolution. */
export function parseReason(body: unknown): string {
  if (body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)) return '';
  if (typeof body !== 'object' || Array.isArray(body)) throw badInput(`body must be an object {reason?}, got ${JSON.stringify(body)}`);
  const errors = Object.keys(body)
    .filter((k) => !BODY_KEYS.has(k))
    .map((k) => `unknown field '${k}' (known: reason)`);
  const reason = (body as { reason?: unknown }).reason;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 1000))
    errors.push(`reason must be a string of at most 1000 characters, got ${JSON.stringify(reason).slice(0, 80)}`);
  if (errors.length) throw badInput('bad interaction answer', errors);
  return (reason as string | undefined) ?? '';
}

/**
 * The interactions parked runs wait on: list (filters + cursor), one, and an
 * operator's cancel (the parked run ends `cancelled`). A second answer is 409
 * naming who answered first. One open approval read by an operator or admin
 * carries fresh signed `links` issued to its token (signed into them) and is
 * recorded in the audit trail (`interaction.links_issued`) before the links
 * are answered; a reader's answer has no `links` field (a link answers
 * without a token, so holding one is approving).
 */
export function interactionRoutes(router: Router, ctx: ApiContext): void {
  const secrets = ctx.secrets ?? createSecretResolver({ scope: secretScopeOf(ctx.settings) });
  // A GET is not recorded by the audit middleware: handing out links is, here.
  const audit = ctx.audit ?? new AuditRecorder(ctx);
  const clientAddress = ctx.clientAddress ?? ((req) => req.socket.remoteAddress ?? '');
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    listInteractions,
    async (req, res) => {
      const q = parseInteractionQuery(req.query);
      const page = await ctx.stores.interactions.list(q.filter, q.limit, q.cursor);
      res.json({ interactions: page.interactions, next_cursor: page.nextCursor });
    },
    opts,
  );

  mount(
    router,
    getInteraction,
    async (req, res) => {
      const id = req.checked.params.id;
      const interaction = await ctx.stores.interactions.get(id);
      if (!interaction) throw notFound(`no interaction ${JSON.stringify(id)}`);
      if (roleOf(res) === 'reader') return res.json(interaction);
      const issuer = callerOf(res);
      const links = await operatorLinks({ settings: ctx.settings, secrets, logger: ctx.logger }, interaction, ctx.clock.now(), issuer);
      if (links) {
        // Written before the links are answered: no link leaves without its record.
        await audit.record({
          actor: { kind: 'token', role: roleOf(res), label: issuer },
          action: 'interaction.links_issued',
          target: id,
          client: clientAddress(req),
          status: 200,
          request: { method: 'GET', path: `/api/interactions/${id}` },
          detail: { issuer, expires_at: links.expires_at, run: interaction.run },
        });
      }
      res.json({ ...interaction, links });
    },
    opts,
  );

  mount(
    router,
    cancelInteraction,
    async (req, res) => {
      const id = req.checked.params.id;
      const reason = parseReason(req.body);
      const by = callerOf(res);
      const { interaction, run } = await ctx.stores.interactions
        .resolve(id, { status: 'cancelled', by, via: 'api', reason }, ctx.clock.now())
        .catch((err: unknown) => {
          throw resolveFailure(id, err);
        });
      ctx.logger.info({ interaction: id, run: interaction.run, by }, 'interaction cancelled by an operator');
      if (run?.status === 'cancelled') ctx.metrics.cancelled.inc({ hook: run.hook });
      if (run) announceRun(ctx.events, run, run.status === 'cancelled' ? 'finished' : 'woken', ctx.logger);
      res.json(interaction);
    },
    opts,
  );
}
