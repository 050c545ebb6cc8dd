import type { AnswerOf, getInteraction } from '@hookyard/api';
import { agentCallOf, type AgentCallView } from '../agent-call';
import { api, eventIdOf, type Role, type Run } from '../api';
import { useRunEvents } from '../live';
import { href } from '../route';
import { ErrorBox, Json, Status, When, useLoad } from '../util';
import { RunActions } from './run-actions';
import { RetryExplanation, RunHistory } from './run-history';

/** One run as its story: what happened, in order, then what it was given and what came back. */
export function RunStory({ role, id }: { role: Role; id: string }) {
  const run = useLoad(() => api<Run>('GET', `/api/hook-runs/${encodeURIComponent(id)}`), [id]);
  // The story reloads when this run's state is announced.
  useRunEvents(true, (e) => {
    if (e.run_id === id) run.reload();
  });

  if (run.error) return <ErrorBox error={run.error} />;
  const r = run.data;
  if (!r) return <p class="loading">Loading run…</p>;
  const call = agentCallOf(r);
  // An agent's call has no hook page: its slot `agent:<name>` names the agent, whose calls the runs page filters with ?agent=.
  const back = call ? href('/runs', { agent: call.agent }) : href('/runs', { hook: r.hook });
  return (
    <article class="story" aria-labelledby="run-title">
      <p>
        <a href={back}>← {call ? `calls of agent ${call.agent}` : `runs of ${r.hook}`}</a>
      </p>
      <h1 id="run-title">
        Run <code>{r.id}</code> <Status status={r.status} />
      </h1>
      <dl class="facts">
        {call ? (
          <AgentFacts call={call} />
        ) : (
          <>
            <dt>Hook</dt>
            <dd>
              <a href={href('/runs', { hook: r.hook })}>{r.hook}</a>
            </dd>
          </>
        )}
        <dt>Topic</dt>
        <dd>{r.topic}</dd>
        <dt>Attempts</dt>
        <dd>{r.attempts}</dd>
        <dt>Acted</dt>
        <dd>{r.acted || 'not yet'}</dd>
        {/* An agent's call says how it came in among its own facts (verification is a webhook's). */}
        {r.door && !call && (
          <>
            <dt>Came in</dt>
            <dd>
              through the {r.door} door, {r.verified ? 'verified' : 'not verified'}
            </dd>
          </>
        )}
        {r.delivery_id && (
          <>
            <dt>Delivery id</dt>
            <dd>{r.delivery_id}</dd>
          </>
        )}
        {/* An agent's call is a call, not a delivery: it becomes this one run. */}
        <dt>{call ? 'Call' : 'Event'}</dt>
        <dd>
          <a href={href(`/events/${eventIdOf(r)}`)}>{eventIdOf(r)}</a>{' '}
          {call ? '(the call as it came in, and its run)' : '(the delivery and every run it became)'}
        </dd>
        {r.interaction && <ApprovalFacts id={r.interaction} at={r.updated_at} />}
        <dt>Kept</dt>
        <dd>
          <When iso={r.created_at} relative />
        </dd>
        <dt>Finished</dt>
        <dd>
          <When iso={r.finished_at} relative />
        </dd>
        {r.due_at && (
          <>
            <dt>Due</dt>
            <dd>
              <When iso={r.due_at} relative />
            </dd>
          </>
        )}
        {r.lease && (
          <>
            <dt>Lease</dt>
            <dd>
              {r.lease.owner} until <When iso={r.lease.until} /> (token {r.lease.token})
            </dd>
          </>
        )}
      </dl>
      {r.error && (
        <section class="run-error" aria-label="Error">
          <h2>Error</h2>
          <p>
            <strong data-testid="error-kind">{r.error.kind}</strong>: {r.error.message}
          </p>
          <RetryExplanation run={r} />
        </section>
      )}
      <RunActions key={r.id} run={r} role={role} onChanged={run.reload} />
      <RunHistory run={r} />
      <div class="columns">
        {call ? (
          <section aria-labelledby="arguments-title">
            <h2 id="arguments-title">Arguments</h2>
            <Json value={call.arguments} label="Arguments" />
          </section>
        ) : (
          <section aria-labelledby="payload-title">
            <h2 id="payload-title">Payload</h2>
            <Json value={r.payload} label="Payload" />
          </section>
        )}
        <section aria-labelledby="input-title">
          <h2 id="input-title">Tool input</h2>
          <Json value={r.input ?? undefined} label="Tool input" />
        </section>
        <section aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          <Json value={r.result ?? undefined} label="Result" />
        </section>
      </div>
    </article>
  );
}

/** What an agent's call says about itself: the agent, the tool, how it came in and its idempotency key. */
function AgentFacts({ call }: { call: AgentCallView }) {
  return (
    <>
      <dt>Agent</dt>
      <dd>
        <a href={href('/runs', { agent: call.agent })} data-testid="run-agent">
          {call.agent}
        </a>
      </dd>
      <dt>Tool</dt>
      <dd>
        <code data-testid="run-tool">{call.tool ?? '—'}</code>
      </dd>
      <dt>Called through</dt>
      <dd data-testid="run-via">{call.via === 'mcp' ? 'MCP (tools/call)' : call.via === 'http' ? 'HTTP (POST /api/calls)' : (call.via ?? '—')}</dd>
      <dt>Idempotency key</dt>
      <dd>
        <code data-testid="run-idempotency-key">{call.idempotency_key ?? '—'}</code>
      </dd>
      {call.tools_allow && (
        <>
          <dt>Runtime allowlist</dt>
          <dd>{call.tools_allow.length ? call.tools_allow.join(', ') : 'empty (nothing allowed)'}</dd>
        </>
      )}
    </>
  );
}

/** The interaction the run parked on: asked by which rule and why (its message), and who answered it, how and when (or that it is still open). */
function ApprovalFacts({ id, at }: { id: string; at: string }) {
  const i = useLoad(
    () => api<AnswerOf<typeof getInteraction>>('GET', `/api/interactions/${encodeURIComponent(id)}`),
    // Read again as the run moves (an answer wakes it).
    [id, at],
  );
  const label = i.data?.kind === 'wait' ? 'Wait' : 'Approval';
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid="run-approval">
        {i.error && `interaction ${id}: ${i.error.message}`}
        {i.data && (
          <>
            {i.data.status}
            {i.data.resolution && (
              <>
                {' '}
                by {i.data.resolution.by} via {i.data.resolution.via} at <When iso={i.data.resolution.at} />
              </>
            )}
            {i.data.resolution?.reason && ` (“${i.data.resolution.reason}”)`}
            {i.data.rule && `; asked by rule ${i.data.rule}`}
            {i.data.message && (
              <>
                : <q data-testid="run-approval-message">{i.data.message}</q>
              </>
            )}
          </>
        )}
        {!i.data && !i.error && '…'}
      </dd>
    </>
  );
}
