import type { Router } from 'express';
import { INTERACTION_ID_PATTERN, badInput, notFound } from '@hookyard/core';
import { answerApproval, type ApprovalVerdict } from '../approvals/answer';
import { callerOf, requireRole } from './auth';
import type { ApiContext } from './context';

/**
 * `POST /api/interactions/{id}/approve` and `/deny` (operator): answers an
 * open approval once, body `{reason?}`. The parked run is woken (published;
 * the sweep covers a lost publish) and re-checks its arguments against the
 * approved hash before it calls the tool. A second answer is 409 naming who
 * answered first.
 */
export function answerRoutes(router: Router, ctx: ApiContext): void {
  for (const verdict of ['approve', 'deny'] as const satisfies readonly ApprovalVerdict[]) {
    router.post(`/interactions/:id/${verdict}`, requireRole('operator'), async (req, res) => {
      const id = req.params.id as string;
      const body = (req.body ?? {}) as unknown;
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw badInput(`${verdict} refused`, ['the body must be a JSON object {"reason"?: "..."}']);
      const b = body as Record<string, unknown>;
      const lines = Object.keys(b)
        .filter((k) => k !== 'reason')
        .map((k) => `unknown field '${k}'`);
      if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > 1000)) lines.push('reason must be a string of at most 1000 characters');
      if (lines.length) throw badInput(`${verdict} refused`, lines);
      if (!INTERACTION_ID_PATTERN.test(id)) throw notFound(`interaction ${JSON.stringify(id.slice(0, 64))} not found`);
      const out = await answerApproval(ctx, id, verdict, { by: callerOf(res), via: 'api', reason: (b.reason as string | undefined) ?? '' });
      res.json(out);
    });
  }
}
