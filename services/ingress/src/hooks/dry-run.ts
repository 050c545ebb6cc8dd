import {
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  allows,
  badInput,
  toHookyardError,
  type ErrorInfo,
  type Hook,
  type JqField,
  type JqTemplate,
} from '@hookyard/core';
import { isTruthyOutput, resolveJqField, type JqEngine } from '@hookyard/jq';
import { describeAllowlist, resolveAllowlist, type ApprovalDecision, type ApprovalRepo } from '@hookyard/tools';

/** The extra carrying a run's rendered subject (as the executor hands it to the tool). */
const TOOL_EXTRA_SUBJECT = 'tai42/subject';
/** Stands for the run id a real run would have (its idempotency key). */
export const DRY_RUN_ID = '<run id>';

export interface DryRunDeps {
  jq: JqEngine;
  jqTimeoutMs: number;
  getTemplate(id: string): Promise<JqTemplate | null>;
  /** The deployment's tool allowlist (settings.toolsAllow). */
  toolsAllow: readonly string[];
  gate: ApprovalRepo;
  /** The open interactions a hook with a subject sees as $parked; [] until a run can park. */
  parked(subject: { scope: string; kind: string; key: string }): Promise<unknown[]>;
}

/** What a run of this hook over this payload would do, step by step. Nothing is kept or called. */
export interface DryRunReport {
  hook: string;
  tool: string;
  /** What the run would end in: skip, start the tool, be denied, park for an approval, be refused by the allowlist, or fail. */
  outcome: 'skipped' | 'start' | 'denied' | 'approval' | 'refused' | 'error';
  subject: { scope: string; kind: string; key: string } | null;
  /** The $parked every expression saw. */
  parked: unknown[];
  condition: { present: boolean; output: unknown[]; matched: boolean } | null;
  /** Outputs of the door contract's expressions (null when the hook has none). */
  cancel: unknown[] | null;
  resume: unknown[] | null;
  kwargs: Record<string, unknown> | null;
  extras: Record<string, unknown> | null;
  allowlist: { allowed: boolean; list: string } | null;
  approval: ApprovalDecision | null;
  /** The first step that failed, with its kind (what the run would retry or fail with). */
  error: (ErrorInfo & { step: string }) | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Evaluates a hook over a payload the way the executor does (subject,
 * condition, door contract, start_expr under the static kwargs, extras,
 * allowlist, approval policy) and reports every step. The first step that
 * fails ends the report with its error and kind; later steps stay null.
 */
export async function dryRun(hook: Hook, payload: unknown, deps: DryRunDeps): Promise<DryRunReport> {
  const report: DryRunReport = {
    hook: hook.name, tool: hook.tool, outcome: 'error', subject: null, parked: [], condition: null,
    cancel: null, resume: null, kwargs: null, extras: null, allowlist: null, approval: null, error: null,
  };
  let step = 'subject.key_expr';
  const run = async (field: JqField, name: string): Promise<unknown[]> => {
    step = name;
    const { expr, vars } = await resolveJqField(field, deps.getTemplate);
    try {
      return await deps.jq.run(expr, payload, { vars: { ...vars, parked: report.parked }, timeoutMs: deps.jqTimeoutMs });
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind === 'bad_input') throw badInput(`hook '${hook.name}' ${name}: ${e.message}`);
      throw e;
    }
  };
  try {
    if (hook.subject) {
      const out = await run(hook.subject.key_expr, 'subject.key_expr');
      const key = out[0];
      if (typeof key !== 'string' || key === '') {
        throw badInput(`hook '${hook.name}' subject.key_expr must yield a non-empty string, got ${out.length === 0 ? 'no output' : JSON.stringify(key)}`);
      }
      report.subject = { scope: hook.subject.scope, kind: hook.subject.kind, key };
      step = '$parked';
      report.parked = await deps.parked(report.subject);
    }
    if (hook.condition) {
      const output = await run(hook.condition, 'condition');
      report.condition = { present: true, output, matched: isTruthyOutput(output) };
      if (!report.condition.matched) {
        report.outcome = 'skipped';
        return report;
      }
    } else report.condition = { present: false, output: [], matched: true };
    if (hook.cancel_expr) report.cancel = await run(hook.cancel_expr, 'cancel_expr');
    if (hook.resume_expr) report.resume = await run(hook.resume_expr, 'resume_expr');

    let kwargs: Record<string, unknown> = { ...hook.tool_kwargs };
    if (hook.start_expr) {
      const out = await run(hook.start_expr, 'start_expr');
      const first = out[0];
      if (!isObject(first)) throw badInput(`hook '${hook.name}' start_expr must yield an object, got ${out.length === 0 ? 'no output' : JSON.stringify(first)}`);
      kwargs = { ...first, ...hook.tool_kwargs };
    }
    report.kwargs = kwargs;
    const extras: Record<string, unknown> = {};
    if (hook.extras_expr) {
      const first = (await run(hook.extras_expr, 'extras_expr'))[0];
      if (isObject(first)) Object.assign(extras, first);
      else if (first !== undefined && first !== null) throw badInput(`hook '${hook.name}' extras_expr must yield an object, got ${JSON.stringify(first)}`);
    }
    if (report.subject) extras[TOOL_EXTRA_SUBJECT] = report.subject;
    extras[TOOL_EXTRA_IDEMPOTENCY_KEY] = DRY_RUN_ID;
    report.extras = extras;

    step = 'allowlist';
    const list = resolveAllowlist(hook.tools_allow, [...deps.toolsAllow]);
    report.allowlist = { allowed: allows(list, hook.tool), list: describeAllowlist(list) };
    if (!report.allowlist.allowed) {
      report.outcome = 'refused';
      report.error = { step, kind: 'unauthorized', message: `tool '${hook.tool}' is not allowed for hook '${hook.name}' (allowlist ${report.allowlist.list})` };
      return report;
    }
    step = 'approval';
    report.approval = await deps.gate.decide({ tool: hook.tool, args: kwargs, hook: hook.name, topic: hook.topic, subject: report.subject }, hook.approval ?? []);
    report.outcome = report.approval.action === 'allow' ? 'start' : report.approval.action === 'deny' ? 'denied' : 'approval';
    return report;
  } catch (err) {
    const e = toHookyardError(err);
    report.outcome = 'error';
    report.error = { step, kind: e.kind, message: e.message };
    return report;
  }
}
