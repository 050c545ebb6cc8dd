import { api } from '../api';
import { href } from '../route';
import { ErrorBox, useLoad } from '../util';
import { Seen, groupFilter, type FailureGroups } from './issues';

/** Groups the overview lists. */
const TOP = 5;
/**
 * Failed runs the overview groups (newest first): a fifth of the API's 5,000, so every overview load
 * stays light (about 0.2 s of server time on Redis, against 0.85 s for 5,000); the Issues page scans them all.
 */
const WINDOW = 1000;

/**
 * The overview's "Top failures": the five largest failure groups (hook, error
 * kind, masked message) with their counts and last seen, each a link to its
 * runs, and a link to the Issues page. Self-contained: one read of
 * `GET /api/hook-runs/failures` over the newest WINDOW failed runs.
 */
export function TopFailures() {
  const top = useLoad(() => api<FailureGroups>('GET', `/api/hook-runs/failures?limit=${TOP}&window=${WINDOW}`), []);
  const d = top.data;
  return (
    <section aria-labelledby="top-failures-title" class="top-failures" data-testid="top-failures">
      <h2 id="top-failures-title">Top failures</h2>
      <ErrorBox error={top.error} />
      {d && d.groups.length === 0 && <p class="empty">No failed runs are held.</p>}
      {d && d.groups.length > 0 && (
        <>
          <ol>
            {d.groups.map((g) => (
              <li key={`${g.hook}|${g.kind}|${g.fingerprint}`} data-group={g.fingerprint}>
                <a class="count" href={href('/runs', groupFilter(g))}>
                  {g.count} run{g.count === 1 ? '' : 's'}
                </a>{' '}
                <strong>{g.agent !== null ? `agent ${g.agent}` : g.hook}</strong> <span class="status status-failed">{g.kind}</span> <code>{g.pattern}</code>{' '}
                <span class="hint">last seen</span> <Seen iso={g.last_seen} />
              </li>
            ))}
          </ol>
          <p class="hint">
            {d.group_count} group{d.group_count === 1 ? '' : 's'} in the newest {d.window.scanned} failed runs{d.window.cut ? ' (older ones not counted)' : ''}.{' '}
            <a href={href('/issues')}>All issues</a>
          </p>
        </>
      )}
    </section>
  );
}
