import {
  agentDenialSentence,
  agentOfHook,
  isErrorKind,
  isRetryableKind,
  type AgentCallPayload,
  type AgentClient,
  type AgentSignIn,
  type Interaction,
  type Run,
  type RunStatus,
} from '@hookyard/core';

/**
 * What an agent is told about its call: the run seen from the agent's side,
 * with one sentence a model can act on. Framework-neutral: the /mcp door and
 * the HTTP call API both render it.
 */
export interface CallView {
  id: string;
  agent: string;
  /** The IdP identity the call was made with (an access token's issuer, subject and client); absent for a `hya_` token's call. */
  signed_in?: AgentSignIn;
  tool: string;
  status: RunStatus;
  /** True once the call has its outcome (succeeded, denied, failed, cancelled, discarded, skipped). */
  done: boolean;
  /** succeeded: the tool's result. */
  result?: unknown;
  /** denied: the policy's or the approver's message, the rule, and who said no when a person (or an expiry) did. */
  denial?: { message: string; rule: string | null; by?: string };
  /** failed, cancelled, discarded: what went wrong; `retryable`: whether the same call made again can get past it (never for an unknown outcome). */
  error?: { kind: string; message: string; retryable?: boolean };
  /** parked: the approval it waits on. */
  interaction?: { id: string; rule: string | null; message: string | null; expires_at: string };
  /** True when this call joined an identical call (same tool, same arguments) that was already open, instead of being kept again. */
  joined?: true;
  /** One sentence for the model saying what happened and what it can do next. */
  sentence: string;
}

/** What a parked run's view needs besides the run: its interaction and the approval rule's message, when known. */
export interface ParkedOn {
  interaction: Interaction;
  message: string | null;
}

/** A run ends for the agent in these states; `failed` counts: it is held for an operator, and it is this call's outcome until one retries it. */
const DONE: ReadonlySet<RunStatus> = new Set(['succeeded', 'skipped', 'denied', 'cancelled', 'discarded', 'failed']);

/** True when the view is the call's outcome, or the call waits on a person (parked): either way, waiting longer is pointless now. */
export function isSettled(v: CallView): boolean {
  return v.done || v.status === 'parked';
}

/** What a model can do to get a waiting call's outcome: an identical call joins it (the model controls nothing but the arguments). */
export const REPEAT = 'make the same call again (same tool, same arguments) to get its outcome';

/**
 * The view of a call that joined an identical open call (AgentCalls.submit
 * `joined`): flagged, and the sentence says so first.
 */
export function joinedView(v: CallView): CallView {
  const sentence = `This call joined the identical call ${v.id} (same tool, same arguments) that was still open, so the tool is not called twice. ${v.sentence}`;
  return { ...v, joined: true, sentence };
}

/** The agent's view of an agent run (the caller has checked the run is this agent's). */
export function callViewOf(run: Run, parked: ParkedOn | null): CallView {
  const payload = (run.payload ?? {}) as Partial<AgentCallPayload>;
  const tool = typeof payload.tool === 'string' ? payload.tool : '?';
  const base = {
    id: run.id,
    agent: agentOfHook(run.hook) ?? run.hook,
    ...(payload.signed_in ? { signed_in: payload.signed_in } : {}),
    tool,
    status: run.status,
    done: DONE.has(run.status),
  };
  switch (run.status) {
    case 'succeeded':
      return { ...base, result: run.result ?? null, sentence: `The call to ${tool} succeeded.` };
    case 'denied': {
      const r = (run.result ?? {}) as { message?: unknown; rule?: unknown; by?: unknown };
      const message = typeof r.message === 'string' ? r.message : 'this call was denied';
      const denial: CallView['denial'] = { message, rule: typeof r.rule === 'string' ? r.rule : null };
      if (typeof r.by === 'string') denial.by = r.by;
      return { ...base, denial, sentence: agentDenialSentence(message) };
    }
    case 'failed': {
      const held = run.error ?? { kind: 'internal' as const, message: 'the run failed without a recorded error' };
      const error = { ...held, retryable: isRetryableKind(held.kind) };
      if (error.kind === 'outcome_unknown') return { ...base, error, sentence: unknownOutcomeSentence(tool) };
      return { ...base, error, sentence: `The call to ${tool} failed (${error.kind}): ${trimStop(error.message)}. ${failureAdvice(error.kind)}` };
    }
    case 'cancelled': {
      const message = run.error?.message ?? cancelledWhy(run);
      return { ...base, error: { kind: 'cancelled', message }, sentence: `The call to ${tool} was cancelled (${trimStop(message)}) and has no result.` };
    }
    case 'discarded':
      return {
        ...base,
        error: { kind: 'discarded', message: 'an operator discarded this call' },
        sentence: `An operator discarded the call to ${tool}; it has no result. Make the call again if it is still needed.`,
      };
    case 'skipped':
      return { ...base, result: run.result ?? null, sentence: `The call to ${tool} was skipped; the tool was not called.` };
    case 'parked':
      return parkedView(base, run, parked);
    case 'retry_wait': {
      const why = run.error ? ` (${run.error.kind}: ${trimStop(run.error.message)})` : '';
      const when = run.due_at ? ` at ${run.due_at}` : '';
      return { ...base, sentence: `An attempt of the call to ${tool} failed${why} and it will be tried again${when}; ${REPEAT}.` };
    }
    case 'running':
      return { ...base, sentence: runningSentence(tool, run.id) };
    case 'pending':
    default:
      return { ...base, sentence: pendingSentence(tool, run.id) };
  }
}

const pendingSentence = (tool: string, id: string) => `The call to ${tool} (${id}) is accepted and waits for an executor; ${REPEAT}.`;
const runningSentence = (tool: string, id: string) => `The call to ${tool} (${id}) is running; ${REPEAT}.`;

/** The view of a call this agent just kept (pending): what a read would show before the call's first event. */
export function keptView(id: string, agent: Pick<AgentClient, 'name' | 'signed_in'>, tool: string): CallView {
  const { signed_in } = agent;
  return { id, agent: agent.name, ...(signed_in ? { signed_in } : {}), tool, status: 'pending', done: false, sentence: pendingSentence(tool, id) };
}

/**
 * What a run event (its status) alone says about a call seen as `v`: the view
 * a read would give, when the event tells all of it, else null (only a read
 * can tell: a result, an approval, an error, or a step back that may be an
 * event arriving late). `v` itself when it says nothing new: the `accepted`
 * event of a call already read as pending, a second `started`. A `started`
 * event moves a waiting call to running, which needs nothing but the status.
 */
export function viewAfterEvent(v: CallView, status: RunStatus): CallView | null {
  if (v.done) return null;
  if (status === v.status && (status === 'pending' || status === 'running')) return v;
  if (status !== 'running') return null;
  const { id, agent, signed_in, tool } = v;
  return { id, agent, ...(signed_in ? { signed_in } : {}), tool, status, done: false, sentence: runningSentence(tool, id) };
}

function parkedView(base: Omit<CallView, 'sentence'>, run: Run, parked: ParkedOn | null): CallView {
  if (!parked) {
    const on = run.interaction ? ` ${run.interaction}` : '';
    return { ...base, sentence: `The call to ${base.tool} awaits an answer to interaction${on}; an operator answers it; ${REPEAT}.` };
  }
  const i = parked.interaction;
  const interaction = { id: i.id, rule: i.rule, message: parked.message, expires_at: i.expires_at };
  const rule = i.rule ? ` by rule '${i.rule}'` : '';
  const why = parked.message ? ` (${trimStop(parked.message)})` : '';
  return {
    ...base,
    interaction,
    sentence:
      `The call to ${base.tool} awaits approval ${i.id}${rule}${why}: an operator answers it (console, API, CLI or a signed link) before ${i.expires_at}; ` +
      `${REPEAT} once it is decided (while it waits, the same call joins this one and asks for no second approval).`,
  };
}

/**
 * A call whose tool started and whose attempt was interrupted (the tool does
 * not declare crash-resume): nobody knows whether the tool acted, so the model
 * is told so, and never to call again with a new key (that could act twice).
 * The run is held until an operator records what the tool did
 * (POST /api/hook-runs/{id}/resolve); the same call then answers that verdict.
 */
export function unknownOutcomeSentence(tool: string): string {
  return (
    `The outcome of the call to ${tool} is unknown: it was interrupted after the tool started, so the tool may have acted. ` +
    'An operator has been asked to check what it did. Do not retry it with a new idempotency key: that could make the tool act twice. ' +
    "Make the same call again (same tool, same arguments) later: once the operator's verdict is recorded, it answers that verdict."
  );
}

/** Whether a retry can help, by the error's kind: the model decides whether to try again. */
function failureAdvice(kind: string): string {
  if (isErrorKind(kind) && isRetryableKind(kind)) {
    return 'A retry may help later: make the call again with a new idempotency key (the same key answers this outcome again).';
  }
  switch (kind) {
    case 'bad_input':
      return 'Retrying the same call will not help: correct the arguments and call again with a new idempotency key.';
    case 'not_found':
      return 'Retrying the same call will not help: the tool or what it names was not found.';
    case 'unauthorized':
    case 'forbidden':
      return "Retrying will not help: the tool refused the deployment's credentials; ask an operator.";
    case 'conflict':
      return 'Retrying the same call will not help while that state lasts.';
    case 'operator_failed':
      return 'This is the verdict of an operator who checked what the tool did after its outcome was unknown; the same call answers it again.';
    default:
      return 'An operator can see the details in the run history.';
  }
}

function cancelledWhy(run: Run): string {
  const r = run.result as { cancelled?: unknown } | null;
  if (r && typeof r.cancelled === 'string') return `its interaction ${r.cancelled} was cancelled`;
  return run.interaction ? `its interaction ${run.interaction} was cancelled` : 'it was cancelled';
}

const trimStop = (s: string) => s.trim().replace(/[.\s]+$/, '');
