import { Fragment } from 'preact';
import type { HttpExchange, Run } from '../api';
import { collapseAttempts, duration, groupAttempts, whyNotRetried, type AttemptGroup, type AttemptLine } from '../attempts';
import { When } from '../util';

/** What a history line says, in words; the raw event name stays beside it. */
export const EVENT_WORDS: Record<string, string> = {
  kept: 'Kept',
  claimed: 'Claimed',
  claim_intent: 'Claim intent written',
  claim_checked: 'Stopped claim checked',
  acted: 'Acted',
  not_sent: 'Tool call never left (start withdrawn: not a call)',
  outcome_lost: 'Outcome lost',
  lapsed: 'Lease lapsed',
  released: 'Handed back (the executor stopped)',
  retry_scheduled: 'Retry scheduled',
  succeeded: 'Succeeded',
  skipped: 'Skipped (condition false)',
  denied: 'Denied',
  cancelled: 'Cancelled',
  failed: 'Failed',
  retried: 'Retried by an operator',
  discarded: 'Discarded by an operator',
  resolved: 'Resolved by an operator (the outcome was unknown)',
  replay: 'Replay',
  parked: 'Parked',
  woken: 'Woken (its interaction was answered)',
  'approval requested': 'Approval requested',
  'approval policy': 'Approval policy',
};

const words = (event: string): string => EVENT_WORDS[event] ?? event;

/** Why a failed run was not tried again, or when a waiting one will be. */
export function RetryExplanation({ run }: { run: Run }) {
  const why = whyNotRetried(run);
  if (why)
    return (
      <p class="why" data-testid="why-not-retried">
        {why}
      </p>
    );
  if (run.status === 'retry_wait' && run.due_at)
    return (
      <p class="why" data-testid="why-not-retried">
        Tried again <When iso={run.due_at} relative /> (the error's kind is one a later attempt can get past, and the tool had not been called).
      </p>
    );
  return null;
}

/** The run's history, one block per attempt with where its time went; attempts that ended the same way fold into one. */
export function RunHistory({ run }: { run: Run }) {
  const blocks = collapseAttempts(groupAttempts(run.history));
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ol class="timeline">
        {blocks.map((b) =>
          b.kind === 'one' ? (
            <Attempt key={`a${b.group.attempt}-${b.group.lines[0]?.at}`} group={b.group} />
          ) : (
            <Same key={`s${b.from}-${b.to}`} from={b.from} to={b.to} groups={b.groups} />
          ),
        )}
      </ol>
    </section>
  );
}

/** Attempts that ended the same way: one line, the attempts inside when opened. */
function Same({ from, to, groups }: { from: number; to: number; groups: AttemptGroup[] }) {
  const [first] = groups;
  const detail = first?.lines.at(-1)?.detail;
  return (
    <li class={`attempt-group same event-${first?.outcome ?? ''}`} data-attempts={`${from}-${to}`}>
      <details>
        <summary>
          <strong>
            Attempts {from}–{to}
          </strong>{' '}
          {first ? sameWords(first) : 'ended'} the same way
          {detail && <span class="detail"> ({detail})</span>}
        </summary>
        <ol class="timeline">
          {groups.map((g) => (
            <Attempt key={`a${g.attempt}-${g.lines[0]?.at}`} group={g} />
          ))}
        </ol>
      </details>
    </li>
  );
}

function sameWords(g: AttemptGroup): string {
  if (g.outcome === 'failed') return 'failed';
  if (g.outcome === 'retry_scheduled') return 'failed and waited to be retried';
  return `ended (${words(g.outcome).toLowerCase()})`;
}

function Attempt({ group }: { group: AttemptGroup }) {
  const timing = [
    group.beforeToolMs !== null && `claimed → tool start ${duration(group.beforeToolMs)}`,
    group.toolMs !== null && `tool ${duration(group.toolMs)}`,
    group.totalMs !== null && `attempt ${duration(group.totalMs)}`,
  ].filter(Boolean);
  return (
    <li class={`attempt-group event-${group.outcome}`} data-attempt={group.attempt}>
      <div class="attempt-head">
        <strong>{group.attempt === 0 ? 'Before the first attempt' : `Attempt ${group.attempt}`}</strong>
        {timing.length > 0 && <span class="timing"> · {timing.join(' · ')}</span>}
      </div>
      <ol class="lines">
        {group.lines.map((l, i) => (
          <Line key={i} line={l} />
        ))}
      </ol>
    </li>
  );
}

function Line({ line }: { line: AttemptLine }) {
  return (
    <li class={`event event-${line.event}`}>
      <When iso={line.at} /> <strong>{words(line.event)}</strong>
      {EVENT_WORDS[line.event] && <code class="raw">{line.event}</code>}
      {line.detail && <div class="detail">{line.detail}</div>}
      {line.http && <HttpReply http={line.http} />}
    </li>
  );
}

/** An HTTP tool's reply: status, the kept headers (secrets already redacted by the server) and the body excerpt. */
function HttpReply({ http }: { http: HttpExchange }) {
  const names = Object.keys(http.headers);
  const bad = http.status < 200 || http.status > 299;
  return (
    <details class="http" open={bad} data-testid="http-reply">
      <summary>
        HTTP <strong class={bad ? 'http-bad' : 'http-ok'}>{http.status}</strong> · {names.length} header{names.length === 1 ? '' : 's'} · body {http.body_bytes}{' '}
        bytes{http.body_truncated ? ` (first ${new TextEncoder().encode(http.body).length} shown)` : ''}
      </summary>
      {names.length > 0 && (
        <dl class="http-headers">
          {names.map((n) => (
            <Fragment key={n}>
              <dt>{n}</dt>
              <dd>{http.headers[n]}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <pre class="http-body" aria-label="Reply body excerpt">
        {http.body || '(empty)'}
      </pre>
    </details>
  );
}
