import type { Router } from 'express';
import { getDedupe, putDedupe, removeDedupe } from '@hookyard/api';
import { badInput, notFound } from '@hookyard/core';
import { validateDedupeBinding } from '../door/dedupe';
import { mount } from './declare';
import type { ApiContext } from './context';

/**
 * A topic's dedupe key: a jq expression over `{headers, query, body}` whose
 * answer is the delivery id of an event the verifier gave none. Compiled when
 * written; changing one is admin work, like the verifier binding beside it.
 */
export function dedupeRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    getDedupe,
    async (req, res) => {
      const topic = req.checked.params.topic;
      const binding = await ctx.stores.hooks.getDedupe(topic);
      if (!binding) throw notFound(`topic ${JSON.stringify(topic)} has no dedupe key`);
      res.json(binding);
    },
    opts,
  );

  mount(
    router,
    putDedupe,
    async (req, res) => {
      // validateDedupeBinding checks the topic and the body (the declaration leaves both to it).
      const topic = req.params.topic as string;
      const checked = await validateDedupeBinding(topic, req.body, ctx.jq, new Date(ctx.clock.now()));
      if (!checked.ok) throw badInput('dedupe key refused', checked.errors);
      const binding = checked.binding;
      const previous = await ctx.stores.hooks.getDedupe(topic);
      if (previous) binding.created_at = previous.created_at;
      const { created } = await ctx.stores.hooks.putDedupe(binding);
      ctx.onDedupeChanged(topic);
      ctx.logger.info({ topic, expr: binding.expr, horizon_seconds: binding.horizon_seconds, created }, created ? 'dedupe key set' : 'dedupe key replaced');
      res.status(created ? 201 : 200).json({ created, dedupe: binding });
    },
    opts,
  );

  mount(
    router,
    removeDedupe,
    async (req, res) => {
      const topic = req.checked.params.topic;
      if (!(await ctx.stores.hooks.removeDedupe(topic))) throw notFound(`topic ${JSON.stringify(topic)} has no dedupe key`);
      ctx.onDedupeChanged(topic);
      ctx.logger.info({ topic }, 'dedupe key removed');
      res.json({ removed: true, topic });
    },
    opts,
  );
}
