import { HookyardError, TOOL_EXTRA_SUBJECT, type ApprovalPolicy, type ApprovalRule, type Interaction } from '@hookyard/core';
import { canonicalJson } from '../remote/canonical-json';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from '../types';
import { evaluateRules, stricter, type ApprovalDecision, type PolicyCall } from './evaluate';
import type { PolicyJq } from './rules';

/** Where the deployment's policy is read from (the hook store keeps it). */
export interface PolicySource {
  getApprovalPolicy(): Promise<ApprovalPolicy>;
}

export interface ApprovalRepoOptions {
  policies: PolicySource;
  jq: PolicyJq;
  /** Time bound of one rule's `when` (settings.jqTimeoutMs). */
  jqTimeoutMs: number;
  /**
   * How long an approval stays open when its rule names no timeout_seconds
   * (HOOKS_APPROVAL_TIMEOUT_SECONDS), read at each decision so a reload applies
   * to the next approval; DEFAULT_APPROVAL_TIMEOUT_SECONDS when absent.
   */
  defaultTimeoutSeconds?: () => number;
}

/** A call the policy did not let through: denied, or waiting for an approval. Kind `forbidden`, never retried. */
export class PolicyRefusal extends HookyardError {
  constructor(readonly decision: ApprovalDecision) {
    super(
      'forbidden',
      decision.action === 'approve' ? `this call needs an approval (${decision.rule ?? 'policy'}) and was made without one` : decision.message,
    );
    this.name = 'PolicyRefusal';
  }
}

function subjectOf(extras: Record<string, unknown>): PolicyCall['subject'] {
  const s = extras[TOOL_EXTRA_SUBJECT] as Record<string, unknown> | undefined;
  if (!s || typeof s.scope !== 'string' || typeof s.kind !== 'string' || typeof s.key !== 'string') return null;
  return { scope: s.scope, kind: s.kind, key: s.key };
}

/**
 * The approval gate at the capability edge: wraps any repo (the composed
 * MultiRepo of every provider), so no call reaches a provider without the
 * policy's word, whichever provider answers it.
 *
 * `decide` evaluates the deployment's policy (and the hook's own rules, which
 * can only make it stricter) for one call; the executor asks it before the
 * hook acts. `exec` lets a call through when its context carries a decision
 * this gate issued for exactly this tool and these arguments with action
 * `allow`; a call without one is decided here, against the deployment's
 * policy, and a deny or approve is thrown as a PolicyRefusal.
 */
export class ApprovalRepo implements ToolRepo {
  /** Decisions this gate issued, with the call each was issued for: a context cannot forge one. */
  private readonly issued = new WeakMap<ApprovalDecision, { tool: string; args: string }>();

  constructor(
    private readonly inner: ToolRepo,
    private readonly options: ApprovalRepoOptions,
  ) {}

  /**
   * The policy's decision on one call: first match of the deployment's rules,
   * made stricter by `hookRules`. `policy` is the deployment's policy when the
   * caller already asked the store for it (the executor reads it beside its
   * claim, saving a round trip); otherwise it is read here.
   */
  async decide(call: PolicyCall, hookRules: readonly ApprovalRule[] = [], policy?: Promise<ApprovalPolicy>): Promise<ApprovalDecision> {
    return this.decideBy(await (policy ?? this.options.policies.getApprovalPolicy()), call, hookRules);
  }

  private async decideBy(policy: ApprovalPolicy, call: PolicyCall, hookRules: readonly ApprovalRule[]): Promise<ApprovalDecision> {
    const { jq, jqTimeoutMs } = this.options;
    const defaults = { timeoutSeconds: this.options.defaultTimeoutSeconds?.() };
    let decision = await evaluateRules(policy.rules, call, 'deployment', policy.version, jq, jqTimeoutMs, defaults);
    if (decision.action !== 'deny' && hookRules.length > 0) {
      decision = stricter(decision, await evaluateRules(hookRules, call, 'hook', policy.version, jq, jqTimeoutMs, defaults));
    }
    this.issued.set(decision, { tool: call.tool, args: canonicalJson(call.args) });
    return decision;
  }

  /**
   * The decision an answered approval stands for: `allow` for exactly the
   * approved tool and arguments. The caller has checked that the interaction
   * was approved (or expired with on_timeout allow) and that the arguments
   * hash to its args_hash.
   */
  grant(interaction: Interaction, tool: string, args: Record<string, unknown>): ApprovalDecision {
    const decision: ApprovalDecision = {
      action: 'allow',
      rule: interaction.rule,
      source: null,
      policy_version: interaction.policy_version ?? 0,
      message: `approved through interaction ${interaction.id}`,
    };
    this.issued.set(decision, { tool, args: canonicalJson(args) });
    return decision;
  }

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    let decision = ctx.approval;
    const issuedFor = decision ? this.issued.get(decision) : undefined;
    if (!decision || !issuedFor || issuedFor.tool !== name || issuedFor.args !== canonicalJson(args)) {
      decision = await this.decide({ tool: name, args, hook: ctx.hook, topic: ctx.topic ?? '', subject: subjectOf(ctx.extras) });
    }
    if (decision.action !== 'allow') throw new PolicyRefusal(decision);
    return this.inner.exec(name, args, ctx);
  }

  names(): Promise<string[]> {
    return this.inner.names();
  }
  schema(name: string): Promise<JsonSchema | undefined> {
    return this.inner.schema(name);
  }
  tools(providerName: string): Promise<ToolInfo[]> {
    return this.inner.tools(providerName);
  }
  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
