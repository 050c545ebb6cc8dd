import type { Router } from 'express';
import { approveInteraction, denyInteraction } from '@hookyard/api';
import { INTERACTION_ID_PATTERN, badInput, notFound } from '@hookyard/core';
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
        const id = req.checked.params.id;
        const body = (req.body ?? {}) as unknown;
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          throw badInput(`${verdict} refused`, ['the body must be a JSON object {"reason"?: "..."}']);
        const b = body as Record<string, unknown>;
        const lines = Object.keys(b)
          .filter((k) => k !== 'reason')
          .map((k) => `unknown field '${k}'`);
        if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > 1000))
          lines.push('reason must be a string of at most 1000 characters');
        if (lines.length) throw badInput(`${verdict} refused`, lines);
        if (!INTERACTION_ID_PATTERN.test(id)) throw notFound(`interaction ${JSON.stringify(id.slice(0, 64))} not found`);
        const out = await answerApproval(ctx, id, verdict, { by: callerOf(res), via: 'api', reason: (b.reason as string | undefined) ?? '' });
        res.json(out);
      },
      opts,
    );
  }
}
