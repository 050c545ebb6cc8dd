import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Created, Removed } from '../shared';
import { AnyObject, ApprovalDecision, ERROR_KIND_NAMES, Enum, Hook, HookInput, NAME_MAX, NAME_PATTERN, Name, Nullable } from './hooks-shared';

const HookName = Type.Object({ name: Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Hook name' }) });
const hookMiss = (p: Record<string, string>) => `no hook named ${JSON.stringify(p.name)}`;

/** POST /api/hooks/dry-run's body: the hook (a name or a record) and the payload. */
export const DryRunInput = Type.Object(
  {
    hook: Type.Unsafe<string | typeof HookInput.static>({
      description: 'A registered hook name, or a hook record (validated, not stored)',
      oneOf: [Name, HookInput],
    }),
    payload: Type.Optional(Type.Unknown({ description: 'The event payload the run would have (default {})' })),
  },
  { $id: 'DryRunInput', additionalProperties: false },
);

const SubjectKey = Type.Object({ scope: Type.String(), kind: Type.String(), key: Type.String() });

/** What a run of a hook over a payload would do, step by step. */
export const DryRun = Type.Object(
  {
    hook: Type.String(),
    tool: Type.String(),
    outcome: Enum(['skipped', 'act', 'start', 'denied', 'approval', 'refused', 'error'] as const, {
      description:
        'What the run would do: skip, act on interactions (no tool call), start the tool, be denied, park for an approval, be refused by the allowlist, fail',
    }),
    subject: Nullable(SubjectKey),
    parked: Type.Array(Type.Unknown(), { description: 'The $parked the expressions saw' }),
    state: Type.Unknown({ description: "The $state the expressions saw: the subject's state document, or null" }),
    condition: Nullable(Type.Object({ present: Type.Boolean(), output: Type.Array(Type.Unknown()), matched: Type.Boolean() })),
    cancel: Nullable(Type.Array(Type.Unknown(), { description: 'cancel_expr outputs' })),
    resume: Nullable(Type.Array(Type.Unknown(), { description: 'resume_expr outputs' })),
    act: Nullable(
      AnyObject({ description: 'What the door contract would do: {verb: cancel, ids} | {verb: resume, items: [{id, payload}]} | {verb: take, id}' }),
    ),
    kwargs: Nullable(AnyObject({ description: 'The arguments the tool would get' })),
    extras: Nullable(AnyObject({ description: 'The extras the tool would get (the idempotency key stands as "<run id>"); with an act, the extras handed on' })),
    allowlist: Nullable(Type.Object({ allowed: Type.Boolean(), list: Type.String() })),
    approval: Nullable(ApprovalDecision),
    error: Nullable(Type.Object({ step: Type.String(), kind: Enum(ERROR_KIND_NAMES), message: Type.String() })),
    warnings: Type.Array(Type.String(), {
      description: 'What looks like a mistake though the run would go on (a condition whose output is not one boolean)',
    }),
  },
  { $id: 'DryRun' },
);

export const listHooks = route({
  method: 'GET',
  path: '/hooks',
  role: 'reader',
  operationId: 'listHooks',
  tag: 'hooks',
  summary: 'List hooks',
  query: Type.Object({
    topic: Type.Optional(
      Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Only the hooks on this topic', 'x-error': `topic must match ${NAME_PATTERN}` }),
    ),
  }),
  refused: `topic must match ${NAME_PATTERN}`,
  answers: { 200: answer('Hooks', Type.Object({ hooks: Type.Array(Hook) })) },
  errors: [400],
});

export const putHook = route({
  method: 'POST',
  path: '/hooks',
  role: 'operator',
  operationId: 'putHook',
  tag: 'hooks',
  summary: 'Register or replace a hook',
  description:
    'Checks everything the hook names and answers 400 with one line per miss in `details`: an unknown tool, ' +
    "tool_kwargs against the tool's JSON Schema, references inside tool_kwargs, every jq field compiled, the allowlists.",
  body: HookInput,
  // validateHook's lines say more than a schema can (did-you-mean, the tool's own schema, jq compiled).
  handlerChecks: ['body'],
  refused: 'hook registration refused',
  answers: {
    200: answer('Replaced (moved to the new topic if it changed)', Type.Object({ created: Created(false), hook: Hook })),
    201: answer('Registered', Type.Object({ created: Created(true), hook: Hook })),
  },
  errors: [400, 404, 409],
  audit: 'hook.register',
});

export const hookSchema = route({
  method: 'GET',
  path: '/hooks/schema',
  role: 'reader',
  operationId: 'hookSchema',
  tag: 'hooks',
  summary: 'The JSON Schema of a hook record',
  description:
    'Each jq field (condition, start_expr, cancel_expr, resume_expr, extras_expr, subject.key_expr, approval[].when) carries ' +
    '`x-tai42-expression` {input, result, variables}: the document it reads, what its result is consumed as, and the variables it binds ($parked). ' +
    'This route is matched before GET /api/hooks/{name}, so a hook named `schema` is read through GET /api/hooks?topic=… instead.',
  answers: { 200: answer('A standalone JSON Schema (2020-12); every jq field carries x-tai42-expression', AnyObject()) },
});

export const dryRunHook = route({
  method: 'POST',
  path: '/hooks/dry-run',
  role: 'operator',
  operationId: 'dryRunHook',
  tag: 'hooks',
  summary: 'What a run of a hook over a payload would do (nothing kept, nothing called)',
  description:
    '`hook` is a registered hook name or a hook record (validated as a registration, not stored). Evaluates the subject, ' +
    '$parked, the condition, cancel_expr and resume_expr, start_expr under the static tool_kwargs, extras_expr, the allowlist and the approval policy ' +
    'as a run would; the first step that fails ends the report with its error and kind. No side effect.',
  body: DryRunInput,
  // A name or a record: the record's lines are a registration's (validateHook).
  handlerChecks: ['body'],
  refused: 'dry run refused',
  answers: { 200: answer('Every step of the run', DryRun) },
  errors: [400, 404],
});

export const getHook = route({
  method: 'GET',
  path: '/hooks/:name',
  role: 'reader',
  operationId: 'getHook',
  tag: 'hooks',
  summary: 'One hook',
  params: HookName,
  paramsMiss: hookMiss,
  answers: { 200: answer('The hook', Hook) },
  errors: [404],
});

export const removeHook = route({
  method: 'DELETE',
  path: '/hooks/:name',
  role: 'operator',
  operationId: 'removeHook',
  tag: 'hooks',
  summary: 'Remove a hook (its kept runs stay)',
  params: HookName,
  paramsMiss: hookMiss,
  answers: { 200: answer('Removed', Removed) },
  errors: [404],
  audit: 'hook.remove',
});

/** In the order express must match them: /hooks/schema and /hooks/dry-run before /hooks/:name. */
export const HOOK_ROUTES = [listHooks, putHook, hookSchema, dryRunHook, getHook, removeHook] as const;
