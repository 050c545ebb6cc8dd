import type { Router } from 'express';
import { badInput, isValidName, notFound } from '@hookyard/core';
import { validateHook } from '../hooks/validate-hook';
import { requireRole } from './auth';
import type { ApiContext } from './context';

/**
 * `GET/POST /api/hooks`, `GET/DELETE /api/hooks/:name`. Registering an
 * existing name replaces the hook atomically (moving it to a new topic) and
 * keeps its created_at: 201 when new, 200 when replaced.
 */
export function hookRoutes(router: Router, ctx: ApiContext): void {
  router.get('/hooks', requireRole('reader'), async (req, res) => {
    const topic = req.query.topic;
    if (topic !== undefined && !isValidName(topic)) throw badInput('topic must match ^[a-z0-9][a-z0-9_-]*$');
    const hooks = topic === undefined ? await ctx.stores.hooks.listHooks() : await ctx.stores.hooks.hooksOnTopic(topic);
    res.json({ hooks });
  });

  router.post('/hooks', requireRole('operator'), async (req, res) => {
    const checked = await validateHook(req.body, {
      tools: ctx.tools,
      jq: ctx.jq,
      schemas: ctx.schemas,
      getTemplate: (id) => ctx.stores.hooks.getTemplate(id),
      toolsAllow: ctx.settings.toolsAllow,
      now: ctx.clock.now(),
    });
    if (!checked.ok) throw badInput('hook registration refused', checked.errors);
    const hook = checked.hook;
    const previous = await ctx.stores.hooks.getHook(hook.name);
    if (previous) hook.created_at = previous.created_at;
    const { created } = await ctx.stores.hooks.putHook(hook);
    ctx.logger.info({ hook: hook.name, topic: hook.topic, tool: hook.tool, created }, created ? 'hook registered' : 'hook replaced');
    res.status(created ? 201 : 200).json({ created, hook });
  });

  router.get('/hooks/:name', requireRole('reader'), async (req, res) => {
    const name = req.params.name as string;
    const hook = isValidName(name) ? await ctx.stores.hooks.getHook(name) : null;
    if (!hook) throw notFound(`no hook named ${JSON.stringify(name)}`);
    res.json(hook);
  });

  router.delete('/hooks/:name', requireRole('operator'), async (req, res) => {
    const name = req.params.name as string;
    const removed = isValidName(name) && (await ctx.stores.hooks.removeHook(name));
    if (!removed) throw notFound(`no hook named ${JSON.stringify(name)}`);
    ctx.logger.info({ hook: name }, 'hook removed');
    res.json({ removed: true, name });
  });
}
