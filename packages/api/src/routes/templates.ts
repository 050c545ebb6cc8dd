import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Created, Removed } from '../shared';

/** Template ids are path-like (`jq/missing`): lowercase segments joined by `/`. */
export const TEMPLATE_ID_PATTERN = '^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$';

export const JqTemplate = Type.Object({ id: Type.String(), content: Type.String(), description: Type.Optional(Type.String()) }, { $id: 'JqTemplate' });

export const JqTemplateInput = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'Optional; must equal the path id' })),
    // Before content, so the refusal lines come in the order they always did.
    description: Type.Optional(Type.String()),
    content: Type.String({ description: 'jq; compiled on write', pattern: '\\S', 'x-error': 'content must be a non-empty string of jq' }),
  },
  { $id: 'JqTemplateInput', additionalProperties: false },
);

const TemplateId = Type.Object({
  id: Type.String({
    description: 'Template id; it may contain `/` (e.g. `jq/missing`), given literally or URL-encoded as %2F',
    pattern: TEMPLATE_ID_PATTERN,
    maxLength: 200,
  }),
});
const idMiss = (p: Record<string, string>) => `no stored template ${JSON.stringify(p.id)} (ids match ${TEMPLATE_ID_PATTERN})`;

export const listTemplates = route({
  method: 'GET',
  path: '/jq-templates',
  role: 'reader',
  operationId: 'listTemplates',
  tag: 'templates',
  summary: 'Stored jq templates',
  answers: { 200: answer('Templates', Type.Object({ templates: Type.Array(JqTemplate) })) },
});

export const getTemplate = route({
  method: 'GET',
  path: '/jq-templates/*id',
  role: 'reader',
  operationId: 'getTemplate',
  tag: 'templates',
  summary: 'One template',
  params: TemplateId,
  paramsMiss: idMiss,
  answers: { 200: answer('The template', JqTemplate) },
  errors: [404],
});

export const putTemplate = route({
  method: 'PUT',
  path: '/jq-templates/*id',
  role: 'operator',
  operationId: 'putTemplate',
  tag: 'templates',
  summary: 'Store or replace a template (compiled on write)',
  params: TemplateId,
  paramsMiss: idMiss,
  body: JqTemplateInput,
  refused: 'template refused',
  answers: {
    200: answer('Replaced', Type.Object({ created: Created(false), template: JqTemplate })),
    201: answer('Stored', Type.Object({ created: Created(true), template: JqTemplate })),
  },
  errors: [400],
  audit: 'template.put',
});

export const removeTemplate = route({
  method: 'DELETE',
  path: '/jq-templates/*id',
  role: 'operator',
  operationId: 'removeTemplate',
  tag: 'templates',
  summary: 'Remove a template; refused while a hook uses it',
  params: TemplateId,
  paramsMiss: idMiss,
  answers: { 200: answer('Removed', Removed) },
  errors: [404, 409],
  audit: 'template.remove',
});

export const TEMPLATE_ROUTES = [listTemplates, getTemplate, putTemplate, removeTemplate] as const;
