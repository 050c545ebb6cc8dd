import { STATE_TEMPLATE_NAMES } from '@hookyard/core';
import type { PathBuilders } from './agents-paths';

type Obj = Record<string, unknown>;

const isoTime = { type: 'string', format: 'date-time' };
const name = { $ref: '#/components/schemas/Name' };
const templates = {
  type: 'object',
  additionalProperties: false,
  description: "Named jq fields a binding attaches to its hook (subject.templates): key_expr fills subject.key_expr, the others the hook's field of that name",
  properties: Object.fromEntries(STATE_TEMPLATE_NAMES.map((n) => [n, { $ref: '#/components/schemas/JqField' }])),
};
const binding = {
  type: 'object',
  required: ['hook', 'attach'],
  additionalProperties: false,
  properties: {
    hook: name,
    attach: { type: 'string', nullable: true, description: 'Its attach path; null: a subject without attach (the whole document, shared)' },
  },
};

/** The declared states' schemas (/api/states/declarations). */
export const STATE_DECLARATION_SCHEMAS: Obj = {
  StateDeclaration: {
    type: 'object',
    required: ['scope', 'kind', 'schema', 'description', 'templates', 'version', 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: {
      scope: name,
      kind: name,
      schema: { type: 'object', description: 'JSON Schema (draft 2020-12) every write of this state must satisfy; {} is open' },
      description: { type: 'string' },
      templates,
      version: { type: 'integer', minimum: 1 },
      created_at: isoTime,
      updated_at: isoTime,
      bound_by: { type: 'array', items: binding, description: 'GET of one declaration only: the hooks that bind it' },
    },
  },
  StateDeclarationInput: {
    type: 'object',
    required: ['schema', 'description'],
    additionalProperties: true,
    description: 'Server-owned fields (scope, kind, version, times, bound_by) are ignored, so a GET-edit-PUT round trip works',
    properties: {
      schema: { type: 'object', description: 'Compiled by ajv as draft 2020-12 when declared: one that does not compile is 400 quoting ajv' },
      description: { type: 'string', maxLength: 2000 },
      templates,
    },
  },
};

export function stateDeclarationPaths(b: PathBuilders): Obj {
  const params = [b.pathParam('scope', 'State scope'), b.pathParam('kind', 'State kind')];
  const declaration = b.ref('StateDeclaration');
  return {
    '/api/states/declarations': {
      get: b.op(
        'reader',
        'Every declared state, by scope and kind',
        {
          '200': b.answer('Declarations', { type: 'object', required: ['declarations'], properties: { declarations: { type: 'array', items: declaration } } }),
        },
        { tags: ['states'], operationId: 'listStateDeclarations' },
      ),
    },
    '/api/states/declarations/{scope}/{kind}': {
      parameters: params,
      get: b.op(
        'reader',
        'One declared state, with the hooks that bind it',
        { '200': b.answer('The declaration and its bindings (bound_by)', declaration), ...b.fail(400, 404) },
        { tags: ['states'], operationId: 'getStateDeclaration' },
      ),
      put: b.op(
        'admin',
        'Declare a state, or change its schema, description or templates',
        {
          '200': b.answer('Changed', {
            type: 'object',
            required: ['created', 'declaration', 'reattached'],
            properties: { created: { type: 'boolean' }, declaration, reattached: { type: 'array', items: name } },
          }),
          '201': b.answer('Declared', {
            type: 'object',
            required: ['created', 'declaration', 'reattached'],
            properties: { created: { type: 'boolean' }, declaration, reattached: { type: 'array', items: name } },
          }),
          ...b.fail(400, 409),
        },
        {
          tags: ['states'],
          operationId: 'putStateDeclaration',
          description:
            'Needs the admin role. The schema is compiled as draft 2020-12 (400 quoting ajv when it does not compile); each template is a jq field that must compile. ' +
            'A change re-attaches the templates to the hooks that name them (subject.templates), each as a new hook revision, named in `reattached` and the audit entry. ' +
            'Later writes are validated against the new schema; kept documents are not rewritten.',
          requestBody: b.body(b.ref('StateDeclarationInput')),
        },
      ),
      delete: b.op(
        'admin',
        'Remove a declared state (refused while a hook binds it)',
        {
          '200': b.answer('Removed', { type: 'object', required: ['removed', 'declaration'], properties: { removed: { type: 'boolean' }, declaration } }),
          ...b.fail(400, 404, 409),
        },
        {
          tags: ['states'],
          operationId: 'deleteStateDeclaration',
          description: 'Needs the admin role. 409 names the hooks that bind it; kept documents stay.',
        },
      ),
    },
  };
}
