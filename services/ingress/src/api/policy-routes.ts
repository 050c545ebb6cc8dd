import type { Router } from 'express';
import { badInput, type ApprovalRule } from '@hookyard/core';
import { validateApprovalRules } from '@hookyard/tools';
import { requireRole } from './auth';
import type { ApiContext } from './context';

const BODY_FIELDS = new Set(['rules', 'version', 'updated_at']);

/**
 * `GET/PUT /api/approval-policy`: the deployment's approval rules, replaced
 * whole by a PUT (admin) and versioned. A PUT carrying `version` applies only
 * if that is still the kept version (409 otherwise), so two editors never
 * overwrite each other unseen. Every bad rule is one 400 line.
 */
export function policyRoutes(router: Router, ctx: ApiContext): void {
  router.get('/approval-policy', requireRole('reader'), async (_req, res) => {
    res.json(await ctx.stores.hooks.getApprovalPolicy());
  });

  router.put('/approval-policy', requireRole('admin'), async (req, res) => {
    const body = req.body as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badInput('approval policy refused', ['the body must be a JSON object {"rules": [...], "version"?: n}']);
    }
    const b = body as Record<string, unknown>;
    const lines: string[] = [];
    for (const key of Object.keys(b)) if (!BODY_FIELDS.has(key)) lines.push(`unknown field '${key}'`);
    const version = b.version;
    if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version) || version < 0)) {
      lines.push(`version ${JSON.stringify(version)} must be the non-negative integer version the change was made against`);
    }
    if (b.rules === undefined) lines.push('rules is required (an array of rules; [] allows every call)');
    else lines.push(...(await validateApprovalRules(b.rules, 'rules', ctx.jq)));
    if (lines.length) throw badInput('approval policy refused', lines);
    const policy = await ctx.stores.hooks.putApprovalPolicy(b.rules as ApprovalRule[], version === undefined ? null : (version as number), ctx.clock.now());
    ctx.logger.info({ version: policy.version, rules: policy.rules.length }, 'approval policy replaced');
    res.json(policy);
  });
}
