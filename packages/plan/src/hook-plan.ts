import {
  PARKED_MAX,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  TOOL_EXTRA_SUBJECT,
  idempotencyKeyOf,
  assignOwn,
  badInput,
  cancelIds,
  extrasOf,
  resumeAct,
  shownOutput,
  shownOutputs,
  toHookyardError,
} from '@hookyard/core';
import type { DoorAct, Hook, Interaction, JqField, JqTemplate, Run, StateStore, SubjectKey } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import { isTruthyOutput, resolveJqField } from '@hookyard/jq';

/**
 * What a hook asks of one run: skip it (condition false, or `start_expr`
 * yielded null), act on interactions (`cancel_expr` / `resume_expr`, with
 * `extras_expr` handed on to them), or call its tool.
 */
export type HookPlan =
  | { skip: true; result: unknown }
  | { skip: false; act: DoorAct; handOn: Record<string, unknown> | null; subject: SubjectKey | null }
  | { skip: false; act: null; kwargs: Record<string, unknown>; extras: Record<string, unknown>; subject: SubjectKey | null };

/** The run a plan is made for: its payload, and its id (the tool call's idempotency key). */
export type PlanRun = Pick<Run, 'id' | 'payload'>;

/** What a plan reads: stored jq templates, the open interactions and the state of a subject (narrow slices of the stores). */
export interface PlanDeps {
  jq: JqEngine;
  hooks: { getTemplate(id: string): Promise<JqTemplate | null> };
  interactions: { openOnSubject(subject: SubjectKey, limit: number): Promise<Interaction[]> };
  states: Pick<StateStore, 'get'>;
  jqTimeoutMs: number;
}

/** What every expression but subject.key_expr sees besides the payload: `$parked` and `$state`. */
export interface HookContext {
  parked: unknown[];
  /** The subject's state document, or null (no subject, or no document yet). */
  state: unknown;
}

/**
 * What a dry run shows of a plan as it is made: the step under way (the one
 * that failed when `plan` throws), what `$parked` and `$state` were, and each
 * expression's raw output. A run passes none: nothing is recorded or built.
 */
export interface PlanTrace {
  step: string;
  subject: SubjectKey | null;
  parked: unknown[];
  state: unknown;
  condition: unknown[] | null;
  cancel: unknown[] | null;
  resume: unknown[] | null;
  /** The door contract's act, once read (before `extras_expr` is evaluated for it). */
  act: DoorAct | null;
  /** The tool's arguments, once made (before its extras are evaluated). */
  kwargs: Record<string, unknown> | null;
}

export const newTrace = (): PlanTrace => ({
  step: 'subject.key_expr',
  subject: null,
  parked: [],
  state: null,
  condition: null,
  cancel: null,
  resume: null,
  act: null,
  kwargs: null,
});

const EMPTY: HookContext = { parked: [], state: null };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Evaluates a hook's jq fields over a run's payload: the one hook plan, made
 * by the executor for a run and by the ingress's dry run for a preview, so
 * the two cannot disagree. Everything here happens before the hook acts, so
 * a failure that can pass is retried by the caller.
 * `$parked` is bound in every expression to the open interactions on the
 * hook's subject (same scope, kind and key) when it has one, else `[]`;
 * `$state` to the subject's state document, else null. Both are read once per
 * attempt (a store failure there is retryable: nothing acted yet).
 */
export class HookEvaluator {
  constructor(private readonly deps: PlanDeps) {}

  private async run(field: JqField, name: string, hook: Hook, payload: unknown, seen: HookContext, trace?: PlanTrace): Promise<unknown[]> {
    if (trace) trace.step = name;
    const { expr, vars } = await resolveJqField(field, (id) => this.deps.hooks.getTemplate(id));
    try {
      return await this.deps.jq.run(expr, payload, { vars: { ...vars, parked: seen.parked, state: seen.state }, timeoutMs: this.deps.jqTimeoutMs });
    } catch (err) {
      const e = toHookyardError(err);
      // A jq error over this payload raises again on every attempt: bad input, named by field.
      if (e.kind === 'bad_input') throw badInput(`hook '${hook.name}' ${name}: ${e.message}`);
      throw e;
    }
  }

  /** The hook's subject rendered over the payload (its key_expr sees `$parked` [] and `$state` null: it decides what they are). */
  async subject(hook: Hook, run: PlanRun, trace?: PlanTrace): Promise<SubjectKey | null> {
    if (!hook.subject) return null;
    const out = await this.run(hook.subject.key_expr, 'subject.key_expr', hook, run.payload, EMPTY, trace);
    const key = out[0];
    if (out.length !== 1 || typeof key !== 'string' || key === '') {
      throw badInput(`hook '${hook.name}' subject.key_expr must yield one non-empty string, got ${shownOutputs(out)}`);
    }
    return { scope: hook.subject.scope, kind: hook.subject.kind, key };
  }

  /** `$parked`: the open interactions on the subject, oldest first. */
  async parked(subject: SubjectKey | null): Promise<Interaction[]> {
    return subject ? this.deps.interactions.openOnSubject(subject, PARKED_MAX) : [];
  }

  /** `$parked` and `$state` of one attempt, read once (the state-context render). */
  async context(subject: SubjectKey | null, trace?: PlanTrace): Promise<HookContext> {
    if (!subject) return EMPTY;
    if (trace) return this.tracedContext(subject, trace);
    const [parked, kept] = await Promise.all([this.parked(subject), this.deps.states.get(subject)]);
    return { parked, state: kept?.document ?? null };
  }

  /** The same reads one after the other, so a failure names its step. */
  private async tracedContext(subject: SubjectKey, trace: PlanTrace): Promise<HookContext> {
    trace.subject = subject;
    trace.step = '$parked';
    trace.parked = await this.parked(subject);
    trace.step = '$state';
    trace.state = (await this.deps.states.get(subject))?.document ?? null;
    return { parked: trace.parked, state: trace.state };
  }

  /** The whole plan of a fresh start: subject, `$parked`, condition, door contract, arguments, extras. */
  async plan(hook: Hook, run: PlanRun, trace?: PlanTrace): Promise<HookPlan> {
    const subject = await this.subject(hook, run, trace);
    const seen = await this.context(subject, trace);
    if (hook.condition) {
      const out = await this.run(hook.condition, 'condition', hook, run.payload, seen, trace);
      if (trace) trace.condition = out;
      if (!isTruthyOutput(out)) return { skip: true, result: { condition: false } };
    }
    let cancel: string[] = [];
    if (hook.cancel_expr) {
      const out = await this.run(hook.cancel_expr, 'cancel_expr', hook, run.payload, seen, trace);
      if (trace) trace.cancel = out;
      cancel = cancelIds(hook.name, out);
    }
    let resume: DoorAct | null = null;
    if (hook.resume_expr) {
      const out = await this.run(hook.resume_expr, 'resume_expr', hook, run.payload, seen, trace);
      if (trace) trace.resume = out;
      resume = resumeAct(hook.name, out);
    }
    if (cancel.length > 0 && resume) {
      if (trace) trace.step = 'door contract';
      throw badInput(`hook '${hook.name}' cancel_expr and resume_expr both yielded interactions; a run acts on interactions once (cancel or resume or take)`);
    }
    const act: DoorAct | null = cancel.length > 0 ? { verb: 'cancel', ids: cancel } : resume;
    if (trace) trace.act = act;
    if (act) return { skip: false, act, handOn: await this.extrasExpr(hook, run, seen, trace), subject };

    let kwargs: Record<string, unknown> = { ...hook.tool_kwargs };
    if (hook.start_expr) {
      const out = await this.run(hook.start_expr, 'start_expr', hook, run.payload, seen, trace);
      const first = out[0];
      if (first === null) return { skip: true, result: { start: null } };
      if (!isObject(first)) throw badInput(`hook '${hook.name}' start_expr must yield an object or null, got ${shownOutput(out)}`);
      // The static tool_kwargs win on a clash: the registrant's word beats the payload's.
      kwargs = { ...first, ...hook.tool_kwargs };
    }
    if (trace) trace.kwargs = kwargs;
    return { skip: false, act: null, kwargs, extras: await this.extras(hook, run, subject, seen, trace), subject };
  }

  private async extrasExpr(hook: Hook, run: PlanRun, seen: HookContext, trace?: PlanTrace): Promise<Record<string, unknown> | null> {
    if (!hook.extras_expr) return null;
    const out = await this.run(hook.extras_expr, 'extras_expr', hook, run.payload, seen, trace);
    return extrasOf(hook.name, out);
  }

  /**
   * Extras of this run's own tool call: extras_expr, the subject, and the
   * idempotency key (the run id, stable across attempts and replays). A
   * replayed start computes them again (`$parked` and `$state` read anew).
   */
  async extras(hook: Hook, run: PlanRun, subject?: SubjectKey | null, seen?: HookContext, trace?: PlanTrace): Promise<Record<string, unknown>> {
    const subj = subject === undefined ? await this.subject(hook, run) : subject;
    const extras: Record<string, unknown> = {};
    const own = await this.extrasExpr(hook, run, seen ?? (hook.extras_expr ? await this.context(subj) : EMPTY), trace);
    if (own) assignOwn(extras, own);
    if (subj) extras[TOOL_EXTRA_SUBJECT] = subj;
    extras[TOOL_EXTRA_IDEMPOTENCY_KEY] = idempotencyKeyOf(run);
    return extras;
  }
}
