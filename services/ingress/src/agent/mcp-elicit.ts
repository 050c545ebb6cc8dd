import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ElicitRequestFormParams, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { toHookyardError, type AgentClient, type Interaction } from '@hookyard/core';
import { answerApproval, type AnswerDeps } from '../approvals/answer';
import type { CallView } from './call-view';

/**
 * An approval whose rule names `approver: "caller"` may be answered by the
 * agent's own user: while a tools/call waits on it, the /mcp door asks the
 * person at the client through MCP elicitation (form mode), related to that
 * tools/call. Their answer resolves the approval as any other answer does
 * (answerApproval), recorded as `agent:<name>:user` via `elicitation`.
 * Operators, signed links and answer hooks may still answer it first.
 */

/** The sentence kept when the agent's user declines without a reason. */
export const ELICITATION_DECLINED = "declined by the agent's user";

/** Longest reason the form accepts (as an operator's answer). */
const REASON_MAX_LENGTH = 1000;
/** Longest arguments summary the form's message quotes. */
const ARGS_SUMMARY_MAX = 500;

/** What asking needs: the store and bus answerApproval resolves through. */
export type ElicitDeps = AnswerDeps;

/** Who the answer is recorded as: the person at the agent's MCP client. */
export const callerOf = (agent: AgentClient): string => `agent:${agent.name}:user`;

/** The arguments as the form quotes them: compact JSON, cut at ARGS_SUMMARY_MAX characters. */
function argsSummary(args: Record<string, unknown>): string {
  const text = JSON.stringify(args) ?? '{}';
  return text.length > ARGS_SUMMARY_MAX ? `${text.slice(0, ARGS_SUMMARY_MAX)}…` : text;
}

/** The form sent: the tool, its arguments, the rule and its message; a required boolean `approve` and an optional `reason`. */
export function approvalForm(view: CallView, args: Record<string, unknown>, i: Interaction): ElicitRequestFormParams {
  const rule = i.rule ? ` The approval rule '${i.rule}' asks for it` : ' An approval rule asks for it';
  const why = view.interaction?.message ? `: ${view.interaction.message}` : '.';
  return {
    mode: 'form',
    message: `Approve the call to ${view.tool} with arguments ${argsSummary(args)}?${rule}${why}`,
    requestedSchema: {
      type: 'object',
      properties: {
        approve: { type: 'boolean', title: 'Approve', description: `true runs ${view.tool}; false denies the call` },
        reason: { type: 'string', title: 'Reason', description: 'Kept with the answer (shown to the agent when denied)', maxLength: REASON_MAX_LENGTH },
      },
      required: ['approve'],
    },
  };
}

/** One tools/call's asking: `seen` is told every view the wait reads; `settled` answers once the asking is over. */
export interface CallerAsk {
  seen(view: CallView): void;
  /** Resolves when no elicitation is outstanding: true when one resolved the approval. */
  settled(): Promise<boolean>;
  /** Abandons an elicitation still unanswered (the call has answered). */
  stop(): void;
}

/**
 * Asks the agent's user at most once per approval of this tools/call, and
 * only when the client declared form elicitation and the approval's rule
 * names the caller as approver. Cancel (or any failure to ask) leaves the
 * approval open: the call then answers "awaits approval" as without it.
 */
export function callerAsk(
  deps: ElicitDeps,
  server: Pick<Server, 'elicitInput' | 'getClientCapabilities'>,
  agent: AgentClient,
  args: Record<string, unknown>,
  requestId: RequestId,
): CallerAsk {
  const asked = new Set<string>();
  // Made with the first elicitation: most calls never ask, and aborting a controller makes a DOMException (a stack).
  let abort: AbortController | null = null;
  let stopped = false;
  let outstanding: Promise<boolean> = Promise.resolve(false);

  async function ask(view: CallView, id: string, signal: AbortSignal): Promise<boolean> {
    const i = await deps.stores.interactions.get(id);
    if (!i || i.kind !== 'approval' || i.status !== 'open' || i.approver !== 'caller') return false;
    const timeout = Math.max(1000, Date.parse(i.expires_at) - deps.clock.now());
    const answer = await server.elicitInput(approvalForm(view, args, i), { relatedRequestId: requestId, signal, timeout });
    if (answer.action === 'cancel') return false;
    const content = answer.action === 'accept' ? (answer.content ?? {}) : {};
    const approve = answer.action === 'accept' && content.approve === true;
    const reason = typeof content.reason === 'string' && content.reason.trim() !== '' ? content.reason : approve ? '' : ELICITATION_DECLINED;
    await answerApproval(deps, id, approve ? 'approve' : 'deny', { by: callerOf(agent), via: 'elicitation', reason });
    return true;
  }

  return {
    seen(view) {
      const id = view.interaction?.id;
      if (view.status !== 'parked' || !id || asked.has(id) || stopped) return;
      if (!server.getClientCapabilities()?.elicitation?.form) return;
      asked.add(id);
      abort ??= new AbortController();
      const previous = outstanding;
      outstanding = ask(view, id, abort.signal).then(
        async (resolved) => (await previous) || resolved,
        async (err: unknown) => {
          // Answered first by someone else, expired, the client gone or cancelled: the approval stays as the store has it.
          deps.logger.debug({ interaction: id, agent: agent.name, err: toHookyardError(err).message }, 'approval not answered by elicitation');
          return previous;
        },
      );
    },
    settled: () => outstanding,
    stop: () => {
      stopped = true;
      abort?.abort();
    },
  };
}
