import type { Router } from 'express';
import { dryRunHook, getHook, hookSchema, listHooks, putHook, removeHook } from '@hookyard/api';
import { badInput, isValidName, notFound, type Hook } from '@hookyard/core';
import { approvalGate } from '@hookyard/plan';
import { dryRun } from '../hooks/dry-run';
import { validateHook } from '../hooks/validate-hook';
import { checkBinding } from '../hooks/state-binding';
import { hookJsonSchema } from '../openapi/hook-schema';
import { changedNothing } from '../audit/recorder';
import { mount } from './declare';
import type { ApiContext } from './context';

/**
 * `GET/POST /api/hooks`, `GET/DELETE /api/hooks/:name`. Registering an
 * existing name replaces the hook atomically (moving it to a new topic) and
 * keeps its created_at: 201 when new, 200 when replaced. Declared in
 * @hookyard/api; a hook body is checked by validateHook (its lines say more
 * than the schema can).
 */
export function hookRoutes(router: Router, ctx: ApiContext): void {
  const validationDeps = () => ({
    tools: ctx.tools,
    jq: ctx.jq,
    schemas: ctx.schemas,
    getTemplate: (id: string) => ctx.stores.hooks.getTemplate(id),
    toolsAllow: ctx.settings.toolsAllow,
    now: ctx.clock.now(),
  });
  const gate = approvalGate(ctx.tools, ctx.stores.hooks, ctx.jq, ctx.settings);
  const opts = { validateAnswers: ctx.validateAnswers };

  mount(
    router,
    listHooks,
    async (req, res) => {
      const topic = req.checked.query.topic;
      const hooks = topic === undefined ? await ctx.stores.hooks.listHooks() : await ctx.stores.hooks.hooksOnTopic(topic);
      res.json({ hooks });
    },
    opts,
  );

  mount(
    router,
    putHook,
    async (req, res) => {
      const checked = await validateHook(req.body, validationDeps());
      if (!checked.ok) throw badInput('hook registration refused', checked.errors);
      const hook = checked.hook;
      await checkBinding(hook, ctx.stores.declarations);
      const previous = await ctx.stores.hooks.getHook(hook.name);
      if (previous) hook.created_at = previous.created_at;
      const { created } = await ctx.stores.hooks.putHook(hook);
      ctx.logger.info({ hook: hook.name, topic: hook.topic, tool: hook.tool, created }, created ? 'hook registered' : 'hook replaced');
      res.status(created ? 201 : 200).json({ created, hook });
    },
    opts,
  );

  // Before /hooks/:name, which would read 'schema' as a hook name.
  mount(
    router,
    hookSchema,
    (_req, res) => {
      res.json(hookJsonSchema());
    },
    opts,
  );

  mount(
    router,
    dryRunHook,
    async (req, res) => {
      const body = req.body as unknown;
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw badInput('dry run refused', ['the body must be a JSON object {"hook": <record or name>, "payload": ...}']);
      const b = body as Record<string, unknown>;
      const unknown = Object.keys(b).filter((k) => k !== 'hook' && k !== 'payload');
      if (unknown.length)
        throw badInput(
          'dry run refused',
          unknown.map((k) => `unknown field '${k}'`),
        );
      let hook: Hook;
      if (typeof b.hook === 'string') {
        const found = isValidName(b.hook) ? await ctx.stores.hooks.getHook(b.hook) : null;
        if (!found) throw notFound(`no hook named ${JSON.stringify(b.hook)}`);
        hook = found;
      } else if (b.hook !== null && typeof b.hook === 'object' && !Array.isArray(b.hook)) {
        const checked = await validateHook(b.hook, validationDeps());
        if (!checked.ok) throw badInput('hook refused (nothing was run)', checked.errors);
        hook = checked.hook;
        // As registration would: the declared templates the binding names fill the record's fields.
        if (hook.subject?.templates?.length) await checkBinding(hook, ctx.stores.declarations);
      } else throw badInput('dry run refused', ['hook must be a registered hook name or a hook record']);
      const report = await dryRun(hook, b.payload ?? {}, {
        jq: ctx.jq,
        jqTimeoutMs: ctx.settings.jqTimeoutMs,
        hooks: ctx.stores.hooks,
        interactions: ctx.stores.interactions,
        states: ctx.stores.states,
        toolsAllow: ctx.settings.toolsAllow,
        gate,
      });
      // A preview: nothing was kept, so the audit trail has no entry for it.
      changedNothing(res);
      res.json(report);
    },
    opts,
  );

  mount(
    router,
    getHook,
    async (req, res) => {
      const name = req.checked.params.name;
      const hook = await ctx.stores.hooks.getHook(name);
      if (!hook) throw notFound(`no hook named ${JSON.stringify(name)}`);
      res.json(hook);
    },
    opts,
  );

  mount(
    router,
    removeHook,
    async (req, res) => {
      const name = req.checked.params.name;
      if (!(await ctx.stores.hooks.removeHook(name))) throw notFound(`no hook named ${JSON.stringify(name)}`);
      ctx.logger.info({ hook: name }, 'hook removed');
      res.json({ removed: true, name });
    },
    opts,
  );
}
