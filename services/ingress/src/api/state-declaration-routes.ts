import type { Router } from 'express';
import { STATE_TEMPLATE_NAMES, StateSchemas, badInput, notFound, declarationName } from '@hookyard/core';
import type { Hook, StateDeclaration, StateDeclarationInput } from '@hookyard/core';
import { checkJqField } from '../hooks/jq-fields';
import { attachTemplates } from '../hooks/state-binding';
import { deleteStateDeclaration, getStateDeclaration, listStateDeclarations, putStateDeclaration } from '@hookyard/api';
import { mount } from './declare';
import type { ApiContext } from './context';

const FIELDS = new Set(['schema', 'description', 'templates']);
/** Server-owned: echoed by GET, ignored on input (a GET-edit-PUT round trip is not refused). */
const SERVER_FIELDS = new Set(['scope', 'kind', 'version', 'created_at', 'updated_at', 'bound_by']);
const DESCRIPTION_MAX = 2000;

/**
 * Declared states (`/api/states/declarations`, registered before the subject
 * routes, which would read `declarations` as a scope): list and read them
 * (reader, each with the hooks that bind it), declare or change one and
 * remove it (admin). A schema is compiled by ajv as draft 2020-12 when
 * declared; a change re-attaches its templates to the hooks that name them,
 * each a new hook revision, named in the answer (and so in the audit entry).
 */
export function stateDeclarationRoutes(router: Router, ctx: ApiContext, schemas: StateSchemas): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  mount(
    router,
    listStateDeclarations,
    async (_req, res) => {
      res.json({ declarations: await ctx.stores.declarations.listDeclarations() });
    },
    opts,
  );

  mount(
    router,
    getStateDeclaration,
    async (req, res) => {
      const { scope, kind } = req.checked.params;
      const d = await ctx.stores.declarations.getDeclaration(scope, kind);
      if (!d) throw notFound(`state ${declarationName(scope, kind)} is not declared`);
      res.json({ ...d, bound_by: await ctx.stores.declarations.bindings(scope, kind) });
    },
    opts,
  );

  mount(
    router,
    putStateDeclaration,
    async (req, res) => {
      const { scope, kind } = req.checked.params;
      const input = await checkDeclaration(scope, kind, req.body, ctx, schemas);
      const { created, declaration } = await ctx.stores.declarations.putDeclaration(input, ctx.clock.now());
      const reattached = await reattach(declaration, ctx);
      ctx.logger.info(
        { state: declarationName(scope, kind), version: declaration.version, reattached },
        created ? 'state declared' : 'state declaration changed',
      );
      res.status(created ? 201 : 200).json({ created, declaration, reattached });
    },
    opts,
  );

  mount(
    router,
    deleteStateDeclaration,
    async (req, res) => {
      const { scope, kind } = req.checked.params;
      const removed = await ctx.stores.declarations.removeDeclaration(scope, kind);
      if (!removed) throw notFound(`state ${declarationName(scope, kind)} is not declared`);
      ctx.logger.info({ state: declarationName(scope, kind) }, 'state declaration removed');
      res.json({ removed: true, declaration: removed });
    },
    opts,
  );
}

async function checkDeclaration(scope: string, kind: string, body: unknown, ctx: ApiContext, schemas: StateSchemas): Promise<StateDeclarationInput> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badInput('state declaration refused', ['the body must be a JSON object {"schema": {...}, "description": "...", "templates"?: {...}}']);
  const b = body as Record<string, unknown>;
  const lines: string[] = [];
  for (const k of Object.keys(b)) if (!FIELDS.has(k) && !SERVER_FIELDS.has(k)) lines.push(`unknown field '${k}' (known: schema, description, templates)`);
  if (b.schema === undefined) lines.push('schema is required: a JSON Schema (draft 2020-12) for the documents; {} accepts any object');
  else {
    try {
      schemas.compile(b.schema);
    } catch (err) {
      lines.push((err as Error).message);
    }
  }
  if (typeof b.description !== 'string' || b.description.length > DESCRIPTION_MAX)
    lines.push(`description is required, a string of at most ${DESCRIPTION_MAX} characters`);
  const templates = (b.templates ?? {}) as Record<string, unknown>;
  if (templates === null || typeof templates !== 'object' || Array.isArray(templates)) lines.push('templates must be an object {name: jq field}');
  else {
    const known: readonly string[] = STATE_TEMPLATE_NAMES;
    const deps = { jq: ctx.jq, getTemplate: (id: string) => ctx.stores.hooks.getTemplate(id) };
    for (const [name, field] of Object.entries(templates)) {
      if (!known.includes(name)) lines.push(`templates.${name} is not a template name (known: ${known.join(', ')}: the hook field a binding fills)`);
      else lines.push(...(await checkJqField(field, `templates.${name}`, deps)));
    }
  }
  if (lines.length) throw badInput('state declaration refused', lines);
  return {
    scope,
    kind,
    schema: b.schema as Record<string, unknown>,
    description: b.description as string,
    templates: templates,
  };
}

/** The hooks whose binding names templates of `declaration`, registered again with the new ones (a new revision each). */
async function reattach(declaration: StateDeclaration, ctx: ApiContext): Promise<string[]> {
  const names: string[] = [];
  for (const b of await ctx.stores.declarations.bindings(declaration.scope, declaration.kind)) {
    const hook: Hook | null = await ctx.stores.hooks.getHook(b.hook);
    if (!hook?.subject?.templates?.length || hook.subject.declaration_version === declaration.version) continue;
    attachTemplates(hook, declaration);
    hook.updated_at = new Date(ctx.clock.now()).toISOString();
    await ctx.stores.hooks.putHook(hook);
    names.push(hook.name);
  }
  return names;
}
