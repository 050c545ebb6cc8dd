import type { Router } from 'express';
import { approveInteraction, denyInteraction } from '@hookyard/api';
import { answerApproval } from '../approvals/answer';
import { callerOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';

/**
 * `POST /api/interactions/{id}/approve` and `/deny` (operator, declared in
 * @hookyard/api): answers an open approval once, body `{reason?}`. The parked
 * run is woken (published; the sweep covers a lost publish) and re-checks its
 * arguments against the approved hash before it calls the tool. A second
 * answer is 409 naming who answered first.
 */
export function answerRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  for (const decl of [approveInteraction, denyInteraction]) {
    const verdict = decl === approveInteraction ? 'approve' : 'deny';
    mount(
      router,
      decl,
      async (req, res) => {
        // The id and the body {reason?} checked by the declaration (a malformed id: 404).
        const id = req.checked.params.id;
        const out = await answerApproval(ctx, id, verdict, { by: callerOf(res), via: 'api', reason: req.checked.body?.reason ?? '' });
        res.json(out);
      },
      opts,
    );
  }
}
