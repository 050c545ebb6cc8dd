import type { Router } from 'express';
import { createSecretResolver, notFound, secretScopeOf } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import type { InteractionFilter } from '@hookyard/store';
import { resolveFailure } from '../approvals/answer';
import { operatorLinks } from '../approvals/operator-links';
import { AuditRecorder } from '../audit/recorder';
import { cancelInteraction, getInteraction, listInteractions } from '@hookyard/api';
import { callerOf, roleOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';

/** A page's size when the query gives no limit (the declaration bounds it: 1 to 500). */
const INTERACTION_LIST_DEFAULT_LIMIT = 50;

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
      // Checked by the declaration: every bad value one line of a 400.
      const { status, kind, run, hook, limit, cursor } = req.checked.query;
      const filter: InteractionFilter = { ...(status ? { status } : {}), ...(kind ? { kind } : {}), ...(run ? { run } : {}), ...(hook ? { hook } : {}) };
      const page = await ctx.stores.interactions.list(filter, limit ?? INTERACTION_LIST_DEFAULT_LIMIT, cursor ?? null);
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
      const reason = req.checked.body?.reason ?? '';
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
