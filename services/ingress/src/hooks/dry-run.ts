import { allows, shownOutput, toHookyardError, type DoorAct, type ErrorInfo, type Hook, type Interaction, type SubjectKey } from '@hookyard/core';
import { isTruthyOutput } from '@hookyard/jq';
import { HookEvaluator, checkAct, hookAllowlist, newTrace, notAllowed, policyCall, stepOf, type ActingRun, type HookPlan, type PlanDeps } from '@hookyard/plan';
import { describeAllowlist, type ApprovalDecision, type ApprovalRepo } from '@hookyard/tools';

/** Stands for the run id a real run would have (its idempotency key). */
export const DRY_RUN_ID = '<run id>';

/**
 * The event a dry run stands for: one verified at the HTTP door, the only kind
 * that may answer an approval (the report warns when that matters).
 */
const DRY_RUN_EVENT: ActingRun = { id: DRY_RUN_ID, door: 'http', verified: true };

/**
 * What the plan reads (templates, `$parked`, `$state`, the interactions an act
 * names), the deployment's tool allowlist (settings.toolsAllow) and the approval gate.
 */
export interface DryRunDeps extends PlanDeps {
  interactions: PlanDeps['interactions'] & { get(id: string): Promise<Interaction | null> };
  toolsAllow: readonly string[];
  gate: ApprovalRepo;
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
  /**
   * What looks like a mistake though the run would go on (a condition whose
   * output is not one boolean), and what the report assumed (an act that
   * answers an approval counts only from a verified event).
   */
  warnings: string[];
}

/** What each approval step does to a run, as the dry run names it. */
const OUTCOME_OF = { call: 'start', deny: 'denied', park: 'approval' } as const;
/** The steps a plan takes before its condition: a failure there leaves the condition unread. */
const BEFORE_CONDITION = new Set(['subject.key_expr', '$parked', '$state']);

/**
 * Makes the executor's own plan (@hookyard/plan: subject, $parked, condition,
 * door contract, start_expr under the static kwargs, extras), allowlist check
 * and approval decision over a payload, and reports every step. The first
 * step that fails ends the report with its error and kind; later steps stay null.
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
  const trace = newTrace();
  /** What the plan saw up to where it ended (`done`: it finished). */
  const seen = (done: boolean) => {
    report.subject = trace.subject;
    report.parked = trace.parked as Interaction[];
    report.state = trace.state;
    if (trace.condition) {
      report.condition = { present: true, output: trace.condition, matched: isTruthyOutput(trace.condition) };
      const warning = conditionWarning(trace.condition);
      if (warning) report.warnings.push(warning);
    } else if (!hook.condition && (done || !BEFORE_CONDITION.has(trace.step))) report.condition = { present: false, output: [], matched: true };
    report.cancel = trace.cancel;
    report.resume = trace.resume;
    report.act = trace.act;
    report.kwargs = trace.kwargs;
  };
  let plan: HookPlan;
  try {
    plan = await new HookEvaluator(deps).plan(hook, { id: DRY_RUN_ID, payload }, trace);
  } catch (err) {
    seen(false);
    return failed(report, trace.step, err);
  }
  seen(true);
  if (plan.skip) {
    report.outcome = 'skipped';
    return report;
  }
  if (plan.act) {
    report.extras = plan.handOn;
    try {
      const found = await checkAct(plan.act, hook, DRY_RUN_EVENT, deps.interactions);
      for (const i of found.filter((x) => x.kind === 'approval')) report.warnings.push(answerWarning(i.id, hook.topic));
    } catch (err) {
      return failed(report, 'door contract', err);
    }
    report.outcome = 'act';
    return report;
  }
  report.extras = plan.extras;

  let step = 'allowlist';
  try {
    const list = hookAllowlist(hook, deps.toolsAllow);
    report.allowlist = { allowed: allows(list, hook.tool), list: describeAllowlist(list) };
    if (!report.allowlist.allowed) {
      failed(report, step, notAllowed(hook.tool, `hook '${hook.name}'`, list));
      report.outcome = 'refused';
      return report;
    }
    step = 'approval';
    // A hook's run on its hook's topic (a run keeps the topic its hook had), no agent.
    report.approval = await deps.gate.decide(policyCall(hook, plan.kwargs, hook.topic, plan.subject, null), hook.approval ?? []);
    report.outcome = OUTCOME_OF[stepOf(report.approval).next];
    return report;
  } catch (err) {
    return failed(report, step, err);
  }
}

function failed(report: DryRunReport, step: string, err: unknown): DryRunReport {
  const e = toHookyardError(err);
  report.outcome = 'error';
  report.error = { step, kind: e.kind, message: e.message };
  return report;
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

/** An act that answers an approval counts only from a verified event: the dry run assumed one. */
function answerWarning(id: string, topic: string): string {
  return (
    `the act answers approval ${id}, which a run does only for an event verified at the HTTP door ` +
    `(a verifier binding on topic '${topic}'); from NATS, a replay or an unverified delivery the run is refused (unauthorized)`
  );
}
