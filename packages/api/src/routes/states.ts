import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Created } from '../shared';
import { WholeNumber } from './runs-shared';
import { IfVersion, PlainName, RequestName, StateDeclaration, StateDeclarationInput, StateDeleted, StateInput, StatePage, StateRecord } from './agents-shared';

const Subject = Type.Object({
  scope: RequestName('Subject scope'),
  kind: RequestName('Subject kind'),
  key: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'Subject key (URL-encoded: it may hold / and #)',
    'x-error': 'key must be 1 to 512 characters, got {length}',
  }),
});
const DeclarationName = Type.Object({ scope: RequestName('State scope'), kind: RequestName('State kind') });
const Reattached = (created: boolean) => Type.Object({ created: Created(created), declaration: StateDeclaration, reattached: Type.Array(PlainName()) });

export const listStates = route({
  method: 'GET',
  path: '/states',
  role: 'reader',
  operationId: 'listStates',
  tag: 'states',
  summary: 'List the subjects of one scope and kind that have state, by key, with a cursor',
  query: Type.Object(
    {
      scope: RequestName(),
      kind: RequestName(),
      limit: Type.Optional(WholeNumber(500, 50)),
      cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
    },
    { additionalProperties: false, 'x-error': { required: '{field} is required (states are listed per scope and kind)' } },
  ),
  knownInRefusal: true,
  refused: 'state list query refused',
  answers: { 200: answer('A page of subjects (no documents)', StatePage) },
  errors: [400],
});

// The declarations before the subject routes, which would read `declarations` as a scope.
export const listStateDeclarations = route({
  method: 'GET',
  path: '/states/declarations',
  role: 'reader',
  operationId: 'listStateDeclarations',
  tag: 'states',
  summary: 'Every declared state, by scope and kind',
  answers: { 200: answer('Declarations', Type.Object({ declarations: Type.Array(StateDeclaration) })) },
});

export const getStateDeclaration = route({
  method: 'GET',
  path: '/states/declarations/:scope/:kind',
  role: 'reader',
  operationId: 'getStateDeclaration',
  tag: 'states',
  summary: 'One declared state, with the hooks that bind it',
  params: DeclarationName,
  refused: 'state declaration refused',
  answers: { 200: answer('The declaration and its bindings (bound_by)', StateDeclaration) },
  errors: [400, 404],
});

export const putStateDeclaration = route({
  method: 'PUT',
  path: '/states/declarations/:scope/:kind',
  role: 'admin',
  // The body's schema compiles and its templates' jq compile, checked with its shape in one answer (one line per miss).
  handlerChecks: ['body'],
  operationId: 'putStateDeclaration',
  tag: 'states',
  summary: 'Declare a state, or change its schema, description or templates',
  description:
    'The schema is compiled as draft 2020-12 (400 quoting ajv when it does not compile); each template is a jq field that must compile. ' +
    'A change re-attaches the templates to the hooks that name them (subject.templates), each as a new hook revision, named in `reattached` and the audit entry. ' +
    'Later writes are validated against the new schema; kept documents are not rewritten.',
  params: DeclarationName,
  refused: 'state declaration refused',
  body: StateDeclarationInput,
  answers: { 200: answer('Changed', Reattached(false)), 201: answer('Declared', Reattached(true)) },
  errors: [400, 409],
  audit: 'state_declaration.put',
});

export const deleteStateDeclaration = route({
  method: 'DELETE',
  path: '/states/declarations/:scope/:kind',
  role: 'admin',
  operationId: 'deleteStateDeclaration',
  tag: 'states',
  summary: 'Remove a declared state (refused while a hook binds it)',
  description: '409 names the hooks that bind it; kept documents stay.',
  params: DeclarationName,
  refused: 'state declaration refused',
  answers: { 200: answer('Removed', Type.Object({ removed: Type.Unsafe<true>({ type: 'boolean', enum: [true] }), declaration: StateDeclaration })) },
  errors: [400, 404, 409],
  audit: 'state_declaration.remove',
});

export const getState = route({
  method: 'GET',
  path: '/states/:scope/:kind/:key',
  role: 'reader',
  operationId: 'getState',
  tag: 'states',
  summary: "A subject's state: document, version and write history",
  params: Subject,
  refused: 'subject refused',
  answers: { 200: answer('The state', StateRecord) },
  errors: [400, 404],
});

export const putState = route({
  method: 'PUT',
  path: '/states/:scope/:kind/:key',
  role: 'operator',
  operationId: 'putState',
  tag: 'states',
  summary: "Replace a subject's state document (door api)",
  description:
    'The write is attributed to door `api` and the token (`<role>:<label>`). With `if_version`, applies only on that version (0: none yet), ' +
    'else 409 naming the kept version. A document larger than HOOKS_STATE_MAX_BYTES is 400 naming the setting (a body past HOOKS_API_BODY_MAX_BYTES is 413).',
  params: Subject,
  paramsRefused: 'subject refused',
  body: StateInput,
  knownInRefusal: true,
  refused: 'state refused',
  answers: { 200: answer('Replaced', StateRecord), 201: answer('Created (version 1)', StateRecord) },
  errors: [400, 409],
  audit: 'state.put',
});

export const deleteState = route({
  method: 'DELETE',
  path: '/states/:scope/:kind/:key',
  role: 'operator',
  operationId: 'deleteState',
  tag: 'states',
  summary: "Delete a subject's state and its history",
  params: Subject,
  paramsRefused: 'subject refused',
  query: Type.Object({ if_version: Type.Optional(IfVersion('Deletes only on that version, else 409')) }, { additionalProperties: false }),
  knownInRefusal: true,
  refused: 'state delete refused',
  answers: { 200: answer('Deleted', StateDeleted) },
  errors: [400, 404, 409],
  audit: 'state.remove',
});

export const STATE_ROUTES = [
  listStates,
  listStateDeclarations,
  getStateDeclaration,
  putStateDeclaration,
  deleteStateDeclaration,
  getState,
  putState,
  deleteState,
] as const;
