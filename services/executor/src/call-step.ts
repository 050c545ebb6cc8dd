import { toHookyardError } from '@hookyard/core';
import type { Hook, HttpExchange, SubjectKey } from '@hookyard/core';
import { isParkRequest, type ApprovalDecision, type ToolPolicy } from '@hookyard/tools';
import { linksForCall, scrubError, scrubResult } from './approval-links';
import type { Attempt } from './attempt';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';
import { park } from './park-step';
import { callTool } from './tool-call';

/** A tool call whose start is recorded: by this attempt when `startsHere`, else by an earlier one (a replay). */
export interface HookCall {
  kwargs: Record<string, unknown>;
  extras: Record<string, unknown>;
  subject: SubjectKey | null;
  decision: ApprovalDecision;
  policy: ToolPolicy;
  startsHere: boolean;
}

/** Calls the hook's tool: succeeded with its (scrubbed) result, parked when it asks to, or throws its failure. */
export async function callHookTool(x: ExecutorParts, a: Attempt, hook: Hook, call: HookCall, state: AttemptState): Promise<Outcome> {
  const { run } = a;
  const { stores, settings, logger, clock } = x.deps;
  const { kwargs, extras, subject, policy, startsHere } = call;
  // The signed links of the approval a hooks_approval_requested run is about: made for this call only, never kept.
  const links = await linksForCall({ settings, secrets: x.secrets, interactions: stores.interactions, logger }, run, clock.now());
  let called: { result: unknown };
  // The reply of the tool's HTTP call (the last, under its retry policy); one that lands after the call lost its race is not its.
  let listening = true;
  const onHttp = (exchange: HttpExchange) => {
    if (listening) state.http = scrubResult(exchange, links) as HttpExchange;
  };
  try {
    called = await callTool(x.gate, {
      tool: hook.tool,
      args: kwargs,
      ctx: {
        runId: run.id,
        hook: hook.name,
        topic: run.topic,
        attempt: run.attempts,
        idempotencyKey: run.id,
        extras: links ? { ...extras, ...links.extras } : extras,
        subject,
        logger,
        approval: call.decision,
        onHttp,
      },
      interrupt: a,
      timeoutMs: settings.toolTimeoutMs,
      retry: policy.retry,
      logger,
    });
  } catch (err) {
    const e = scrubError(toHookyardError(err), links);
    // A call that never left is not a call: the start is withdrawn, and the platform's backoff applies.
    if (startsHere && e.notSent && !a.interruptReason) {
      // Tried again through a store blip like an outcome write (idempotent per token): the
      // blip that kept the tool from being reached often keeps this write out too.
      await a.writeOutcome('start withdrawn', settings.leaseMs, (token, now) =>
        stores.runs.withdrawStart(run.id, token, `its tool call never left: ${e.kind}: ${e.message}`, now),
      );
      state.acted = false;
    }
    throw e;
  } finally {
    listening = false;
  }
  const { result } = called;
  if (isParkRequest(result)) return park(x, a, hook, kwargs, extras, result);
  return { status: 'succeeded', result: scrubResult(result, links) };
}
