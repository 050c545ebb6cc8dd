import { useState } from 'preact/hooks';
import { api, atLeast, query, type Role, type RunPage } from '../api';
import { time, useConfirm } from '../util';

/** How many runs one bulk action walks at most; more are left for the next one (and said so). */
export const BULK_MAX = 10_000;
const DISCARDABLE = new Set(['pending', 'retry_wait', 'parked', 'failed']);

/** The Runs page's filter: the same query lists the runs a bulk action walks. */
interface Filter {
  status: string;
  hook: string;
  topic: string;
  delivery_id: string;
  since: string;
  until: string;
}

/**
 * Retry or discard every run of the filtered selection (every filter of the
 * Runs page, time range and delivery id included): the ids are counted
 * first (page by page, at most BULK_MAX), the count is confirmed, then each
 * run is retried or discarded through the same API as the run page, a few at
 * a time, with progress and the refusals counted.
 */
export function BulkActions({ role, filter, onDone }: { role: Role; filter: Filter; onDone: () => void }) {
  const [confirm, dialog] = useConfirm();
  const [progress, setProgress] = useState<string>('');
  const [busy, setBusy] = useState(false);
  if (!atLeast(role, 'operator')) return null;
  const canRetry = filter.status === 'failed';
  const canDiscard = DISCARDABLE.has(filter.status);
  if (!canRetry && !canDiscard) return <p class="hint">Choose status failed (retry, discard) or pending, retry_wait, parked (discard) for bulk actions.</p>;

  const run = async (what: 'retry' | 'discard') => {
    setBusy(true);
    try {
      setProgress('counting…');
      const ids: string[] = [];
      let cursor: string | null = null;
      let more = false;
      do {
        const page: RunPage = await api<RunPage>('GET', `/api/hook-runs${query({ ...filter, limit: 500, cursor })}`);
        for (const r of page.runs) if (ids.length < BULK_MAX) ids.push(r.id);
        cursor = page.next_cursor;
        if (ids.length >= BULK_MAX && cursor) more = true;
      } while (cursor && ids.length < BULK_MAX);
      setProgress('');
      if (ids.length === 0) {
        setProgress('No runs match.');
        return;
      }
      const scope = [
        filter.hook && `hook ${filter.hook}`,
        filter.topic && `topic ${filter.topic}`,
        filter.delivery_id && `delivery ${filter.delivery_id}`,
        filter.since && `since ${time(filter.since)}`,
        filter.until && `until ${time(filter.until)}`,
      ]
        .filter(Boolean)
        .join(', ');
      const ok = await confirm(
        `${what === 'retry' ? 'Retry' : 'Discard'} ${ids.length}${more ? ` (the newest ${BULK_MAX}; more match)` : ''} ${filter.status} run${ids.length === 1 ? '' : 's'}${scope ? ` of ${scope}` : ''}?`,
        `${what === 'retry' ? 'Retry' : 'Discard'} ${ids.length}`,
      );
      if (!ok) return;
      let done = 0;
      let refused = 0;
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          try {
            if (what === 'retry') await api('POST', `/api/hook-runs/${encodeURIComponent(id)}/retry`);
            else await api('DELETE', `/api/hook-runs/${encodeURIComponent(id)}`);
          } catch {
            refused += 1;
          }
          done += 1;
          if (done % 25 === 0 || done === ids.length) setProgress(`${done} of ${ids.length}…`);
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      setProgress(`${what === 'retry' ? 'Retried' : 'Discarded'} ${done - refused} of ${ids.length}${refused ? `; ${refused} refused (their state changed or forbids it)` : ''}.`);
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
        <button type="button" disabled={busy} onClick={() => run('retry')}>
          Retry all matching…
        </button>
      )}
      {canDiscard && (
        <button type="button" class="danger" disabled={busy} onClick={() => run('discard')}>
          Discard all matching…
        </button>
      )}
      <span aria-live="polite" data-testid="bulk-progress">
        {progress}
      </span>
      {dialog}
    </div>
  );
}
