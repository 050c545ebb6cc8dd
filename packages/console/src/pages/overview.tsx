import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type Role, type RunPage } from '../api';
import { useRunEvents, type RunSummary } from '../live';
import { href } from '../route';
import { ErrorBox, useLoad } from '../util';
import { TopFailures } from './top-failures';
import { OverviewCharts } from './charts';

/** How many of the last hour's runs the overview reads at most (newest first, 500 a page). */
const HOUR_SAMPLE_MAX = 2_000;

/** How long the state cards (counts, open approvals) wait after a run event before they are read again: at most once per this. */
const CARDS_REFRESH_MS = 2_000;

interface Hour {
  counted: number;
  capped: boolean;
  byStatus: Record<string, number>;
  /** The status now of each run counted (and as of when), so a run event moves it from one count to another. */
  statusOf: Map<string, { status: string; at: string }>;
  since: number;
}

/** The last hour's kept runs by their status now, read newest first until an hour back (or the cap). */
async function lastHour(): Promise<Hour> {
  const since = Date.now() - 3600_000;
  const hour: Hour = { counted: 0, capped: false, byStatus: {}, statusOf: new Map(), since };
  let cursor: string | null = null;
  for (;;) {
    const page: RunPage = await api<RunPage>('GET', `/api/hook-runs${query({ limit: 500, cursor })}`);
    for (const r of page.runs) {
      if (Date.parse(r.created_at) < since) return hour;
      count(hour, r.id, r.status, r.updated_at);
      if (hour.counted >= HOUR_SAMPLE_MAX) return { ...hour, capped: true };
    }
    cursor = page.next_cursor;
    if (!cursor) return hour;
  }
}

function count(hour: Hour, id: string, status: string, at: string): void {
  hour.statusOf.set(id, { status, at });
  hour.byStatus[status] = (hour.byStatus[status] ?? 0) + 1;
  hour.counted += 1;
}

/**
 * The hour's counts after a run event: a counted run moves to its new status;
 * a run kept since the page loaded (within the hour, and the sample not
 * capped) is counted. Nothing is read again.
 */
export function applyEvent(hour: Hour, e: RunSummary): Hour | null {
  const known = hour.statusOf.get(e.run_id);
  if (known) {
    // Events of one run come from several processes and may cross: an older one changes nothing.
    if (e.at < known.at) return null;
    hour.statusOf.set(e.run_id, { status: e.status, at: e.at });
    if (known.status === e.status) return null;
    const was = known.status;
    return { ...hour, byStatus: { ...hour.byStatus, [was]: (hour.byStatus[was] ?? 1) - 1, [e.status]: (hour.byStatus[e.status] ?? 0) + 1 } };
  }
  if (hour.capped || Date.parse(e.created_at) < hour.since) return null;
  const next = { ...hour, byStatus: { ...hour.byStatus } };
  count(next, e.run_id, e.status, e.at);
  return next;
}

/** Counts that say whether anything needs an operator, each a link into the runs it counts. */
export function Overview({ role: _role }: { role: Role }) {
  const loaded = useLoad(lastHour, []);
  const [hour, setHour] = useState<Hour | undefined>(undefined);
  useEffect(() => setHour(loaded.data), [loaded.data]);
  const counts = useLoad(
    () => api<{ pending: number; running: number; retry_wait: number; parked: number; failed: number }>('GET', '/api/hook-runs/counts'),
    [],
  );
  const approvals = useLoad(
    () =>
      api<{ interactions: unknown[]; next_cursor: string | null }>('GET', `/api/interactions${query({ status: 'open', kind: 'approval', limit: 500 })}`).catch(
        () => null,
      ),
    [],
  );
  // Live: the hour's counts move with each run event; the other cards are read again, at most once per CARDS_REFRESH_MS.
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);
  const live = useRunEvents(true, (e) => {
    setHour((h) => (h ? (applyEvent(h, e) ?? h) : h));
    if (refresh.current !== undefined) return;
    refresh.current = setTimeout(() => {
      refresh.current = undefined;
      counts.reload();
      approvals.reload();
    }, CARDS_REFRESH_MS);
  });
  const c = counts.data;
  const h = hour;
  const n = (s: string) => h?.byStatus[s] ?? 0;
  const perMin = (v: number) => (h && !h.capped ? `${(v / 60).toFixed(v < 60 ? 2 : 1)}/min` : '');
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <p class="live-state" aria-live="polite" data-testid="overview-live">
        {live === 'open' ? 'live' : live === 'connecting' ? 'connecting…' : 'live updates unavailable'}
      </p>
      <ErrorBox error={loaded.error ?? counts.error} />
      <div class="cards">
        <a class="card attention" href={href('/runs', { status: 'failed' })}>
          <span class="label">Failed, held for an operator</span>
          <span class="value" data-testid="held-failed">
            {c ? c.failed : '—'}
          </span>
        </a>
        <a class="card" href={href('/runs', { status: 'parked' })}>
          <span class="label">Parked (waiting on an interaction)</span>
          <span class="value" data-testid="parked">
            {c ? c.parked : '—'}
          </span>
        </a>
        <a class="card attention" href={href('/approvals')}>
          <span class="label">Open approvals</span>
          <span class="value" data-testid="open-approvals">
            {approvals.data ? `${approvals.data.interactions.length}${approvals.data.next_cursor ? '+' : ''}` : '—'}
          </span>
        </a>
        <a class="card" href={href('/runs', { status: 'pending' })}>
          <span class="label">Pending and waiting to retry</span>
          <span class="value" data-testid="pending">
            {c ? c.pending + c.retry_wait : '—'}
          </span>
        </a>
        <a class="card" href={href('/runs', { status: 'running' })}>
          <span class="label">Running now</span>
          <span class="value" data-testid="running">
            {c ? c.running : '—'}
          </span>
        </a>
      </div>
      <TopFailures />
      <h2>Last hour</h2>
      <p class="hint">Runs kept in the last hour, by their status now{h?.capped ? ` (the newest ${HOUR_SAMPLE_MAX} counted; more were kept)` : ''}.</p>
      <div class="cards">
        {(
          [
            ['accepted', 'Accepted', h?.counted ?? 0, ''],
            ['succeeded', 'Succeeded', n('succeeded'), 'succeeded'],
            ['failed', 'Failed', n('failed'), 'failed'],
            ['parked', 'Parked', n('parked'), 'parked'],
            ['skipped', 'Skipped', n('skipped'), 'skipped'],
            ['denied', 'Denied', n('denied'), 'denied'],
            ['cancelled', 'Cancelled', n('cancelled'), 'cancelled'],
          ] as const
        ).map(([key, label, value, status]) => (
          <a key={key} class="card" href={href('/runs', { status })} data-testid={`hour-${key}`}>
            <span class="label">{label}</span>
            <span class="value">{!h ? '…' : `${value}${h?.capped && key === 'accepted' ? '+' : ''}`}</span>
            <span class="rate">{!h ? '' : perMin(value)}</span>
          </a>
        ))}
      </div>
      <OverviewCharts />
    </section>
  );
}
