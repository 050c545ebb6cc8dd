import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerOf, getInteraction, listInteractions } from '@hookyard/api';
import { agentCallOf, agentOf } from '../agent-call';
import { AnswerButtons, AnswerOutcome, type Answered } from '../answer-dialog';
import { api, atLeast, query, type Role, type Run } from '../api';
import { useRunEvents } from '../live';
import { href } from '../route';
import { ErrorBox, Json, Status, time, useLoad } from '../util';

type Interaction = AnswerOf<typeof getInteraction>;

interface Row {
  interaction: Interaction;
  run: Run | null;
}

/** The JSON the server hashes (keys sorted, no spaces): core's canonicalJson. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

async function sha256Hex(text: string): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null; // not a secure context (plain http to a remote host)
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

interface Args {
  kwargs: unknown;
  /** True: their hash is the interaction's; false: the hook changed since (an approval would be refused); null: not checked. */
  matches: boolean | null;
}

/**
 * The arguments are kept only as their hash, so the console asks a dry run of
 * the hook over the parked run's payload for them and checks the hash: what
 * it shows is exactly what approving calls the tool with. An agent's call
 * carries its arguments in its payload (there is no hook to ask), and they
 * are checked against the hash the same way.
 */
async function exactArgs(i: Interaction, run: Run | null): Promise<Args | null> {
  if (!run) return null;
  const call = agentCallOf(run);
  if (call) {
    const hash = await sha256Hex(canonicalJson(call.arguments));
    return { kwargs: call.arguments, matches: hash === null ? null : hash === i.args_hash };
  }
  const dry = await api<{ kwargs: unknown }>('POST', '/api/hooks/dry-run', { hook: i.hook, payload: run.payload });
  const hash = await sha256Hex(canonicalJson(dry.kwargs));
  return { kwargs: dry.kwargs, matches: hash === null ? null : hash === i.args_hash };
}

/** Run events that can open or close an approval. */
const CHANGES_APPROVALS = new Set(['parked', 'woken', 'finished', 'discarded']);
const RELOAD_MS = 1_000;

const withRun = async (interaction: Interaction): Promise<Row> => ({
  interaction,
  run: await api<Run>('GET', `/api/hook-runs/${encodeURIComponent(interaction.run)}`).catch(() => null),
});

/**
 * The open approvals: the tool, the rule's message (why it asks), the exact arguments (the parked run's input;
 * their SHA-256 is what the answer is bound to), the rule, the hook or agent
 * and the run that asked, the expiry. An operator approves or denies each
 * (confirmed in a dialog; a denial needs a reason), and the page then says
 * what the answer did. `?interaction=<id>` shows that one interaction, open
 * or answered (a parked run's story links there).
 */
export function ApprovalsPage({ role, params }: { role: Role; params?: URLSearchParams }) {
  const only = params?.get('interaction') || null;
  const [cursor, setCursor] = useState<string | null>(null);
  const [answered, setAnswered] = useState<Answered | null>(null);
  const rows = useLoad(async () => {
    if (only) {
      const one = await api<Interaction>('GET', `/api/interactions/${encodeURIComponent(only)}`);
      return { rows: [await withRun(one)], next: null };
    }
    const page = await api<AnswerOf<typeof listInteractions>>('GET', `/api/interactions${query({ status: 'open', kind: 'approval', limit: 50, cursor })}`);
    return { rows: await Promise.all(page.interactions.map(withRun)), next: page.next_cursor };
  }, [cursor, only]);
  // A run that parks, is woken, ends or is discarded while the page is open changes the list: read again, at most once a second
  // (a reload reads every card's run; accepted, started and retry events change no approval).
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);
  useRunEvents(true, (e) => {
    if (!CHANGES_APPROVALS.has(e.event) || pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      rows.reload();
    }, RELOAD_MS);
  });
  const operator = atLeast(role, 'operator');
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">{only ? `Interaction ${only}` : 'Approvals'}</h1>
      <p class="hint">
        {only ? (
          <a href={href('/approvals')}>All open approvals</a>
        ) : (
          'Open approvals, newest first. Approving calls the tool once with exactly these arguments (hashed again); denying ends the run denied.'
        )}
      </p>
      <AnswerOutcome answered={answered} />
      <ErrorBox error={rows.error} />
      {!rows.loading && rows.data?.rows.length === 0 && <p class="empty">No open approvals.</p>}
      <ul class="approvals">
        {(rows.data?.rows ?? []).map((r) => (
          <ApprovalCard
            key={r.interaction.id}
            row={r}
            operator={operator}
            onAnswered={(a) => {
              setAnswered(a);
              rows.reload();
            }}
          />
        ))}
      </ul>
      <nav class="pager" aria-label="Pages">
        {cursor && (
          <button type="button" onClick={() => setCursor(null)}>
            Newest
          </button>
        )}
        {rows.data?.next && (
          <button type="button" onClick={() => setCursor(rows.data!.next)}>
            Older
          </button>
        )}
      </nav>
    </section>
  );
}

function ApprovalCard({ row, operator, onAnswered }: { row: Row; operator: boolean; onAnswered: (a: Answered) => void }) {
  const { interaction: i, run } = row;
  // An agent's call: the run names its agent; the interaction's hook slot (agent:<name>) says so too when the run could not be read.
  const agent = run ? agentOf(run) : agentOf({ hook: i.hook });
  // A hook's arguments come from a dry run (operators only); an agent's are in its run, which every role reads.
  // A wait (shown alone through ?interaction=) has no arguments to check: only an approval is bound to a hash.
  const approval = i.kind === 'approval';
  const showArgs = approval && (operator || agent !== null);
  const args = useLoad(() => (showArgs ? exactArgs(i, run) : Promise.resolve(null)), [i.id]);
  return (
    <li class="approval" data-interaction={i.id} data-agent={agent ?? undefined} aria-labelledby={`title-${i.id}`}>
      <h2 id={`title-${i.id}`}>
        {agent ? (
          <>
            <code>{i.tool}</code> asked by agent <a href={href('/runs', { agent })}>{agent}</a>
          </>
        ) : (
          <>
            <code>{i.tool}</code> for hook <a href={href('/runs', { hook: i.hook })}>{i.hook}</a>
          </>
        )}
      </h2>
      {i.message && (
        <p class="approval-message" data-testid="approval-message">
          {i.message}
        </p>
      )}
      <dl class="facts">
        {agent && (
          <>
            <dt>Agent</dt>
            <dd data-testid="approval-agent">{agent}</dd>
          </>
        )}
        {i.status !== 'open' && (
          <>
            <dt>Status</dt>
            <dd data-testid="interaction-status">
              <Status status={i.status} />
            </dd>
          </>
        )}
        <dt>Rule</dt>
        <dd>
          {i.rule ?? '—'} {i.policy_version !== null && <span class="hint">(policy version {i.policy_version})</span>}
        </dd>
        <dt>Run</dt>
        <dd>
          <a href={href(`/runs/${encodeURIComponent(i.run)}`)}>{i.run}</a> on {i.topic}
        </dd>
        <dt>Asked</dt>
        <dd>{time(i.created_at)}</dd>
        <dt>Expires</dt>
        <dd>{time(i.expires_at)}</dd>
        <dt>Arguments hash</dt>
        <dd>
          <code>{i.args_hash}</code>
        </dd>
      </dl>
      {approval && <h3>Exact arguments</h3>}
      {approval && !showArgs && <p class="hint">Operators see the arguments (read back through a dry run of the hook and checked against the hash).</p>}
      {showArgs && args.error && <ErrorBox error={args.error} />}
      {showArgs && args.data && (
        <>
          <Json value={args.data.kwargs} label={`Arguments for ${i.tool}`} />
          <p class={args.data.matches === false ? 'error' : 'hint'} data-testid="args-check">
            {args.data.matches === true && 'SHA-256 matches the arguments this approval is bound to.'}
            {args.data.matches === false &&
              (agent
                ? "The call's arguments differ from the ones this approval is bound to; approving will be refused."
                : 'The hook now builds different arguments than the ones this approval is bound to; approving will be refused.')}
            {args.data.matches === null && 'Hash not checked (the browser offers no SHA-256 here: use HTTPS).'}
          </p>
        </>
      )}
      {operator && i.kind === 'approval' && i.status === 'open' && (
        <div class="answer">
          <AnswerButtons interaction={i.id} run={i.run} tool={i.tool} onAnswered={onAnswered} />
        </div>
      )}
    </li>
  );
}
