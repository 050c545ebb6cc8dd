import type { Router } from 'express';
import { badInput, isValidName, notFound, secretScopeOf } from '@hookyard/core';
import { redactBinding, validateVerifierBinding } from '../verify';
import { requireRole } from './auth';
import type { ApiContext } from './context';

/**
 * A topic's verifier binding. Bindings hold secret references only; a GET
 * still goes through redactBinding so nothing that looks like a literal
 * secret is ever echoed. Changing one is admin work.
 */
export function verifierRoutes(router: Router, ctx: ApiContext): void {
  router.get('/hooks/topics/:topic/verifier', requireRole('reader'), async (req, res) => {
    const topic = req.params.topic as string;
    const binding = isValidName(topic) ? await ctx.stores.hooks.getVerifier(topic) : null;
    if (!binding) throw notFound(`topic ${JSON.stringify(topic)} has no verifier binding`);
    res.json(redactBinding(binding));
  });

  router.put('/hooks/topics/:topic/verifier', requireRole('admin'), async (req, res) => {
    const topic = req.params.topic as string;
    const checked = validateVerifierBinding(topic, req.body, new Date(ctx.clock.now()), secretScopeOf(ctx.settings));
    if (!checked.ok) throw badInput('verifier binding refused', checked.errors);
    const binding = checked.binding;
    const previous = await ctx.stores.hooks.getVerifier(topic);
    if (previous) binding.created_at = previous.created_at;
    const { created } = await ctx.stores.hooks.putVerifier(binding);
    ctx.onVerifierChanged(topic);
    ctx.logger.info({ topic, kind: binding.kind, created }, created ? 'verifier bound' : 'verifier replaced');
    res.status(created ? 201 : 200).json({ created, verifier: redactBinding(binding) });
  });

  router.delete('/hooks/topics/:topic/verifier', requireRole('admin'), async (req, res) => {
    const topic = req.params.topic as string;
    const removed = isValidName(topic) && (await ctx.stores.hooks.removeVerifier(topic));
    if (!removed) throw notFound(`topic ${JSON.stringify(topic)} has no verifier binding`);
    ctx.onVerifierChanged(topic);
    ctx.logger.info({ topic }, 'verifier removed; the topic is open');
    res.json({ removed: true, topic });
  });
}
