import type { AnswerOf, listFailureGroups, retryRuns } from '@hookyard/api';
import { ERROR_KIND_VALUES } from '@hookyard/api/values';
import { useState } from 'preact/hooks';
import { api, atLeast, query, type Hook, type Role } from '../api';
import { go, href } from '../route';
import { ErrorBox, FilterSelect, formFields, useConfirm, useLoad } from '../util';

/** One cause of failures, as `GET /api/hook-runs/failures` answers it. */
export type FailureGroups = AnswerOf<typeof listFailureGroups>;
export type FailureGroup = FailureGroups['groups'][number];

/** The API's error kinds (a filter of the page). */
const ERROR_KINDS = ERROR_KIND_VALUES;
/** Groups the page shows (most runs first). */
const GROUPS_SHOWN = 100;
const HOUR_MS = 3_600_000;

/** A time in the browser's zone with the zone named ("2026-03-01, 10:02:03 UTC"); the ISO form is the title. */
export function zoned(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false, timeZoneName: 'short' });
}

/** How long ago, in the largest whole unit ("just now", "5 min ago", "3 h ago", "2 d ago"). */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A time with its zone and how long ago; the ISO form is the title. */
export function Seen({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {zoned(iso)}
      <span class="ago"> ({ago(iso)})</span>
    </time>
  );
}

/** The run filter of exactly one group: what the runs list and the bulk routes take. */
export function groupFilter(g: FailureGroup): Record<string, string> {
  return { status: 'failed', ...(g.agent !== null ? { agent: g.agent } : { hook: g.hook }), kind: g.kind, fingerprint: g.fingerprint };
}

/** Who a group's runs belong to, in words. */
export const groupOwner = (g: FailureGroup) => (g.agent !== null ? `agent ${g.agent}` : `hook ${g.hook}`);

type BulkAnswer = AnswerOf<typeof retryRuns>;

/**
 * Failed runs grouped by cause (Hookdeck's "Issues"): hook, error kind and a
 * fingerprint of the message (numbers, ids and addresses masked), each group
 * with its count, first and last seen, a sample run, a link to its runs, and
 * for an operator Retry group / Discard group (counted, then confirmed).
 * The API scans a bounded window of the newest failed runs; the page says
 * when the window was cut.
 */
export function IssuesPage({ role, params }: { role: Role; params: URLSearchParams }) {
  const filter = { hook: params.get('hook') ?? '', kind: params.get('kind') ?? '', since: params.get('since') ?? '' };
  const hooks = useLoad(() => api<{ hooks: Hook[] }>('GET', '/api/hooks'), []);
  const page = useLoad(
    () => api<FailureGroups>('GET', `/api/hook-runs/failures${query({ ...filter, limit: GROUPS_SHOWN })}`),
    [filter.hook, filter.kind, filter.since],
  );
  const [confirm, dialog] = useConfirm();
  const [progress, setProgress] = useState('');
  const [busy, setBusy] = useState(false);

  const act = async (what: 'retry' | 'discard', g: FailureGroup) => {
    setBusy(true);
    const path = `/api/hook-runs/${what}`;
    const body = { filter: groupFilter(g) };
    try {
      setProgress('counting…');
      const count = await api<BulkAnswer>('POST', path, { ...body, dry_run: true });
      if (count.matched === 0) {
        setProgress('No failed runs of this group are left.');
        page.reload();
        return;
      }
      const verb = what === 'retry' ? 'Retry' : 'Discard';
      setProgress('');
      const ok = await confirm(
        `${verb} ${count.matched}${count.truncated ? ' (the newest; more match)' : ''} failed run${count.matched === 1 ? '' : 's'} of ${groupOwner(g)} that failed with ${g.kind}: “${g.pattern}”?`,
        `${verb} ${count.matched}`,
      );
      if (!ok) return;
      setProgress(`${what === 'retry' ? 'retrying' : 'discarding'} ${count.matched}…`);
      const done = await api<BulkAnswer>('POST', path, body);
      setProgress(
        `${what === 'retry' ? 'Retried' : 'Discarded'} ${(what === 'retry' ? done.retried : done.discarded) ?? 0} of ${done.matched} runs of ${groupOwner(g)} (${g.kind}).` +
          (done.refused ? ` ${done.refused} refused (their state changed, or forbids it).` : '') +
          (done.truncated ? ' More runs match: act again for the next ones.' : ''),
      );
      page.reload();
    } catch (err) {
      setProgress(`Stopped: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const apply = (e: Event) => {
    e.preventDefault();
    const field = formFields(e.target as HTMLFormElement);
    go('/issues', { hook: field('hook'), kind: field('kind'), since: filter.since });
  };
  const data = page.data;
  const operator = atLeast(role, 'operator');
  return (
    <section aria-labelledby="issues-title" class="issues">
      <h1 id="issues-title">Issues</h1>
      <p class="hint">Failed runs (held for an operator) grouped by hook, error kind and the message with its numbers, ids and addresses masked.</p>
      <form class="filters" key={JSON.stringify(filter)} onSubmit={apply} aria-label="Filter issues">
        <FilterSelect label="Hook" name="hook" value={filter.hook} options={(hooks.data?.hooks ?? []).map((h) => h.name)} keep />
        <FilterSelect label="Error kind" name="kind" value={filter.kind} options={ERROR_KINDS} />
        <div class="quick" role="group" aria-label="Runs kept since">
          {(
            [
              ['Any time', ''],
              ['Last hour', HOUR_MS],
              ['Last 24 h', 24 * HOUR_MS],
              ['Last 7 days', 7 * 24 * HOUR_MS],
            ] as const
          ).map(([label, ms]) => (
            <button key={label} type="button" onClick={() => go('/issues', { ...filter, since: ms === '' ? '' : new Date(Date.now() - ms).toISOString() })}>
              {label}
            </button>
          ))}
        </div>
        <button type="submit">Apply</button>
        <button type="button" onClick={page.reload} disabled={page.loading}>
          Refresh
        </button>
      </form>
      {filter.since && <p class="hint">Runs kept since {zoned(filter.since)}.</p>}
      <ErrorBox error={page.error} />
      {data && (
        <p class="window" data-testid="issues-window">
          {data.group_count} group{data.group_count === 1 ? '' : 's'} in the newest {data.window.scanned} failed run{data.window.scanned === 1 ? '' : 's'}
          {data.window.cut ? ` — the window of ${data.window.max} was cut: older failed runs (kept before ${zoned(data.window.oldest)}) are not counted.` : '.'}
          {data.group_count > data.groups.length ? ` The ${data.groups.length} largest are shown.` : ''}
        </p>
      )}
      <p aria-live="polite" data-testid="issues-progress" class="progress">
        {progress}
      </p>
      <table class="issues-table" aria-busy={page.loading}>
        <caption class="sr-only">Failure groups, most runs first</caption>
        <thead>
          <tr>
            <th scope="col">Runs</th>
            <th scope="col">Hook or agent</th>
            <th scope="col">Kind</th>
            <th scope="col">Failure</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Sample</th>
            {operator && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(data?.groups ?? []).map((g) => (
            <tr key={`${g.hook}|${g.kind}|${g.fingerprint}`} data-group={g.fingerprint} data-hook={g.hook} data-kind={g.kind}>
              <td class="count">
                <a href={href('/runs', groupFilter(g))} title="The failed runs of this group">
                  {g.count}
                </a>
              </td>
              <td>{g.agent !== null ? `agent ${g.agent}` : g.hook}</td>
              <td>
                <span class="status status-failed">{g.kind}</span>
              </td>
              <td class="failure">
                <code class="pattern">{g.pattern}</code>
                <span class="sample" title={g.sample_message}>
                  e.g. {g.sample_message}
                </span>
                <span class="fingerprint">fingerprint {g.fingerprint}</span>
              </td>
              <td>
                <Seen iso={g.first_seen} />
              </td>
              <td>
                <Seen iso={g.last_seen} />
              </td>
              <td class="sample-run">
                <a href={href(`/runs/${encodeURIComponent(g.sample_run)}`)}>{g.sample_run}</a>
                <br />
                <a href={href('/runs', groupFilter(g))}>{g.count === 1 ? 'its one run' : `all ${g.count} runs`}</a>
              </td>
              {operator && (
                <td class="group-actions">
                  <div>
                    <button type="button" disabled={busy} onClick={() => void act('retry', g)}>
                      Retry group…
                    </button>
                    <button type="button" class="danger" disabled={busy} onClick={() => void act('discard', g)}>
                      Discard group…
                    </button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!page.loading && !page.error && data?.groups.length === 0 && <p class="empty">No failed runs: nothing is held for an operator.</p>}
      {dialog}
    </section>
  );
}
