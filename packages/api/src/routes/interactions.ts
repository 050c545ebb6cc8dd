import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import {
  ApprovalAnswer,
  ApprovalAnswerInput,
  Enum,
  INTERACTION_KIND_VALUES,
  INTERACTION_STATUS_VALUES,
  Interaction,
  InteractionPage,
} from './approvals-shared';
import { WholeNumber } from './runs-shared';

/** A run id (a parked run): 22 base36 chars, or 26 with a partition suffix. */
const RUN_ID_PATTERN_SOURCE = '^[0-9a-z]{22}(?:[0-9a-z]{4})?$';

/** An interaction id: 10 base36 chars of time, 128 random bits in hex, 2 base36 chars of partition. */
export const INTERACTION_ID_PATTERN_SOURCE = '^[0-9a-z]{10}[0-9a-f]{32}[0-9a-z]{2}$';

const InteractionId = (description: string) => Type.Object({ id: Type.String({ description, pattern: INTERACTION_ID_PATTERN_SOURCE }) });
// A malformed id cannot name an interaction: 404 without asking the store.
const noInteraction = (p: Record<string, string>) => `no interaction ${JSON.stringify(p.id)}`;

export const listInteractions = route({
  method: 'GET',
  path: '/interactions',
  role: 'reader',
  operationId: 'listInteractions',
  tag: 'interactions',
  summary: 'List interactions (what parked runs wait on), newest first, with filters and a cursor',
  query: Type.Object(
    {
      status: Type.Optional(Enum(INTERACTION_STATUS_VALUES, { 'x-error': { '*': `status must be one of ${INTERACTION_STATUS_VALUES.join('|')}, got {got}` } })),
      kind: Type.Optional(Enum(INTERACTION_KIND_VALUES, { 'x-error': { '*': `kind must be one of ${INTERACTION_KIND_VALUES.join('|')}, got {got}` } })),
      run: Type.Optional(Type.String({ description: 'The parked run', pattern: RUN_ID_PATTERN_SOURCE, 'x-error': { '*': 'run must be a run id, got {got}' } })),
      hook: Type.Optional(
        Type.String({
          description: "The parked run's hook",
          pattern: '^[a-z0-9][a-z0-9_-]*$',
          maxLength: 128,
          'x-error': { '*': 'hook must match ^[a-z0-9][a-z0-9_-]*$, got {got}' },
        }),
      ),
      limit: Type.Optional(WholeNumber(500, 50)),
      cursor: Type.Optional(
        Type.String({
          description: 'next_cursor of the previous page',
          pattern: INTERACTION_ID_PATTERN_SOURCE,
          'x-error': { '*': 'cursor must be the next_cursor of a previous page, got {got}' },
        }),
      ),
    },
    { additionalProperties: false },
  ),
  knownInRefusal: true,
  refused: 'bad interaction list query',
  answers: { 200: answer('A page of interactions', InteractionPage) },
  errors: [400],
});

export const getInteraction = route({
  method: 'GET',
  path: '/interactions/:id',
  role: 'reader',
  operationId: 'getInteraction',
  tag: 'interactions',
  summary: 'One interaction: its run, tool, args hash, expiry, status, resolution and kept outcome',
  description:
    'An open approval read by an operator or admin carries fresh signed `links` issued to its token, recorded in the audit trail (`interaction.links_issued`) before they are answered; a reader gets no `links` field.',
  params: InteractionId('Interaction id (128 random bits)'),
  paramsMiss: noInteraction,
  answers: { 200: answer('The interaction', Interaction) },
  errors: [404],
});

export const cancelInteraction = route({
  method: 'POST',
  path: '/interactions/:id/cancel',
  role: 'operator',
  operationId: 'cancelInteraction',
  tag: 'interactions',
  summary: 'Cancel an open interaction; its parked run ends cancelled',
  description: 'Body `{reason?}` (optional). An interaction already resolved is 409 naming who resolved it and how.',
  params: InteractionId('Interaction id'),
  paramsMiss: noInteraction,
  body: ApprovalAnswerInput,
  bodyOptional: true,
  knownInRefusal: true,
  refused: 'bad interaction answer',
  answers: { 200: answer('The interaction, cancelled', Interaction) },
  errors: [400, 404, 409],
  audit: 'interaction.cancel',
});

const verdictRoute = <V extends 'approve' | 'deny'>(verdict: V) => ({
  method: 'POST' as const,
  path: `/interactions/:id/${verdict}` as const,
  role: 'operator' as const,
  tag: 'approvals',
  params: Type.Object({ id: Type.String({ description: 'Interaction id (an approval)', pattern: INTERACTION_ID_PATTERN_SOURCE }) }),
  // A malformed id cannot name an interaction.
  paramsMiss: (p: Record<string, string>) => `interaction ${JSON.stringify((p.id ?? '').slice(0, 64))} not found`,
  body: ApprovalAnswerInput,
  bodyOptional: true,
  knownInRefusal: true,
  refused: `${verdict} refused`,
  errors: [400, 404, 409],
  audit: `interaction.${verdict}` as const,
});

export const approveInteraction = route({
  ...verdictRoute('approve'),
  operationId: 'approveInteraction',
  summary: 'Approve an open approval: its parked run calls the tool once',
  description:
    "Body `{reason?}`. The woken run hashes its arguments again: if they no longer equal the approval's args_hash " +
    "(the hook or a template changed) the run ends `denied` saying why; otherwise the tool is called once with the run's idempotency key. " +
    '409 when already answered (naming who answered first), when past its expiry, or when the interaction is not an approval.',
  answers: { 200: answer('The interaction, approved, and its woken run', ApprovalAnswer) },
});

export const denyInteraction = route({
  ...verdictRoute('deny'),
  operationId: 'denyInteraction',
  summary: 'Deny an open approval: its parked run ends denied, the tool never called',
  description: "Body `{reason?}`; the run's result names who denied it, how, and the reason. 409 as for approve.",
  answers: { 200: answer('The interaction, denied, and its woken run', ApprovalAnswer) },
});

export const INTERACTION_ROUTES = [listInteractions, getInteraction, cancelInteraction, approveInteraction, denyInteraction] as const;
