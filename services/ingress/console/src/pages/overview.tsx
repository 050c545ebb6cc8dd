import { api, query, type Role, type RunPage } from '../api';
import { href } from '../route';
import { ErrorBox, useLoad } from '../util';

/** How many of the last hour's runs the overview reads at most (newest first, 500 a page). */
const HOUR_SAMPLE_MAX = 2_000;

interface Hour {
  counted: number;
  capped: boolean;
  byStatus: Record<string, number>;
}

/** The last hour's kept runs by their status now, read newest first until an hour back (or the cap). */
async function lastHour(): Promise<Hour> {
  const since = Date.now() - 3600_000;
  const byStatus: Record<string, number> = {};
  let counted = 0;
  let cursor: string | null = null;
  for (;;) {
    const page: RunPage = await api<RunPage>('GET', `/api/hook-runs${query({ limit: 500, cursor })}`);
    for (const r of page.runs) {
      if (Date.parse(r.created_at) < since) return { counted, capped: false, byStatus };
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      counted += 1;
      if (counted >= HOUR_SAMPLE_MAX) return { counted, capped: true, byStatus };
    }
    cursor = page.next_cursor;
    if (!cursor) return { counted, capped: false, byStatus };
  }
}

/** Sums every sample of one metric in a Prometheus text exposition. */
export function metricSum(text: string, name: string): number | null {
  let sum: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum = (sum ?? 0) + v;
  }
  return sum;
}

/** Counts that say whether anything needs an operator, each a link into the runs it counts. */
export function Overview({ role: _role }: { role: Role }) {
  const hour = useLoad(lastHour, []);
  const metrics = useLoad(async () => {
    const res = await fetch('/metrics', { cache: 'no-store', credentials: 'omit' });
    return res.ok ? res.text() : '';
  }, []);
  const approvals = useLoad(
    () => api<{ interactions: unknown[]; next_cursor: string | null }>('GET', `/api/interactions${query({ status: 'open', kind: 'approval', limit: 500 })}`).catch(() => null),
    [],
  );
  const parked = useLoad(() => api<RunPage>('GET', `/api/hook-runs${query({ status: 'parked', limit: 500 })}`), []);
  const held = metrics.data ? metricSum(metrics.data, 'tai42_hook_runs_held_failed') : null;
  const pending = metrics.data ? metricSum(metrics.data, 'tai42_hook_runs_pending') : null;
  const h = hour.data;
  const n = (s: string) => h?.byStatus[s] ?? 0;
  const perMin = (v: number) => (h && !h.capped ? `${(v / 60).toFixed(v < 60 ? 2 : 1)}/min` : '');
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ErrorBox error={hour.error ?? parked.error} />
      <div class="cards">
        <a class="card attention" href={href('/runs', { status: 'failed' })}>
          <span class="label">Failed, held for an operator</span>
          <span class="value" data-testid="held-failed">{held ?? '—'}</span>
        </a>
        <a class="card" href={href('/runs', { status: 'parked' })}>
          <span class="label">Parked (waiting on an interaction)</span>
          <span class="value" data-testid="parked">
            {parked.data ? `${parked.data.runs.length}${parked.data.next_cursor ? '+' : ''}` : '—'}
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
          <span class="value">{pending ?? '—'}</span>
        </a>
      </div>
      <h2>Last hour</h2>
      <p class="hint">
        Runs kept in the last hour, by their status now{h?.capped ? ` (the newest ${HOUR_SAMPLE_MAX} counted; more were kept)` : ''}.
      </p>
      <div class="cards">
        {(
          [
            ['accepted', 'Accepted', h?.counted ?? 0, ''],
            ['succeeded', 'Succeeded', n('succeeded'), 'succeeded'],
            ['failed', 'Failed', n('failed'), 'failed'],
            ['parked', 'Parked', n('parked'), 'parked'],
            ['skipped', 'Skipped', n('skipped'), 'skipped'],
          ] as const
        ).map(([key, label, value, status]) => (
          <a key={key} class="card" href={href('/runs', { status })} data-testid={`hour-${key}`}>
            <span class="label">{label}</span>
            <span class="value">{hour.loading ? '…' : `${value}${h?.capped && key === 'accepted' ? '+' : ''}`}</span>
            <span class="rate">{hour.loading ? '' : perMin(value)}</span>
          </a>
        ))}
      </div>
    </section>
  );
}
