import { badInput, nameViolation } from '@hookyard/core';
import type { StateRecord, StateStore, StateWriteInput, SubjectKey } from '@hookyard/core';
import type { ToolCallContext } from '../types';
import type { LocalTool } from './local-repo';

/** The built-in state tools' names. */
export const STATE_TOOL_NAMES = ['state_get', 'state_set', 'state_merge', 'state_delete'] as const;

const SUBJECT_SCHEMA = {
  type: 'object',
  required: ['scope', 'kind', 'key'],
  additionalProperties: false,
  description: "The subject whose state this call reads or writes; default: the subject of the run's hook",
  properties: {
    scope: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 128 },
    kind: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 128 },
    key: { type: 'string', minLength: 1 },
  },
};
const IF_VERSION_SCHEMA = {
  type: 'integer',
  minimum: 0,
  description: 'Applies only if the kept version is this one (0: no document yet); else the call fails with kind conflict',
};

function tool(name: string, description: string, properties: Record<string, unknown>, required: string[], run: LocalTool['run']): LocalTool {
  return {
    info: {
      name,
      description,
      provider: 'local',
      parameters: { type: 'object', additionalProperties: false, required, properties: { ...properties, subject: SUBJECT_SCHEMA } },
    },
    run,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses arguments the tool does not take, naming them and the known ones. */
function checkArgs(name: string, args: Record<string, unknown>, known: readonly string[]): void {
  const extra = Object.keys(args).filter((k) => !known.includes(k));
  if (extra.length) throw badInput(`${name}: unknown argument ${extra.map((k) => `'${k}'`).join(', ')} (known: ${known.join(', ')})`);
}

/**
 * The subject of a call: its explicit `subject` argument, else the ambient
 * one (the subject the run's hook rendered). Neither is `bad_input` naming
 * the missing `subject` argument.
 */
export function callSubject(name: string, args: Record<string, unknown>, ctx: ToolCallContext): SubjectKey {
  const given = args.subject;
  if (given === undefined) {
    if (ctx.subject) return ctx.subject;
    throw badInput(`${name}: missing argument 'subject' {scope, kind, key}: hook '${ctx.hook}' declares no subject, so the call must name one`);
  }
  if (!isObject(given)) throw badInput(`${name}: subject must be an object {scope, kind, key}, got ${JSON.stringify(given)}`);
  const lines: string[] = [];
  for (const k of Object.keys(given)) if (!['scope', 'kind', 'key'].includes(k)) lines.push(`subject has unknown field '${k}'`);
  for (const f of ['scope', 'kind'] as const) {
    const bad = nameViolation(`subject.${f}`, given[f]);
    if (bad) lines.push(bad);
  }
  if (typeof given.key !== 'string' || given.key === '') lines.push(`subject.key must be a non-empty string, got ${JSON.stringify(given.key ?? null)}`);
  if (lines.length) throw badInput(`${name}: ${lines.join('; ')}`, lines);
  return { scope: given.scope as string, kind: given.kind as string, key: given.key as string };
}

function ifVersion(name: string, args: Record<string, unknown>): number | null {
  const v = args.if_version;
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badInput(`${name}: if_version must be a whole number >= 0, got ${JSON.stringify(v)}`);
  return v;
}

/** Every write of a state tool: door `hook`, the run id as actor, the hook's name. */
const attributed = (ctx: ToolCallContext, version: number | null, now: number): StateWriteInput => ({
  door: 'hook',
  actor: ctx.runId,
  hook: ctx.hook,
  ifVersion: version,
  now,
});

const answer = (r: StateRecord) => ({ subject: { scope: r.scope, kind: r.kind, key: r.key }, version: r.version, document: r.document });

/**
 * `state_get`, `state_set`, `state_merge` (JSON merge patch) and
 * `state_delete` over `states`. Inside a run whose hook declares a subject
 * they act on it; a `subject` argument names another (and is required when
 * the hook declares none). `now` is the clock writes are stamped with.
 */
export function stateTools(states: StateStore, now: () => number = Date.now): LocalTool[] {
  return [
    tool('state_get', "Reads the subject's state: {subject, version, document}; version 0 and document null when it has none.", {}, [], async (args, ctx) => {
      checkArgs('state_get', args, ['subject']);
      const subject = callSubject('state_get', args, ctx);
      const r = await states.get(subject);
      return r ? { ...answer(r), updated_at: r.updated_at } : { subject, version: 0, document: null, updated_at: null };
    }),
    tool(
      'state_set',
      "Replaces the subject's state document (a JSON object) whole; with if_version only on that version. Answers {subject, version, document}.",
      { document: { type: 'object', description: 'The new document' }, if_version: IF_VERSION_SCHEMA },
      ['document'],
      async (args, ctx) => {
        checkArgs('state_set', args, ['document', 'if_version', 'subject']);
        if (!isObject(args.document)) throw badInput(`state_set: document must be a JSON object, got ${JSON.stringify(args.document ?? null)}`);
        const subject = callSubject('state_set', args, ctx);
        return answer(await states.set(subject, args.document, attributed(ctx, ifVersion('state_set', args), now())));
      },
    ),
    tool(
      'state_merge',
      "Merges patch into the subject's state document (JSON merge patch: objects merge deeply, null removes a key, arrays replace); with if_version only on that version. Answers {subject, version, document}.",
      { patch: { type: 'object', description: 'What to merge in' }, if_version: IF_VERSION_SCHEMA },
      ['patch'],
      async (args, ctx) => {
        checkArgs('state_merge', args, ['patch', 'if_version', 'subject']);
        if (!isObject(args.patch)) throw badInput(`state_merge: patch must be a JSON object, got ${JSON.stringify(args.patch ?? null)}`);
        const subject = callSubject('state_merge', args, ctx);
        return answer(await states.merge(subject, args.patch, attributed(ctx, ifVersion('state_merge', args), now())));
      },
    ),
    tool(
      'state_delete',
      "Deletes the subject's state and its history; with if_version only on that version. Answers {subject, deleted, version}.",
      { if_version: IF_VERSION_SCHEMA },
      [],
      async (args, ctx) => {
        checkArgs('state_delete', args, ['if_version', 'subject']);
        const subject = callSubject('state_delete', args, ctx);
        const removed = await states.remove(subject, attributed(ctx, ifVersion('state_delete', args), now()));
        return { subject, deleted: removed !== null, version: removed?.version ?? 0 };
      },
    ),
  ];
}
