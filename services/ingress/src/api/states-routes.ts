import type { Router } from 'express';
import { badInput, nameViolation, notFound, type StateWriteInput, type SubjectKey } from '@hookyard/core';
import { callerOf } from './auth';
import { deleteState, getState, listStates, putState } from '@hookyard/api';
import { mount } from './declare';
import type { ApiContext } from './context';
import { listQueryReader } from './list-query';

export const STATE_LIST_DEFAULT_LIMIT = 50;
export const STATE_LIST_MAX_LIMIT = 500;
const LIST_KEYS: ReadonlySet<string> = new Set(['scope', 'kind', 'limit', 'cursor']);
const PUT_FIELDS = new Set(['document', 'if_version']);
const KEY_MAX_LENGTH = 512;

/** The subject a path names; every bad part is one 400 line. */
function pathSubject(params: Record<string, string | undefined>): SubjectKey {
  const lines: string[] = [];
  for (const f of ['scope', 'kind'] as const) {
    const bad = nameViolation(f, params[f]);
    if (bad) lines.push(bad);
  }
  const key = params.key ?? '';
  if (key === '' || key.length > KEY_MAX_LENGTH) lines.push(`key must be 1 to ${KEY_MAX_LENGTH} characters, got ${key.length}`);
  if (lines.length) throw badInput('subject refused', lines);
  return { scope: params.scope!, kind: params.kind!, key };
}

/** `if_version` from a body field or a query parameter: a whole number >= 0, or absent. */
function ifVersionOf(raw: unknown, lines: string[]): number | null {
  if (raw === undefined) return null;
  const n = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return n;
  lines.push(`if_version must be a whole number >= 0 (the version the change was made against; 0: no document yet), got ${JSON.stringify(raw)}`);
  return null;
}

/**
 * Subject state: list one scope and kind (cursor paged, keys ascending), read
 * a subject's document, version and write history (reader); replace or
 * delete it (operator), attributed to door `api` and the token (`<role>:<label>`).
 * `if_version` makes a write a compare-and-set: 409 naming the kept version.
 */
export function stateRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  const by = (res: Parameters<typeof callerOf>[0], ifVersion: number | null): StateWriteInput => ({
    door: 'api',
    actor: callerOf(res),
    hook: null,
    ifVersion,
    now: ctx.clock.now(),
  });

  mount(
    router,
    listStates,
    async (req, res) => {
      const { one, limit: readLimit, errors } = listQueryReader(req.query, LIST_KEYS);
      const scope = one('scope');
      const kind = one('kind');
      for (const [f, v] of [
        ['scope', scope],
        ['kind', kind],
      ] as const) {
        if (v === undefined) errors.push(`${f} is required (states are listed per scope and kind)`);
        else {
          const bad = nameViolation(f, v);
          if (bad) errors.push(bad);
        }
      }
      const limit = readLimit(STATE_LIST_DEFAULT_LIMIT, STATE_LIST_MAX_LIMIT);
      const cursor = one('cursor') ?? null;
      if (errors.length) throw badInput('state list query refused', errors);
      const page = await ctx.stores.states.list(scope!, kind!, limit, cursor);
      res.json({ states: page.states, next_cursor: page.nextCursor });
    },
    opts,
  );

  mount(
    router,
    getState,
    async (req, res) => {
      const subject = pathSubject(req.params as Record<string, string | undefined>);
      const kept = await ctx.stores.states.get(subject);
      if (!kept) throw notFound(`subject ${subject.scope}/${subject.kind}/${JSON.stringify(subject.key)} has no state`);
      res.json(kept);
    },
    opts,
  );

  mount(
    router,
    putState,
    async (req, res) => {
      const subject = pathSubject(req.params as Record<string, string | undefined>);
      const b = req.body as unknown;
      if (b === null || typeof b !== 'object' || Array.isArray(b))
        throw badInput('state refused', ['the body must be a JSON object {"document": {...}, "if_version"?: n}']);
      const body = b as Record<string, unknown>;
      const lines: string[] = [];
      for (const k of Object.keys(body)) if (!PUT_FIELDS.has(k)) lines.push(`unknown field '${k}' (known: document, if_version)`);
      const d = body.document;
      if (d === null || typeof d !== 'object' || Array.isArray(d))
        lines.push(`document is required, a JSON object, got ${d === undefined ? 'nothing' : JSON.stringify(d)}`);
      const ifVersion = ifVersionOf(body.if_version, lines);
      if (lines.length) throw badInput('state refused', lines);
      const kept = await ctx.stores.states.set(subject, d as Record<string, unknown>, by(res, ifVersion));
      ctx.logger.info({ ...subject, version: kept.version, by: callerOf(res) }, 'state written by an operator');
      res.status(kept.version === 1 ? 201 : 200).json(kept);
    },
    opts,
  );

  mount(
    router,
    deleteState,
    async (req, res) => {
      const subject = pathSubject(req.params as Record<string, string | undefined>);
      const lines: string[] = [];
      for (const k of Object.keys(req.query)) if (k !== 'if_version') lines.push(`unknown query parameter '${k}' (known: if_version)`);
      const ifVersion = ifVersionOf(req.query.if_version, lines);
      if (lines.length) throw badInput('state delete refused', lines);
      const removed = await ctx.stores.states.remove(subject, by(res, ifVersion));
      if (!removed) throw notFound(`subject ${subject.scope}/${subject.kind}/${JSON.stringify(subject.key)} has no state`);
      ctx.logger.info({ ...subject, version: removed.version, by: callerOf(res) }, 'state deleted by an operator');
      res.json({ deleted: true, ...subject, version: removed.version });
    },
    opts,
  );
}
