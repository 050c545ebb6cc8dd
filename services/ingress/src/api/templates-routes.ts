import type { Router } from 'express';
import { getTemplate, listTemplates, putTemplate, removeTemplate, type RequestOf } from '@hookyard/api';
import { badInput, compileErrorLines, conflict, notFound, type Hook, type JqTemplate } from '@hookyard/core';
import { templateVars } from '../hooks/jq-fields';
import { mount } from './declare';
import type { ApiContext } from './context';

/**
 * Stored jq templates (declared in @hookyard/api). An id may contain `/`:
 * address it either literally (`/api/jq-templates/jq/missing`, a wildcard
 * route) or URL-encoded (`/api/jq-templates/jq%2Fmissing`). A template is
 * compiled on write, with the `$names` it mentions declared (its kwargs are
 * checked where a hook uses it).
 */
export function templateRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    listTemplates,
    async (_req, res) => {
      res.json({ templates: await ctx.stores.hooks.listTemplates() });
    },
    opts,
  );

  mount(
    router,
    getTemplate,
    async (req, res) => {
      const id = req.checked.params.id;
      const template = await ctx.stores.hooks.getTemplate(id);
      if (!template) throw notFound(`no stored template ${JSON.stringify(id)}`);
      res.json(template);
    },
    opts,
  );

  mount(
    router,
    putTemplate,
    async (req, res) => {
      const id = req.checked.params.id;
      const template = await checkTemplate(id, req.checked.body, ctx);
      const created = (await ctx.stores.hooks.getTemplate(id)) === null;
      await ctx.stores.hooks.putTemplate(template);
      ctx.logger.info({ template: id, created }, created ? 'jq template stored' : 'jq template replaced');
      res.status(created ? 201 : 200).json({ created, template });
    },
    opts,
  );

  mount(
    router,
    removeTemplate,
    async (req, res) => {
      const id = req.checked.params.id;
      if (!(await ctx.stores.hooks.getTemplate(id))) throw notFound(`no stored template ${JSON.stringify(id)}`);
      const users = (await ctx.stores.hooks.listHooks()).filter((h) => usesTemplate(h, id)).map((h) => h.name);
      if (users.length) throw conflict(`stored template '${id}' is used by hook(s) ${users.join(', ')}`);
      await ctx.stores.hooks.removeTemplate(id);
      res.json({ removed: true, id });
    },
    opts,
  );
}

/** What the declaration cannot say: the id in the body equals the path's, and the content compiles. */
async function checkTemplate(id: string, body: RequestOf<typeof putTemplate>['body'], ctx: ApiContext): Promise<JqTemplate> {
  const errors: string[] = [];
  if (body.id !== undefined && body.id !== id)
    errors.push(`id in the body (${JSON.stringify(body.id)}) differs from the id in the path (${JSON.stringify(id)})`);
  try {
    await ctx.jq.check(body.content, ['parked', ...templateVars(body.content)]);
  } catch (err) {
    errors.push(...compileErrorLines('content', err));
  }
  if (errors.length) throw badInput('template refused', errors);
  return { id, content: body.content, ...(body.description !== undefined ? { description: body.description } : {}) };
}

/** True when any jq field of the hook (its own, its subject's, or inside tool_kwargs) names the template. */
function usesTemplate(hook: Hook, id: string): boolean {
  let found = false;
  JSON.stringify(hook, (key, value: unknown) => {
    if (key === 'id' && value === id) found = true;
    return value;
  });
  return found;
}
