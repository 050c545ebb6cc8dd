import type { Router } from 'express';
import { badInput, isValidName, notFound } from '@hookyard/core';
import { validateDedupeBinding } from '../door/dedupe';
import { requireRole } from './auth';
import type { ApiContext } from './context';

/**
 * A topic's dedupe key: a jq expression over `{headers, query, body}` whose
 * answer is the delivery id of an event the verifier gave none. Compiled when
 * written; changing one is admin work, like the verifier binding beside it.
 */
export function dedupeRoutes(router: Router, ctx: ApiContext): void {
  router.get('/hooks/topics/:topic/dedupe', requireRole('reader'), async (req, res) => {
    const topic = req.params.topic as string;
    const binding = isValidName(topic) ? await ctx.stores.hooks.getDedupe(topic) : null;
    if (!binding) throw notFound(`topic ${JSON.stringify(topic)} has no dedupe key`);
    res.json(binding);
  });

  router.put('/hooks/topics/:topic/dedupe', requireRole('admin'), async (req, res) => {
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
  });

  router.delete('/hooks/topics/:topic/dedupe', requireRole('admin'), async (req, res) => {
    const topic = req.params.topic as string;
    const removed = isValidName(topic) && (await ctx.stores.hooks.removeDedupe(topic));
    if (!removed) throw notFound(`topic ${JSON.stringify(topic)} has no dedupe key`);
    ctx.onDedupeChanged(topic);
    ctx.logger.info({ topic }, 'dedupe key removed');
    res.json({ removed: true, topic });
  });
}
