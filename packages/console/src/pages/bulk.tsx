import type { AnswerOf, retryRuns } from '@hookyard/api';
import { useState } from 'preact/hooks';
import { api, atLeast, type Role } from '../api';
import { time, useConfirm } from '../util';

/** Statuses the Runs page offers a bulk discard for (the API also refuses running and discarded). */
const DISCARDABLE = new Set(['pending', 'retry_wait', 'parked', 'failed']);
/** Refusals quoted under the result (the API quotes at most 20). */
const REFUSALS_SHOWN = 3;

/** The Runs page's filter: the same fields the bulk routes take. */
interface Filter {
  status: string;
  hook: string;
  agent: string;
  topic: string;
  delivery_id: string;
  since: string;
  until: string;
  /** One failure group (Issues): the error kind and message fingerprint. */
  kind?: string;
  fingerprint?: string;
}

/** What `POST /api/hook-runs/retry|discard` answers. */
type BulkAnswer = AnswerOf<typeof retryRuns>;

/** The filter as the API takes it: only the fields that are set. */
function apiFilter(filter: Filter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(filter) as [string, string | undefined][]) if (v) out[k] = v;
  return out;
}

/**
 * Retry or discard every run of the filtered selection (every filter of the
 * Runs page, time range and delivery id included) through the API's bulk
 * routes: a dry run counts what the filter matches, the count is confirmed,
 * then one call acts on them all on the server and answers how many it
 * retried or discarded and which it refused (a run that moved on meanwhile,
 * a committed resume). At most 10,000 per call: the answer says when more
 * match, and the operator acts again.
 */
export function BulkActions({ role, filter, onDone }: { role: Role; filter: Filter; onDone: () => void }) {
  const [confirm, dialog] = useConfirm();
  const [progress, setProgress] = useState<string>('');
  const [refusals, setRefusals] = useState<BulkAnswer['refusals']>([]);
  const [busy, setBusy] = useState(false);
  if (!atLeast(role, 'operator')) return null;
  const canRetry = filter.status === 'failed';
  const canDiscard = DISCARDABLE.has(filter.status);
  if (!canRetry && !canDiscard) return <p class="hint">Choose status failed (retry, discard) or pending, retry_wait, parked (discard) for bulk actions.</p>;

  const run = async (what: 'retry' | 'discard') => {
    setBusy(true);
    setRefusals([]);
    const path = `/api/hook-runs/${what}`;
    const body = { filter: apiFilter(filter) };
    try {
      setProgress('counting…');
      const count = await api<BulkAnswer>('POST', path, { ...body, dry_run: true });
      setProgress('');
      if (count.matched === 0) {
        setProgress('No runs match.');
        return;
      }
      const scope = [
        filter.hook && `hook ${filter.hook}`,
        filter.agent && `agent ${filter.agent}`,
        filter.topic && `topic ${filter.topic}`,
        filter.delivery_id && `delivery ${filter.delivery_id}`,
        filter.since && `since ${time(filter.since)}`,
        filter.until && `until ${time(filter.until)}`,
        filter.kind && `error kind ${filter.kind}`,
        filter.fingerprint && `failure group ${filter.fingerprint}`,
      ]
        .filter(Boolean)
        .join(', ');
      const verb = what === 'retry' ? 'Retry' : 'Discard';
      const ok = await confirm(
        `${verb} ${count.matched}${count.truncated ? ' (the newest; more match)' : ''} ${filter.status} run${count.matched === 1 ? '' : 's'}${scope ? ` of ${scope}` : ''}?` +
          (count.tool_called_again
            ? ` Warning: ${count.tool_called_again} of them already called their tool; the retry calls it again (each with its run id as the idempotency key).`
            : ''),
        `${verb} ${count.matched}`,
      );
      if (!ok) return;
      setProgress(`${what === 'retry' ? 'retrying' : 'discarding'} ${count.matched}…`);
      const done = await api<BulkAnswer>('POST', path, body);
      const n = (what === 'retry' ? done.retried : done.discarded) ?? 0;
      setProgress(
        `${what === 'retry' ? 'Retried' : 'Discarded'} ${n} of ${done.matched}.` +
          (done.refused ? ` ${done.refused} refused (their state changed, or forbids it).` : '') +
          (done.truncated ? ' More runs match: act again for the next ones.' : ''),
      );
      setRefusals(done.refusals.slice(0, REFUSALS_SHOWN));
      onDone();
    } catch (err) {
      setProgress(`Stopped: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="bulk" role="group" aria-label="Bulk actions on the filtered runs">
      {canRetry && (
        <button type="button" disabled={busy} onClick={() => void run('retry')}>
          Retry all matching…
        </button>
      )}
      {canDiscard && (
        <button type="button" class="danger" disabled={busy} onClick={() => void run('discard')}>
          Discard all matching…
        </button>
      )}
      <span aria-live="polite" data-testid="bulk-progress">
        {progress}
      </span>
      {refusals.length > 0 && (
        <ul class="refusals" aria-label="Refused runs">
          {refusals.map((r) => (
            <li key={r.id}>
              <code>{r.id}</code>: {r.message}
            </li>
          ))}
        </ul>
      )}
      {dialog}
    </div>
  );
}
