import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Created, Removed } from '../shared';
import { Dedupe, DedupeInput, NAME_MAX, NAME_PATTERN, VerifierBinding, VerifierInput } from './hooks-shared';

/*
 * A topic's configuration: its verifier binding and its dedupe key (admin
 * work to change). A topic that is not a name has neither (404); a write
 * with a bad topic is a 400 whose lines the binding's own check writes.
 */

const Topic = Type.Object({ topic: Type.String({ pattern: NAME_PATTERN, maxLength: NAME_MAX, description: 'Topic' }) });
const noVerifier = (p: Record<string, string>) => `topic ${JSON.stringify(p.topic)} has no verifier binding`;
const noDedupe = (p: Record<string, string>) => `topic ${JSON.stringify(p.topic)} has no dedupe key`;

export const getVerifier = route({
  method: 'GET',
  path: '/hooks/topics/:topic/verifier',
  role: 'reader',
  operationId: 'getVerifier',
  tag: 'verifiers',
  summary: "A topic's verifier binding (secret references only)",
  params: Topic,
  paramsMiss: noVerifier,
  answers: { 200: answer('The binding', VerifierBinding) },
  errors: [404],
});

export const putVerifier = route({
  method: 'PUT',
  path: '/hooks/topics/:topic/verifier',
  role: 'admin',
  operationId: 'putVerifier',
  tag: 'verifiers',
  summary: 'Bind or replace the verifier of a topic',
  params: Topic,
  body: VerifierInput,
  // The binding's check names misplaced settings and the kind's own rules; it reads the topic too.
  handlerChecks: ['params', 'body'],
  refused: 'verifier binding refused',
  answers: {
    200: answer('Replaced', Type.Object({ created: Created(false), verifier: VerifierBinding })),
    201: answer('Bound', Type.Object({ created: Created(true), verifier: VerifierBinding })),
  },
  errors: [400],
  audit: 'verifier.bind',
});

export const removeVerifier = route({
  method: 'DELETE',
  path: '/hooks/topics/:topic/verifier',
  role: 'admin',
  operationId: 'removeVerifier',
  tag: 'verifiers',
  summary: 'Remove the binding (the topic becomes open)',
  params: Topic,
  paramsMiss: noVerifier,
  answers: { 200: answer('Removed', Removed) },
  errors: [404],
  audit: 'verifier.unbind',
});

export const getDedupe = route({
  method: 'GET',
  path: '/hooks/topics/:topic/dedupe',
  role: 'reader',
  operationId: 'getDedupe',
  tag: 'verifiers',
  summary: "A topic's dedupe key",
  params: Topic,
  paramsMiss: noDedupe,
  answers: { 200: answer('The dedupe key', Dedupe) },
  errors: [404],
});

export const putDedupe = route({
  method: 'PUT',
  path: '/hooks/topics/:topic/dedupe',
  role: 'admin',
  operationId: 'putDedupe',
  tag: 'verifiers',
  summary: 'Set or replace the dedupe key of a topic',
  description:
    "The expression runs over {headers, query, body} of every delivery on the topic that its verifier gave no delivery id (a verifier's delivery id wins). " +
    'A non-empty string or a number is the delivery id, claimed for horizon_seconds in the same write that keeps the runs: a repeat is 200 duplicate. ' +
    'null, no output or "" keeps without dedupe; a jq error, several outputs or any other value is a 400 that keeps nothing.',
  params: Topic,
  body: DedupeInput,
  // The key's check compiles the expression and reads the topic too.
  handlerChecks: ['params', 'body'],
  refused: 'dedupe key refused',
  answers: {
    200: answer('Replaced', Type.Object({ created: Created(false), dedupe: Dedupe })),
    201: answer('Set', Type.Object({ created: Created(true), dedupe: Dedupe })),
  },
  errors: [400],
  audit: 'dedupe.bind',
});

export const removeDedupe = route({
  method: 'DELETE',
  path: '/hooks/topics/:topic/dedupe',
  role: 'admin',
  operationId: 'removeDedupe',
  tag: 'verifiers',
  summary: 'Remove the dedupe key',
  params: Topic,
  paramsMiss: noDedupe,
  answers: { 200: answer('Removed', Removed) },
  errors: [404],
  audit: 'dedupe.unbind',
});

export const TOPIC_ROUTES = [getVerifier, putVerifier, removeVerifier, getDedupe, putDedupe, removeDedupe] as const;
