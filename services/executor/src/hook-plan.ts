import { TOOL_EXTRA_IDEMPOTENCY_KEY, assignOwn, badInput, toHookyardError } from '@hookyard/core';
import type { Hook, JqField, Run } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import { isTruthyOutput, resolveJqField } from '@hookyard/jq';
import type { HookStore } from '@hookyard/store';

/** The extra carrying the rendered subject of a hook that declares one. */
export const TOOL_EXTRA_SUBJECT = 'tai42/subject';

/** What a hook asks of one run: skip it, or call its tool with these arguments. */
export type HookPlan = { skip: true } | { skip: false; kwargs: Record<string, unknown>; extras: Record<string, unknown> };

export interface PlanDeps {
  jq: JqEngine;
  hooks: Pick<HookStore, 'getTemplate'>;
  jqTimeoutMs: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Evaluates a hook's jq fields over a run's payload. Everything here happens
 * before the hook acts, so a failure that can pass is retried by the caller.
 * `$parked` is bound (empty until parked interactions exist) so expressions
 * written against it compile and run.
 */
export class HookEvaluator {
  constructor(private readonly deps: PlanDeps) {}

  private async run(field: JqField, name: string, hook: Hook, payload: unknown): Promise<unknown[]> {
    const { expr, vars } = await resolveJqField(field, (id) => this.deps.hooks.getTemplate(id));
    try {
      return await this.deps.jq.run(expr, payload, { vars: { ...vars, parked: [] }, timeoutMs: this.deps.jqTimeoutMs });
    } catch (err) {
      const e = toHookyardError(err);
      // A jq error over this payload raises again on every attempt: bad input, named by field.
      if (e.kind === 'bad_input') throw badInput(`hook '${hook.name}' ${name}: ${e.message}`);
      throw e;
    }
  }

  /** The whole plan of a fresh start: condition, door contract, extras, subject. */
  async plan(hook: Hook, run: Run): Promise<HookPlan> {
    if (hook.condition) {
      const out = await this.run(hook.condition, 'condition', hook, run.payload);
      if (!isTruthyOutput(out)) return { skip: true };
    }
    let kwargs: Record<string, unknown> = { ...hook.tool_kwargs };
    if (hook.start_expr) {
      const out = await this.run(hook.start_expr, 'start_expr', hook, run.payload);
      const first = out[0];
      if (!isObject(first)) {
        throw badInput(`hook '${hook.name}' start_expr must yield an object, got ${out.length === 0 ? 'no output' : JSON.stringify(first)}`);
      }
      // The static tool_kwargs win on a clash: the registrant's word beats the payload's.
      kwargs = { ...first, ...hook.tool_kwargs };
    }
    return { skip: false, kwargs, extras: await this.extras(hook, run) };
  }

  /**
   * Extras of a call: extras_expr, the subject, and the idempotency key (the
   * run id, stable across attempts and replays). They are a pure function of
   * hook and payload, so a replayed start computes the same extras again.
   */
  async extras(hook: Hook, run: Run): Promise<Record<string, unknown>> {
    const extras: Record<string, unknown> = {};
    if (hook.extras_expr) {
      const out = await this.run(hook.extras_expr, 'extras_expr', hook, run.payload);
      const first = out[0];
      if (isObject(first)) assignOwn(extras, first);
      else if (first !== undefined && first !== null) {
        throw badInput(`hook '${hook.name}' extras_expr must yield an object, got ${JSON.stringify(first)}`);
      }
    }
    if (hook.subject) {
      const out = await this.run(hook.subject.key_expr, 'subject.key_expr', hook, run.payload);
      const key = out[0];
      if (typeof key !== 'string' || key === '') {
        throw badInput(`hook '${hook.name}' subject.key_expr must yield a non-empty string, got ${out.length === 0 ? 'no output' : JSON.stringify(key)}`);
      }
      extras[TOOL_EXTRA_SUBJECT] = { scope: hook.subject.scope, kind: hook.subject.kind, key };
    }
    extras[TOOL_EXTRA_IDEMPOTENCY_KEY] = run.id;
    return extras;
  }
}
