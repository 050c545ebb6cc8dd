import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerOf, RequestOf, getInteraction, resolveRun } from '@hookyard/api';
import { AnswerButtons, AnswerOutcome, type Answered } from '../answer-dialog';
import { api, atLeast, type ApiError, type Role, type Run } from '../api';
import { href } from '../route';
import { ErrorBox, toApiError, useConfirm, useLoad } from '../util';

/** States a discard is refused in (or pointless): ended without a failure, or already discarded. */
const FINISHED = new Set(['succeeded', 'skipped', 'denied', 'cancelled', 'discarded']);
/** States a run has ended in: only such a run is replayed (the API's 409 otherwise). */
const ENDED = new Set([...FINISHED, 'failed']);

/** The extra the tool gets the idempotency key in (core's TOOL_EXTRA_IDEMPOTENCY_KEY). */
const IDEMPOTENCY_EXTRA = 'tai42/idempotency_key';

type InteractionHead = AnswerOf<typeof getInteraction>;

/**
 * What an operator does with one run, and what a parked run waits on: the
 * link to its interaction and, for an open approval, Approve / Deny (the same
 * confirmed answer as the Approvals page); Retry (a run whose tool was called
 * warns it is called again, with its idempotency key), Discard, Replay of
 * an ended run, optionally with an edited payload, and Resolve of a run held
 * with an unknown outcome (its tool may have acted: the operator records what
 * it did). Readers see the link only.
 */
export function RunActions({ run: r, role, onChanged }: { run: Run; role: Role; onChanged: () => void }) {
  const operator = atLeast(role, 'operator');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<ComponentChildren>(null);
  const [answered, setAnswered] = useState<Answered | null>(null);
  const [confirm, dialog] = useConfirm();
  const [replaying, setReplaying] = useState(false);
  const [resolving, setResolving] = useState(false);
  // Held with an unknown outcome: its tool started and the attempt was cut; only an operator's check can end it truthfully.
  const unknown = r.status === 'failed' && r.error?.kind === 'outcome_unknown';
  const parkedOn = r.status === 'parked' && r.interaction ? r.interaction : null;
  const interaction = useLoad(
    () => (parkedOn ? api<InteractionHead>('GET', `/api/interactions/${encodeURIComponent(parkedOn)}`) : Promise.resolve(null)),
    [parkedOn],
  );
  // The tool was called (acted start): a retry calls it again, with the run's idempotency key (the run id).
  const called = r.acted === 'start';

  const act = async (what: 'retry' | 'discard') => {
    const ok = await confirm(
      what === 'retry' ? (
        <>
          Run {r.id} again as a fresh run?
          {called && (
            <strong class="retry-warning" data-testid="retry-warning">
              Its tool was already called: the retry calls it again (once the approval policy allows it) with idempotency key <code>{r.id}</code> (extra{' '}
              <code>{IDEMPOTENCY_EXTRA}</code>).
            </strong>
          )}
        </>
      ) : (
        `Discard run ${r.id}? It will not run again.`
      ),
      what === 'retry' ? 'Retry' : 'Discard',
    );
    if (!ok) return;
    setBusy(true);
    setError(null);
    setSaid(null);
    try {
      if (what === 'retry') {
        const out = await api<{ tool_called_again: { idempotency_key: string } | null }>('POST', `/api/hook-runs/${encodeURIComponent(r.id)}/retry`);
        if (out.tool_called_again)
          setSaid(
            <>
              Retried: its tool is called again with idempotency key <code>{out.tool_called_again.idempotency_key}</code>.
            </>,
          );
      } else await api('DELETE', `/api/hook-runs/${encodeURIComponent(r.id)}`);
      onChanged();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const open = interaction.data?.kind === 'approval' && interaction.data.status === 'open' ? interaction.data : null;
  return (
    <section class="run-actions" aria-label="What to do with this run">
      {r.replay_of && (
        <p data-testid="replay-of">
          Replay of run <a href={href(`/runs/${encodeURIComponent(r.replay_of)}`)}>{r.replay_of}</a>
          {r.history[0]?.detail?.includes('with an edited payload') ? ', with an edited payload.' : '.'}
        </p>
      )}
      {parkedOn && (
        <p data-testid="parked-on">
          Waits on {interaction.data?.kind === 'wait' ? 'wait' : 'approval'}{' '}
          <a href={href('/approvals', { interaction: parkedOn })} data-testid="interaction-link">
            {parkedOn}
          </a>
          {interaction.data?.rule && <> (rule {interaction.data.rule})</>}
          {open && !operator && '; an operator answers it.'}
        </p>
      )}
      {operator && open && <AnswerButtons interaction={open.id} run={r.id} tool={open.tool} onAnswered={setAnswered} />}
      <AnswerOutcome answered={answered} />
      {operator && (
        <div class="actions" role="group" aria-label="Run actions">
          {unknown && (
            <button type="button" disabled={busy} onClick={() => setResolving(true)}>
              Resolve…
            </button>
          )}
          {r.status === 'failed' && (
            <button type="button" disabled={busy} onClick={() => void act('retry')}>
              Retry
            </button>
          )}
          {!FINISHED.has(r.status) && r.status !== 'running' && (
            <button type="button" class="danger" disabled={busy} onClick={() => void act('discard')}>
              Discard
            </button>
          )}
          {ENDED.has(r.status) && r.door !== 'agent' && (
            <button type="button" disabled={busy} onClick={() => setReplaying(true)}>
              Replay…
            </button>
          )}
        </div>
      )}
      {said && <p role="status">{said}</p>}
      <ErrorBox error={error} />
      {replaying && (
        <ReplayDialog
          run={r}
          onClose={() => setReplaying(false)}
          onReplayed={(id, edited) => {
            setReplaying(false);
            setSaid(
              <span data-testid="replayed" data-run={id}>
                Replayed as run <a href={href(`/runs/${encodeURIComponent(id)}`)}>{id}</a>
                {edited ? ' with an edited payload' : ''}.
              </span>,
            );
          }}
        />
      )}
      {resolving && (
        <ResolveDialog
          run={r}
          onClose={() => setResolving(false)}
          onResolved={(status) => {
            setResolving(false);
            setSaid(<span data-testid="resolved">Resolved: the run is {status}.</span>);
            onChanged();
          }}
        />
      )}
      {dialog}
    </section>
  );
}

type Verdict = RequestOf<typeof resolveRun>['body'];

/**
 * Resolve of a run held with an unknown outcome (`POST /api/hook-runs/{id}/resolve`):
 * the operator says what they found the tool did — succeeded, with its result
 * as JSON (empty: null), or failed, with a reason — and a note for the history.
 * A result that is not JSON is said here; the API's 400 and 409 show as they come.
 */
function ResolveDialog({ run, onClose, onResolved }: { run: Run; onClose: () => void; onResolved: (status: string) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [outcome, setOutcome] = useState<'succeeded' | 'failed'>('succeeded');
  const [result, setResult] = useState('');
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [bad, setBad] = useState<string | null>(null);
  useEffect(() => {
    if (ref.current && !ref.current.open) ref.current.showModal();
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBad(null);
    const withNote = note.trim() ? { note: note.trim() } : {};
    let body: Verdict;
    if (outcome === 'failed') body = { outcome, reason, ...withNote };
    else {
      try {
        body = { outcome, ...(result.trim() ? { result: JSON.parse(result) as unknown } : {}), ...withNote };
      } catch (err) {
        setBad(`The result is not JSON: ${(err as Error).message}`);
        return;
      }
    }
    setBusy(true);
    try {
      const out = await api<Run>('POST', `/api/hook-runs/${encodeURIComponent(run.id)}/resolve`, body);
      ref.current?.close();
      onResolved(out.status);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="resolve-dialog" aria-labelledby="resolve-title" onCancel={onClose}>
      <form onSubmit={(e) => void submit(e)}>
        <h2 id="resolve-title">
          Resolve run <code>{run.id}</code>
        </h2>
        <p class="hint">
          Its tool started and the attempt was interrupted, so the tool may have acted. Check what it did, then record it: the run (and an agent's call) answers
          your verdict.
        </p>
        <fieldset>
          <legend>What the tool did</legend>
          <label>
            <input type="radio" name="resolve-outcome" value="succeeded" checked={outcome === 'succeeded'} onChange={() => setOutcome('succeeded')} /> It acted:
            succeeded
          </label>
          <label>
            <input type="radio" name="resolve-outcome" value="failed" checked={outcome === 'failed'} onChange={() => setOutcome('failed')} /> It failed or did
            not act
          </label>
        </fieldset>
        {outcome === 'succeeded' ? (
          <>
            <label for="resolve-result">Result (JSON; empty for null)</label>
            <textarea
              id="resolve-result"
              rows={6}
              spellcheck={false}
              value={result}
              onInput={(e) => {
                setResult((e.target as HTMLTextAreaElement).value);
                setBad(null);
              }}
            />
          </>
        ) : (
          <>
            <label for="resolve-reason">Reason (required)</label>
            <input id="resolve-reason" type="text" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
          </>
        )}
        <label for="resolve-note">Note (what you checked)</label>
        <input id="resolve-note" type="text" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
        {bad && (
          <p class="error" role="alert">
            {bad}
          </p>
        )}
        <ErrorBox error={error} />
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              ref.current?.close();
              onClose();
            }}
          >
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            Resolve
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * Replay of an ended run (`POST /api/hook-runs/{id}/replay`): the payload it
 * was kept with, editable. Unchanged, the event is replayed as it was; edited,
 * the text goes as `payload` and the API checks it (a JSON object within the
 * door's body limit: its 400 shows here).
 */
function ReplayDialog({ run, onClose, onReplayed }: { run: Run; onClose: () => void; onReplayed: (id: string, edited: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const original = JSON.stringify(run.payload ?? {}, null, 2);
  const [text, setText] = useState(original);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    if (ref.current && !ref.current.open) ref.current.showModal();
  }, []);
  const edited = text.trim() !== original.trim();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const out = await api<Run>('POST', `/api/hook-runs/${encodeURIComponent(run.id)}/replay`, edited ? { payload: text } : {});
      ref.current?.close();
      onReplayed(out.id, edited);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="replay-dialog" aria-labelledby="replay-title" onCancel={onClose}>
      <form onSubmit={(e) => void submit(e)}>
        <h2 id="replay-title">
          Replay run <code>{run.id}</code>
        </h2>
        <p class="hint">
          A new run of hook {run.hook} as registered now, recorded as a replay of this run. Edit the payload to replay with this payload instead.
        </p>
        <label for="replay-payload">Payload (JSON)</label>
        <textarea
          id="replay-payload"
          rows={12}
          spellcheck={false}
          value={text}
          onInput={(e) => {
            setText((e.target as HTMLTextAreaElement).value);
            setError(null);
          }}
        />
        <p class="hint" data-testid="replay-edited">
          {edited ? 'Edited: the new run gets this payload.' : 'Unchanged: the event is replayed as it was kept.'}
        </p>
        <ErrorBox error={error} />
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              ref.current?.close();
              onClose();
            }}
          >
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            {edited ? 'Replay with this payload' : 'Replay'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
