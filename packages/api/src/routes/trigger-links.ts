import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { IsoTime, NAME_MAX, NAME_PATTERN, Nullable, TriggerLink } from './hooks-shared';

/** Longest label a link takes (characters). */
export const TRIGGER_LABEL_MAX = 200;

const HookName = { name: Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Hook name' }) };
const hookMiss = (p: Record<string, string>) => `no hook named ${JSON.stringify(p.name)}`;

export const TriggerLinkInput = Type.Object(
  {
    label: Type.Optional(
      Type.String({
        maxLength: TRIGGER_LABEL_MAX,
        pattern: '^[^\\u0000-\\u001F\\u007F]*$',
        description: 'What the link is for (printable characters)',
        'x-error': `label must be a string of at most ${TRIGGER_LABEL_MAX} printable characters, got {got}`,
      }),
    ),
    expires_in_seconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 315360000, 'x-error': 'expires_in_seconds must be a whole number from 1 to 315360000, got {got}' }),
    ),
    expires_at: Type.Optional(
      IsoTime({
        description: 'A future time, within ten years',
        'x-error': 'expires_at must be an ISO 8601 time (e.g. 2026-12-31T23:59:59Z), got {got}',
      }),
    ),
    max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000000, 'x-error': 'max_uses must be a whole number from 1 to 1000000000, got {got}' })),
  },
  {
    $id: 'TriggerLinkInput',
    additionalProperties: false,
    not: { properties: { expires_in_seconds: {}, expires_at: {} }, required: ['expires_in_seconds', 'expires_at'] },
    'x-error': { not: 'give expires_in_seconds or expires_at, not both' },
    description: 'All optional; an unknown field or a bad value is a 400 naming it. At most one of expires_in_seconds and expires_at.',
  },
);

export const TriggerLinkCreated = Type.Object(
  {
    link: TriggerLink,
    token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: '256 random bits, base64url: shown in this answer only' }),
    path: Type.String({ description: '`/trigger/{token}`' }),
    url: Nullable(Type.String({ description: 'HOOKS_PUBLIC_URL followed by the path; null when HOOKS_PUBLIC_URL is unset' })),
  },
  { $id: 'TriggerLinkCreated' },
);

export const createTriggerLink = route({
  method: 'POST',
  path: '/hooks/:name/links',
  role: 'operator',
  operationId: 'createTriggerLink',
  tag: 'hooks',
  summary: 'Make a trigger link that fires this hook (POST /trigger/{token})',
  params: Type.Object(HookName),
  paramsMiss: hookMiss,
  body: TriggerLinkInput,
  bodyOptional: true,
  knownInRefusal: true,
  refused: 'trigger link refused',
  answers: { 201: answer('Made: the token is shown here once', TriggerLinkCreated) },
  errors: [400, 404],
  audit: 'trigger_link.create',
});

export const listTriggerLinks = route({
  method: 'GET',
  path: '/hooks/:name/links',
  role: 'reader',
  operationId: 'listTriggerLinks',
  tag: 'hooks',
  summary: "A hook's trigger links (never a token)",
  params: Type.Object(HookName),
  paramsMiss: hookMiss,
  answers: { 200: answer('Oldest first', Type.Object({ links: Type.Array(TriggerLink) })) },
  errors: [404],
});

export const revokeTriggerLink = route({
  method: 'DELETE',
  path: '/hooks/:name/links/:id',
  role: 'operator',
  operationId: 'revokeTriggerLink',
  tag: 'hooks',
  summary: 'Revoke a trigger link at once (again: no change)',
  // The id's length is checked after the hook is found (its 404 names the hook).
  params: Type.Object({ ...HookName, id: Type.String({ description: 'Trigger link id' }) }),
  paramsMiss: hookMiss,
  answers: { 200: answer('Revoked', Type.Object({ revoked: Type.Unsafe<true>({ type: 'boolean', enum: [true] }), link: TriggerLink })) },
  errors: [404],
  audit: 'trigger_link.revoke',
});

export const TRIGGER_LINK_ROUTES = [createTriggerLink, listTriggerLinks, revokeTriggerLink] as const;
