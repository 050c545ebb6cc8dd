import type { Router } from 'express';
import { badInput, compileErrorLines, conflict, notFound, type Hook, type JqTemplate } from '@hookyard/core';
import { templateVars } from '../hooks/jq-fields';
import { requireRole } from './auth';
import type { ApiContext } from './context';

/** Template ids are path-like (`jq/missing`): lowercase segments joined by `/`. */
export const TEMPLATE_ID_PATTERN = /^[a-z0-9][a-z0-9_.-]*(\/[a-z0-9][a-z0-9_.-]*)*$/;
const TEMPLATE_ID_MAX = 200;
const TEMPLATE_FIELDS = new Set(['id', 'content', 'description']);

/**
 * Stored jq templates. An id may contain `/`: address it either literally
 * (`/api/jq-templates/jq/missing`, a wildcard route) or URL-encoded
 * (`/api/jq-templates/jq%2Fmissing`). A template is compiled on write, with
 * the `$names` it mentions declared (its kwargs are checked where a hook uses it).
 */
export function templateRoutes(router: Router, ctx: ApiContext): void {
  router.get('/jq-templates', requireRole('reader'), async (_req, res) => {
    res.json({ templates: await ctx.stores.hooks.listTemplates() });
  });

  router.get('/jq-templates/*id', requireRole('reader'), async (req, res) => {
    const id = templateId(req.params.id);
    const template = await ctx.stores.hooks.getTemplate(id);
    if (!template) throw notFound(`no stored template ${JSON.stringify(id)}`);
    res.json(template);
  });

  router.put('/jq-templates/*id', requireRole('operator'), async (req, res) => {
    const id = templateId(req.params.id);
    const template = await checkTemplate(id, req.body, ctx);
    const created = (await ctx.stores.hooks.getTemplate(id)) === null;
    await ctx.stores.hooks.putTemplate(template);
    ctx.logger.info({ template: id, created }, created ? 'jq template stored' : 'jq template replaced');
    res.status(created ? 201 : 200).json({ created, template });
  });

  router.delete('/jq-templates/*id', requireRole('operator'), async (req, res) => {
    const id = templateId(req.params.id);
    if (!(await ctx.stores.hooks.getTemplate(id))) throw notFound(`no stored template ${JSON.stringify(id)}`);
    const users = (await ctx.stores.hooks.listHooks()).filter((h) => usesTemplate(h, id)).map((h) => h.name);
    if (users.length) throw conflict(`stored template '${id}' is used by hook(s) ${users.join(', ')}`);
    await ctx.stores.hooks.removeTemplate(id);
    res.json({ removed: true, id });
  });
}

function templateId(param: unknown): string {
  const id = Array.isArray(param) ? param.join('/') : String(param);
  if (id.length > TEMPLATE_ID_MAX || !TEMPLATE_ID_PATTERN.test(id))
    throw notFound(`no stored template ${JSON.stringify(id)} (ids match ${TEMPLATE_ID_PATTERN.source})`);
  return id;
}

async function checkTemplate(id: string, body: unknown, ctx: ApiContext): Promise<JqTemplate> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badInput('a template must be a JSON object {content, description?}');
  const b = body as Record<string, unknown>;
  const errors: string[] = [];
  for (const key of Object.keys(b)) if (!TEMPLATE_FIELDS.has(key)) errors.push(`unknown field '${key}'`);
  if (b.id !== undefined && b.id !== id) errors.push(`id in the body (${JSON.stringify(b.id)}) differs from the id in the path (${JSON.stringify(id)})`);
  if (b.description !== undefined && typeof b.description !== 'string') errors.push('description must be a string');
  if (typeof b.content !== 'string' || b.content.trim() === '') errors.push('content must be a non-empty string of jq');
  else {
    try {
      await ctx.jq.check(b.content, ['parked', ...templateVars(b.content)]);
    } catch (err) {
      errors.push(...compileErrorLines('content', err));
    }
  }
  if (errors.length) throw badInput('template refused', errors);
  return { id, content: b.content as string, ...(typeof b.description === 'string' ? { description: b.description } : {}) };
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
