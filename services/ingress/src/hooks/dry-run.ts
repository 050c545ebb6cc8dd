import {
  PARKED_MAX,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  allows,
  assignOwn,
  badInput,
  cancelIds,
  extrasOf,
  resumeAct,
  shownOutput,
  shownOutputs,
  toHookyardError,
  type DoorAct,
  type ErrorInfo,
  type Hook,
  type Interaction,
  type JqField,
  type JqTemplate,
  type SubjectKey,
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
  /** The open interactions on a subject, oldest first (InteractionStore.openOnSubject). */
  openOnSubject(subject: SubjectKey, limit: number): Promise<Interaction[]>;
  /** The subject's state document, or null (StateStore.get). */
  stateOf(subject: SubjectKey): Promise<unknown>;
}

/** What a run of this hook over this payload would do, step by step. Nothing is kept or called. */
export interface DryRunReport {
  hook: string;
  tool: string;
  /**
   * What the run would do: skip (condition false, or start_expr null), act on
   * interactions (cancel / resume / take, no tool call), start the tool, be
   * denied, park for an approval, be refused by the allowlist, or fail.
   */
  outcome: 'skipped' | 'act' | 'start' | 'denied' | 'approval' | 'refused' | 'error';
  subject: SubjectKey | null;
  /** The $parked every expression (but subject.key_expr, which sees []) saw. */
  parked: Interaction[];
  /** The $state every expression (but subject.key_expr, which sees null) saw. */
  state: unknown;
  condition: { present: boolean; output: unknown[]; matched: boolean } | null;
  /** Outputs of the door contract's expressions (null when the hook has none). */
  cancel: unknown[] | null;
  resume: unknown[] | null;
  /** What the door contract would do to open interactions (null: nothing, the tool is next). */
  act: DoorAct | null;
  kwargs: Record<string, unknown> | null;
  /** The tool's extras; with an act, the extras handed on to the interactions acted on. */
  extras: Record<string, unknown> | null;
  allowlist: { allowed: boolean; list: string } | null;
  approval: ApprovalDecision | null;
  /** The first step that failed, with its kind (what the run would retry or fail with). */
  error: (ErrorInfo & { step: string }) | null;
  /** What looks like a mistake though the run would go on: a condition whose output is not one boolean. */
  warnings: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Evaluates a hook over a payload in the executor's order (subject, $parked,
 * condition, door contract, start_expr under the static kwargs, extras,
 * allowlist, approval policy) with the executor's rules for each output, and
 * reports every step. The first step that fails ends the report with its
 * error and kind; later steps stay null.
 */
export async function dryRun(hook: Hook, payload: unknown, deps: DryRunDeps): Promise<DryRunReport> {
  const report: DryRunReport = {
    hook: hook.name,
    tool: hook.tool,
    outcome: 'error',
    subject: null,
    parked: [],
    state: null,
    condition: null,
    cancel: null,
    resume: null,
    act: null,
    kwargs: null,
    extras: null,
    allowlist: null,
    approval: null,
    error: null,
    warnings: [],
  };
  let step = 'subject.key_expr';
  const run = async (field: JqField, name: string, parked: unknown[]): Promise<unknown[]> => {
    step = name;
    const { expr, vars } = await resolveJqField(field, deps.getTemplate);
    // subject.key_expr sees $parked [] and $state null: it decides what they are.
    const state = name === 'subject.key_expr' ? null : report.state;
    try {
      return await deps.jq.run(expr, payload, { vars: { ...vars, parked, state }, timeoutMs: deps.jqTimeoutMs });
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind === 'bad_input') throw badInput(`hook '${hook.name}' ${name}: ${e.message}`);
      throw e;
    }
  };
  const extrasExpr = async (): Promise<Record<string, unknown> | null> => {
    if (!hook.extras_expr) return null;
    const out = await run(hook.extras_expr, 'extras_expr', report.parked);
    return extrasOf(hook.name, out);
  };
  try {
    if (hook.subject) {
      // The key decides what $parked is, so it sees [].
      const out = await run(hook.subject.key_expr, 'subject.key_expr', []);
      const key = out[0];
      if (out.length !== 1 || typeof key !== 'string' || key === '') {
        throw badInput(`hook '${hook.name}' subject.key_expr must yield one non-empty string, got ${shownOutputs(out)}`);
      }
      report.subject = { scope: hook.subject.scope, kind: hook.subject.kind, key };
      step = '$parked';
      report.parked = await deps.openOnSubject(report.subject, PARKED_MAX);
      step = '$state';
      report.state = await deps.stateOf(report.subject);
    }
    if (hook.condition) {
      const output = await run(hook.condition, 'condition', report.parked);
      report.condition = { present: true, output, matched: isTruthyOutput(output) };
      const warning = conditionWarning(output);
      if (warning) report.warnings.push(warning);
      if (!report.condition.matched) {
        report.outcome = 'skipped';
        return report;
      }
    } else report.condition = { present: false, output: [], matched: true };

    let cancel: string[] = [];
    if (hook.cancel_expr) {
      report.cancel = await run(hook.cancel_expr, 'cancel_expr', report.parked);
      cancel = cancelIds(hook.name, report.cancel);
    }
    let resume: DoorAct | null = null;
    if (hook.resume_expr) {
      report.resume = await run(hook.resume_expr, 'resume_expr', report.parked);
      resume = resumeAct(hook.name, report.resume);
    }
    if (cancel.length > 0 && resume) {
      step = 'door contract';
      throw badInput(`hook '${hook.name}' cancel_expr and resume_expr both yielded interactions; a run acts on interactions once (cancel or resume or take)`);
    }
    report.act = cancel.length > 0 ? { verb: 'cancel', ids: cancel } : resume;
    if (report.act) {
      report.extras = await extrasExpr();
      report.outcome = 'act';
      return report;
    }

    let kwargs: Record<string, unknown> = { ...hook.tool_kwargs };
    if (hook.start_expr) {
      const out = await run(hook.start_expr, 'start_expr', report.parked);
      const first = out[0];
      if (first === null) {
        report.outcome = 'skipped';
        return report;
      }
      if (!isObject(first)) throw badInput(`hook '${hook.name}' start_expr must yield an object or null, got ${shownOutput(out)}`);
      kwargs = { ...first, ...hook.tool_kwargs };
    }
    report.kwargs = kwargs;
    const extras: Record<string, unknown> = {};
    const own = await extrasExpr();
    if (own) assignOwn(extras, own);
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
    report.approval = await deps.gate.decide(
      { tool: hook.tool, args: kwargs, hook: hook.name, topic: hook.topic, subject: report.subject },
      hook.approval ?? [],
    );
    report.outcome = report.approval.action === 'allow' ? 'start' : report.approval.action === 'deny' ? 'denied' : 'approval';
    return report;
  } catch (err) {
    const e = toHookyardError(err);
    report.outcome = 'error';
    report.error = { step, kind: e.kind, message: e.message };
    return report;
  }
}

/**
 * A condition should yield one boolean. Anything else still decides (the first
 * output counts unless it is false or null), which is rarely what was meant:
 * `.action` is true for every event that has one.
 */
function conditionWarning(output: unknown[]): string | undefined {
  if (output.length === 1 && typeof output[0] === 'boolean') return undefined;
  const decides = `the hook fires when the first output is anything but false or null (here it ${isTruthyOutput(output) ? 'would' : 'would not'})`;
  if (output.length === 0) return 'condition yielded no output, not a boolean: counted as false, so the hook would not fire; compare to get true or false';
  if (output.length > 1) return `condition yielded ${output.length} outputs, not one boolean: ${decides}; wrap it in any(...) or all(...)`;
  const shown = shownOutput(output);
  return `condition yielded ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}, not a boolean: ${decides}; compare (==, !=, <, >) to get true or false`;
}
