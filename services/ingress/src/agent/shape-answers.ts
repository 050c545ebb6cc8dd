import { httpStatusOf, type ErrorKind } from '@hookyard/core';
import type { CallView } from './call-view';
import type { ParsedCall } from './shapes';

/**
 * How a call is answered, in the shape it came in: Hookyard's body gets the
 * call's view; a model's call gets exactly the result message its vendor's
 * API takes back (a Chat Completions `tool` message, a Responses
 * `function_call_output` item, an Anthropic `tool_result` block, a Gemini
 * `functionResponse` part), with no key of Hookyard's beside it, so a
 * runtime appends it as it is. Every outcome is such a message: a result, a
 * denial, a failure, "still waiting", and a call that was not taken (a tool
 * the agent may not call, a reused key); the run id and status travel in
 * headers and the HTTP status still says what happened. Pure functions.
 */

/** What came of one call: its run's view, or why no run was kept for it. */
export type CallOutcome = { view: CallView } | { refused: { kind: ErrorKind; message: string } };

/** The answer headers: the run id of each call (`-` for one not taken) and its status (a run status, or the error kind of one not taken), comma-separated in order. */
export const RUN_ID_HEADER = 'Hookyard-Run-Id';
export const RUN_STATUS_HEADER = 'Hookyard-Run-Status';

/** The one mapping of a call's state to the HTTP status: its outcome (any outcome, a denial and a failure too) 200, still waiting 202. */
export function httpStatusOfCall(view: CallView): 200 | 202 {
  return view.done ? 200 : 202;
}

/**
 * A body's HTTP status. One call: 200 outcome, 202 still waiting, the error
 * kind's status when it was not taken (404 a tool not available, 409 a key
 * reused for another call). Many: 207 when any was not taken, else 202 when
 * any still waits, else 200; the status header says which call is which.
 */
export function httpStatusOfOutcomes(outcomes: readonly CallOutcome[], many: boolean): number {
  if (!many) {
    const o = outcomes[0]!;
    return 'view' in o ? httpStatusOfCall(o.view) : httpStatusOf(o.refused.kind);
  }
  if (outcomes.some((o) => 'refused' in o)) return 207;
  return outcomes.some((o) => 'view' in o && !o.view.done) ? 202 : 200;
}

/** The headers' values for the outcomes, in order. */
export function runHeaders(outcomes: readonly CallOutcome[]): { id: string; status: string } {
  return {
    id: outcomes.map((o) => ('view' in o ? o.view.id : '-')).join(','),
    status: outcomes.map((o) => ('view' in o ? o.view.status : o.refused.kind)).join(','),
  };
}

/** What a model reads as the tool's answer: the result (a string as is, anything else as JSON text) when it succeeded, else the sentence. */
export function modelContent(view: CallView): string {
  if (view.status !== 'succeeded') return view.sentence;
  return typeof view.result === 'string' ? view.result : (JSON.stringify(view.result ?? null) ?? 'null');
}

/** True when the model should read the answer as an error (Anthropic's `is_error`): denied, failed, cancelled, discarded. */
export function isErrorAnswer(view: CallView): boolean {
  return view.done && view.status !== 'succeeded' && view.status !== 'skipped';
}

/** The sentence a model reads for a call that was not taken. */
export function refusalSentence(kind: ErrorKind, message: string): string {
  const m = message.trim().replace(/[.\s]+$/, '');
  const said = m.charAt(0).toUpperCase() + m.slice(1);
  if (kind === 'not_found') return `${said}: call only the tools you were given; this one cannot be called.`;
  return `${said}.`;
}

/** The answer to one call in its shape (Hookyard's: the view, or for a call of an array not taken, the error body). */
export function callAnswer(call: ParsedCall, outcome: CallOutcome): unknown {
  if (call.shape === 'hookyard') return 'view' in outcome ? outcome.view : { error: outcome.refused };
  const content = 'view' in outcome ? modelContent(outcome.view) : refusalSentence(outcome.refused.kind, outcome.refused.message);
  const isError = 'view' in outcome ? isErrorAnswer(outcome.view) : true;
  switch (call.shape) {
    case 'openai':
      return { role: 'tool', tool_call_id: call.modelCallId, content };
    case 'openai-responses':
      return { type: 'function_call_output', call_id: call.modelCallId, output: content };
    case 'anthropic':
      return { type: 'tool_result', tool_use_id: call.modelCallId, content, is_error: isError };
    case 'gemini': {
      // Gemini reads `output` as the function's output and `error` as what went wrong.
      const result = 'view' in outcome && outcome.view.status === 'succeeded' ? { value: outcome.view.result ?? null } : null;
      const response = isError ? { error: content } : { output: result ? result.value : content };
      return { functionResponse: { ...(call.modelCallId !== null ? { id: call.modelCallId } : {}), name: call.tool, response } };
    }
  }
}
