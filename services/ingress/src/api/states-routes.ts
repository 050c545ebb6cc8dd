import type { Router } from 'express';
import { notFound, type StateWriteInput, type SubjectKey } from '@hookyard/core';
import { callerOf } from './auth';
import { deleteState, getState, listStates, putState } from '@hookyard/api';
import { mount } from './declare';
import type { ApiContext } from './context';

export const STATE_LIST_DEFAULT_LIMIT = 50;

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
      // Checked by the declaration: scope and kind required names, limit, no other parameter.
      const { scope, kind, limit, cursor } = req.checked.query;
      const page = await ctx.stores.states.list(scope, kind, limit ?? STATE_LIST_DEFAULT_LIMIT, cursor ?? null);
      res.json({ states: page.states, next_cursor: page.nextCursor });
    },
    opts,
  );

  mount(
    router,
    getState,
    async (req, res) => {
      const subject: SubjectKey = req.checked.params;
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
      // The path and the body {document, if_version?} checked by the declaration.
      const subject: SubjectKey = req.checked.params;
      const { document, if_version: ifVersion } = req.checked.body;
      const kept = await ctx.stores.states.set(subject, document, by(res, ifVersion ?? null));
      ctx.logger.info({ ...subject, version: kept.version, by: callerOf(res) }, 'state written by an operator');
      res.status(kept.version === 1 ? 201 : 200).json(kept);
    },
    opts,
  );

  mount(
    router,
    deleteState,
    async (req, res) => {
      // The path and the query (if_version?) checked by the declaration.
      const subject: SubjectKey = req.checked.params;
      const removed = await ctx.stores.states.remove(subject, by(res, req.checked.query.if_version ?? null));
      if (!removed) throw notFound(`subject ${subject.scope}/${subject.kind}/${JSON.stringify(subject.key)} has no state`);
      ctx.logger.info({ ...subject, version: removed.version, by: callerOf(res) }, 'state deleted by an operator');
      res.json({ deleted: true, ...subject, version: removed.version });
    },
    opts,
  );
}
