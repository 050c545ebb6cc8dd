import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerOf, approveInteraction, denyInteraction } from '@hookyard/api';
import { api, type ApiError } from './api';
import { href } from './route';
import { ErrorBox, toApiError } from './util';

export type Verdict = 'approve' | 'deny';

/** What an answer did, as the API said: the interaction's id and its run as it is now (null: no longer kept). */
export interface Answered {
  verdict: Verdict;
  interaction: string;
  runId: string;
  /** The run's status right after the answer (`pending`: woken, it resumes), or null when the run is gone. */
  runStatus: string | null;
  reason: string;
}

const REASON_MAX = 1000;

/**
 * Approve and Deny of one open approval, each confirmed in a modal dialog
 * (a native <dialog>: focus stays inside, Escape cancels). The dialog says
 * what the answer does; a denial needs a reason, an approval may carry one.
 * The answer goes to `POST /api/interactions/{id}/approve|deny`;
 * `onAnswered` gets what it did (the 409 of an interaction answered
 * meanwhile shows in the dialog).
 */
export function AnswerButtons({
  interaction,
  run,
  tool,
  onAnswered,
}: {
  interaction: string;
  run: string;
  tool: string;
  onAnswered: (answered: Answered) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    if (verdict && ref.current && !ref.current.open) ref.current.showModal();
  }, [verdict]);
  const open = (v: Verdict) => {
    setReason('');
    setMissing(false);
    setError(null);
    setVerdict(v);
  };
  const close = () => {
    ref.current?.close();
    setVerdict(null);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!verdict) return;
    const text = reason.trim();
    if (verdict === 'deny' && !text) {
      setMissing(true);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const out = await api<AnswerOf<typeof approveInteraction | typeof denyInteraction>>(
        'POST',
        `/api/interactions/${encodeURIComponent(interaction)}/${verdict}`,
        text ? { reason: text } : {},
      );
      close();
      onAnswered({ verdict, interaction, runId: out.run?.id ?? out.interaction.run ?? run, runStatus: out.run?.status ?? null, reason: text });
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  const base = `answer-${interaction}`;
  const deny = verdict === 'deny';
  return (
    <>
      <div class="actions">
        <button type="button" onClick={() => open('approve')}>
          Approve
        </button>
        <button type="button" class="danger" onClick={() => open('deny')}>
          Deny
        </button>
      </div>
      <dialog ref={ref} class="answer-dialog" aria-labelledby={`${base}-title`} aria-describedby={`${base}-what`} onCancel={() => setVerdict(null)}>
        {verdict && (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <h2 id={`${base}-title`}>
              {deny ? 'Deny' : 'Approve'} <code>{tool}</code> for run <code>{run}</code>?
            </h2>
            <p id={`${base}-what`}>
              {deny
                ? 'The run ends denied and the tool is not called. Say why: the reason is kept with the answer and shown in the run.'
                : 'The run resumes and calls the tool once, with exactly the arguments this approval is bound to.'}
            </p>
            <label for={`${base}-reason`}>{deny ? 'Reason (required)' : 'Reason (optional, kept with the answer)'}</label>
            <textarea
              id={`${base}-reason`}
              rows={3}
              maxLength={REASON_MAX}
              required={deny}
              aria-required={deny}
              aria-invalid={missing}
              aria-describedby={missing ? `${base}-missing` : undefined}
              value={reason}
              onInput={(e) => {
                setReason((e.target as HTMLTextAreaElement).value);
                setMissing(false);
              }}
            />
            {missing && (
              <p id={`${base}-missing`} class="error" role="alert">
                A denial needs a reason.
              </p>
            )}
            <ErrorBox error={error} />
            <div class="actions">
              <button type="button" onClick={close}>
                Cancel
              </button>
              <button type="submit" class={deny ? 'danger' : undefined} disabled={busy}>
                {deny ? 'Deny' : 'Approve'}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}

/**
 * What an answer did, in words, with a link to the run (a live region: read
 * out when it appears). An answer wakes the run (`pending`): approved, it
 * resumes and calls the tool; denied, it ends `denied` without calling it.
 */
export function AnswerOutcome({ answered }: { answered: Answered | null }) {
  if (!answered) return null;
  const { verdict, runId, runStatus, reason } = answered;
  const link = <a href={href(`/runs/${encodeURIComponent(runId)}`)}>{runId}</a>;
  const woken = runStatus === 'pending';
  let said;
  if (runStatus === null)
    said = (
      <>
        {verdict === 'approve' ? 'Approved' : 'Denied'}; run {link} is no longer kept.
      </>
    );
  else if (verdict === 'approve' && woken) said = <>Approved: run {link} resumed and calls its tool now.</>;
  else if (verdict === 'deny' && (woken || runStatus === 'denied'))
    said = (
      <>
        Denied: run {link} ends denied (“{reason}”); its tool is not called.
      </>
    );
  else
    said = (
      <>
        {verdict === 'approve' ? 'Approved' : 'Denied'}; run {link} is {runStatus}.
      </>
    );
  return (
    <p class="answer-outcome" role="status" data-testid="answer-outcome" data-verdict={verdict}>
      {said}
    </p>
  );
}
