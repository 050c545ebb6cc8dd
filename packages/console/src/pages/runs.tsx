import type { AnswerOf, listAgents } from '@hookyard/api';
import { useEffect, useRef, useState } from 'preact/hooks';
import { agentCallOf, agentCallWords } from '../agent-call';
import { api, atLeast, eventIdOf, query, RUN_STATUSES, type Hook, type Role, type Run, type RunPage } from '../api';
import { useRunEvents, type RunSummary } from '../live';
import { go, href } from '../route';
import { rowReason } from '../attempts';
import { ErrorBox, FilterSelect, formFields, Pager, Status, When, useLoad } from '../util';
import { BulkActions } from './bulk';

const PAGE = 50;

const HOUR_MS = 3_600_000;

/** `<input type="datetime-local">` shows local time; the URL and the API carry ISO UTC. */
export function localInputValue(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** A filter form's Since and Until fields (local time; `since` and `until` are ISO). */
export function TimeRange({ since, until }: { since: string; until: string }) {
  return (
    <>
      <label>
        Since
        <input name="since" type="datetime-local" step="any" defaultValue={localInputValue(since)} />
      </label>
      <label>
        Until
        <input name="until" type="datetime-local" step="any" defaultValue={localInputValue(until)} />
      </label>
    </>
  );
}

function isoFromInput(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

/** Events kept to be applied again to a page that arrives after them (its read may predate them). */
const RECENT_MS = 30_000;
const RECENT_MAX = 500;

interface Filter {
  status: string;
  hook: string;
  /** An agent's calls (the API's `?agent=`; refused together with hook). */
  agent: string;
  topic: string;
  delivery_id: string;
  since: string;
  until: string;
  /** One failure group (a link from Issues): the error kind and message fingerprint. */
  kind: string;
  fingerprint: string;
  /** A jq search over what runs carry (the API's `?where=`): a bounded window per page. */
  where: string;
}

/**
 * The first page's rows after a run event: its row updated (or removed when
 * it left the status filtered on), or the run added in its place when it
 * fits the filter and this page. Events of one run come from several
 * processes (the door's accepted, the executor's started) and may cross: one
 * older than what a row shows changes nothing, so applying an event twice,
 * or after a page that already reflects it, is harmless.
 */
export function applyRunEvent(current: Run[], e: RunSummary, scope: { filter: Filter; full: boolean }, added: Set<string>): Run[] {
  const { filter } = scope;
  if ((filter.hook && e.hook !== filter.hook) || (filter.agent && e.hook !== `agent:${filter.agent}`) || (filter.topic && e.topic !== filter.topic))
    return current;
  const at = current.findIndex((r) => r.id === e.run_id);
  const error = e.error_kind ? { kind: e.error_kind, message: e.error_message ?? '' } : null;
  if (at >= 0) {
    const r = current[at];
    if (e.at < r.updated_at) return current;
    const next = current.slice();
    if (filter.status && e.status !== filter.status) next.splice(at, 1);
    else next[at] = { ...r, status: e.status, attempts: e.attempts, error, finished_at: e.finished_at, due_at: e.due_at, updated_at: e.at };
    return next;
  }
  if (filter.status && e.status !== filter.status) return current;
  // A summary carries no delivery id, fingerprint nor payload (a search cannot be checked), and a new run is outside a range that ended before it.
  if (filter.delivery_id || filter.kind || filter.fingerprint || filter.where) return current;
  const created = Date.parse(e.created_at);
  if ((filter.since && created < Date.parse(filter.since)) || (filter.until && created > Date.parse(filter.until))) return current;
  // Older than the last row of a full page: it belongs to a later page, not this one.
  const oldest = current[current.length - 1];
  if (scope.full && oldest && e.created_at < oldest.created_at) return current;
  added.add(e.run_id);
  const row: Run = {
    id: e.run_id,
    hook: e.hook,
    topic: e.topic,
    status: e.status,
    attempts: e.attempts,
    payload: undefined,
    acted: '',
    acted_ids: [],
    claim_intent: '',
    error,
    result: undefined,
    input: null,
    lease: null,
    due_at: e.due_at,
    delivery_id: null,
    resumable: false,
    created_at: e.created_at,
    updated_at: e.at,
    started_at: null,
    finished_at: e.finished_at,
    history: [],
  };
  const place = current.findIndex((r) => r.created_at < e.created_at || (r.created_at === e.created_at && r.id < e.run_id));
  const next = current.slice();
  next.splice(place < 0 ? next.length : place, 0, row);
  return next.slice(0, PAGE * 4);
}

/**
 * The kept runs, newest first: the filters the API supports (status, hook or
 * agent, topic, delivery id, a since / until time range), kept in the hash; cursor
 * paging (one page at a time, never all), and on the first page the runs
 * that arrive while it is open.
 */
export function RunsPage({ role, params }: { role: Role; params: URLSearchParams }) {
  const filter = {
    status: params.get('status') ?? '',
    hook: params.get('hook') ?? '',
    agent: params.get('agent') ?? '',
    topic: params.get('topic') ?? '',
    delivery_id: params.get('delivery_id') ?? '',
    since: params.get('since') ?? '',
    until: params.get('until') ?? '',
    kind: params.get('kind') ?? '',
    fingerprint: params.get('fingerprint') ?? '',
    where: params.get('where') ?? '',
  };
  const cursor = params.get('cursor');
  // Rows of one delivery together under its event id (the page's rows; no extra read).
  const byEvent = params.get('group') === 'event';
  // A smaller search window than the API's 5,000 runs, kept in the hash (`&scan=`); no field of its own.
  const scanWindow = filter.where ? params.get('scan') : null;
  const hooks = useLoad(() => api<{ hooks: Hook[] }>('GET', '/api/hooks'), []);
  // Only an admin may list agents: the others type the name.
  const agents = useLoad(
    () => (atLeast(role, 'admin') ? api<AnswerOf<typeof listAgents>>('GET', '/api/agents').then((a) => a.agents.map((x) => x.name)) : Promise.resolve([])),
    [role],
  );
  // Events of the last moments, so a page that arrives after some of them (read before they happened) gets them too.
  const recent = useRef<{ e: RunSummary; got: number }[]>([]);
  // When the current read was sent: events from then on may be missing from its answer. Taken as the request
  // leaves, not after the next render (an event landing in between was applied to the rows the answer replaces).
  const asked = useRef(0);
  const page = useLoad(() => {
    asked.current = performance.now();
    return api<RunPage>('GET', `/api/hook-runs${query({ ...filter, scan: scanWindow, limit: PAGE, cursor })}`);
  }, [
    filter.status,
    filter.hook,
    filter.agent,
    filter.topic,
    filter.delivery_id,
    filter.since,
    filter.until,
    filter.kind,
    filter.fingerprint,
    filter.where,
    scanWindow,
    cursor,
  ]);
  const [rows, setRows] = useState<Run[]>([]);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  useEffect(() => {
    // A refused filter (the API's 400, shown above the table) shows no rows of the previous one.
    let next: Run[] = page.data?.runs ?? [];
    const added = new Set<string>();
    const scope = { filter, full: Boolean(page.data?.next_cursor) };
    if (page.data && !cursor) for (const { e, got } of recent.current) if (got >= asked.current) next = applyRunEvent(next, e, scope, added);
    setRows(next);
    setFresh(added);
  }, [page.data]);

  // Live: on the first page a run event updates its row, or adds the run (in its place, newest first) when it fits the filter.
  const reading = useRef(new Set<string>());
  const live = useRunEvents(!cursor, (e: RunSummary) => {
    const now = performance.now();
    recent.current = [...recent.current.filter((r) => now - r.got < RECENT_MS).slice(-RECENT_MAX + 1), { e, got: now }];
    if (page.error || page.loading) return;
    const added = new Set<string>();
    setRows((current) => applyRunEvent(current, e, { filter, full: Boolean(page.data?.next_cursor) }, added));
    if (added.size) setFresh((f) => new Set([...f, ...added]));
    // A summary carries no result nor history, and a denied or parked row says why from them ("denied by …",
    // "awaiting approval (rule …)"): read that run once (one read per run at a time).
    if ((e.status === 'denied' || e.status === 'parked') && !reading.current.has(e.run_id)) {
      reading.current.add(e.run_id);
      api<Run>('GET', `/api/hook-runs/${encodeURIComponent(e.run_id)}`)
        .then(
          (full) => setRows((current) => current.map((r) => (r.id === full.id && r.updated_at <= full.updated_at ? { ...r, ...full } : r))),
          () => undefined, // the row keeps what the event said; the next page load reads it whole
        )
        .finally(() => reading.current.delete(e.run_id));
    }
  });

  const listed = byEvent ? groupByEvent(rows) : rows.map((run) => ({ run, span: 1 }));
  const scan = page.data?.scan;
  const topics = [...new Set((hooks.data?.hooks ?? []).map((h) => h.topic))].sort();
  const read = (formEl: HTMLFormElement) => {
    const field = formFields(formEl);
    return {
      status: field('status'),
      hook: field('hook'),
      agent: field('agent').trim(),
      topic: field('topic'),
      delivery_id: field('delivery_id').trim(),
      since: isoFromInput(field('since')),
      until: isoFromInput(field('until')),
      kind: field('kind'),
      fingerprint: field('fingerprint'),
      where: field('where').trim(),
      group: byEvent ? 'event' : '',
    };
  };
  const apply = (e: Event) => {
    e.preventDefault();
    go('/runs', read(e.target as HTMLFormElement));
  };
  const last = (ms: number) => (e: Event) => {
    const formEl = (e.currentTarget as HTMLButtonElement).form!;
    go('/runs', { ...read(formEl), since: new Date(Date.now() - ms).toISOString(), until: '' });
  };

  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      {/* Text and time fields are the browser's until Apply (a live update re-rendering the page must not wipe what is being typed); the key remounts the form when the filter in the hash changes. */}
      <form class="filters" key={JSON.stringify(filter)} onSubmit={apply} aria-label="Filter runs">
        <FilterSelect label="Status" name="status" value={filter.status} options={RUN_STATUSES} />
        <FilterSelect label="Hook" name="hook" value={filter.hook} options={(hooks.data?.hooks ?? []).map((h) => h.name)} keep />
        <label>
          Agent
          <input name="agent" type="text" list="agent-names" defaultValue={filter.agent} maxLength={64} autoComplete="off" spellcheck={false} />
          <datalist id="agent-names">
            {(agents.data ?? []).map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <FilterSelect label="Topic" name="topic" value={filter.topic} options={topics} keep />
        <label>
          Delivery id
          <input name="delivery_id" type="text" defaultValue={filter.delivery_id} maxLength={512} autoComplete="off" spellcheck={false} />
        </label>
        <TimeRange since={filter.since} until={filter.until} />
        <label class="search">
          Search (jq over payload, result, error…)
          <input
            name="where"
            type="search"
            defaultValue={filter.where}
            maxLength={4096}
            autoComplete="off"
            spellcheck={false}
            placeholder='.payload.action == "opened"'
            aria-describedby="search-help"
          />
        </label>
        <div class="quick" role="group" aria-label="Quick time range">
          <button type="button" onClick={last(HOUR_MS)}>
            Last hour
          </button>
          <button type="button" onClick={last(24 * HOUR_MS)}>
            Last 24 h
          </button>
        </div>
        {(filter.kind || filter.fingerprint) && (
          <p class="group-filter" data-testid="group-filter">
            <input type="hidden" name="kind" value={filter.kind} />
            <input type="hidden" name="fingerprint" value={filter.fingerprint} />
            One failure group: {filter.kind && <>error kind {filter.kind}</>} {filter.fingerprint && <>fingerprint {filter.fingerprint}</>}{' '}
            <a href={href('/runs', { ...filter, kind: '', fingerprint: '' })}>show every run</a> · <a href={href('/issues')}>Issues</a>
          </p>
        )}
        <button type="submit">Apply</button>
        <label class="toggle">
          <input
            type="checkbox"
            checked={byEvent}
            onChange={(e) => go('/runs', { ...filter, scan: scanWindow, cursor, group: e.currentTarget.checked ? 'event' : '' })}
          />
          Group by event
        </label>
        <span class="live-state" aria-live="polite">
          {cursor
            ? 'older page (live updates on the first page)'
            : live === 'open'
              ? 'live'
              : live === 'connecting'
                ? 'connecting…'
                : 'live updates unavailable'}
        </span>
      </form>
      <p id="search-help" class="hint">
        A search runs jq on each run as{' '}
        <code>{'{payload, result, error, hook, topic, status, door, verified, delivery_id, event_id, attempts, created_at}'}</code> and keeps the runs whose
        first output is neither false nor null; one page reads at most 5,000 runs (or 3 s).
      </p>
      {!page.error && !filter.where && <BulkActions role={role} filter={filter} onDone={page.reload} />}
      {!page.error && filter.where && <p class="hint">Bulk actions act on the filters alone: clear the search to use them.</p>}
      {scan && (
        <ScanNote
          scan={scan}
          next={page.data?.next_cursor ? href('/runs', { ...filter, scan: scanWindow, group: byEvent ? 'event' : '', cursor: page.data.next_cursor }) : null}
        />
      )}
      <ErrorBox error={page.error} />
      <table class="runs" aria-busy={page.loading}>
        <caption class="sr-only">Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Kept</th>
            <th scope="col">Event</th>
            <th scope="col">Run</th>
            <th scope="col">Hook or agent call</th>
            <th scope="col">Topic</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {listed.map(({ run: r, span }) => (
            <tr key={r.id} data-run={r.id} class={[fresh.has(r.id) ? 'fresh' : '', byEvent && span > 0 ? 'event-start' : ''].join(' ').trim() || undefined}>
              <td>
                <When iso={r.created_at} relative />
              </td>
              {span > 0 && (
                <td rowSpan={span} class="event-cell">
                  <EventLink run={r} count={byEvent ? span : 0} />
                </td>
              )}
              <td>
                <a href={href(`/runs/${encodeURIComponent(r.id)}`)}>{r.id}</a>
              </td>
              <td>
                <HookCell run={r} />
              </td>
              <td>{r.topic}</td>
              <td>
                <Status status={r.status} />
              </td>
              <td>{r.attempts}</td>
              <td>
                <ReasonCell run={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!page.loading && !page.error && rows.length === 0 && <p class="empty">No runs match.</p>}
      <Pager
        newest={cursor ? href('/runs', filter) : null}
        older={page.data?.next_cursor ? href('/runs', { ...filter, scan: scanWindow, group: byEvent ? 'event' : '', cursor: page.data.next_cursor }) : null}
      />
    </section>
  );
}

/**
 * The page's rows with the runs of one event together, in the order their
 * events first show; `span` is the group's size on its first row and 0 on the
 * others (the event cell spans them).
 */
export function groupByEvent(rows: readonly Run[]): { run: Run; span: number }[] {
  const groups = new Map<string, Run[]>();
  for (const r of rows) {
    const id = eventIdOf(r);
    const g = groups.get(id);
    if (g) g.push(r);
    else groups.set(id, [r]);
  }
  return [...groups.values()].flatMap((g) => g.map((run, i) => ({ run, span: i === 0 ? g.length : 0 })));
}

/** The event a run came from, linking to its view; the sender's delivery id when it gave one. */
function EventLink({ run, count }: { run: Run; count: number }) {
  const id = eventIdOf(run);
  return (
    <>
      <a href={href(`/events/${id}`)} class="event-id" title={`event ${id}`}>
        {run.delivery_id ?? id}
      </a>
      {count > 1 && <span class="event-count"> · {count} runs</span>}
    </>
  );
}

/** What a search read: how many runs, how many matched, and, when the window was cut, the way on. */
function ScanNote({ scan, next }: { scan: NonNullable<RunPage['scan']>; next: string | null }) {
  return (
    <div class={scan.cut ? 'scan scan-cut' : 'scan'} role="status" data-testid="scan">
      <p>
        Searched {scan.scanned.toLocaleString()} run{scan.scanned === 1 ? '' : 's'}: {scan.matched} matched.
        {scan.cut && ' The search stopped at its window before reaching the oldest runs.'}
        {scan.cut && next && (
          <>
            {' '}
            <a href={next} class="button">
              Continue searching
            </a>
          </>
        )}
      </p>
      {scan.errors > 0 && scan.first_error && (
        <p class="hint">
          The expression raised a jq error on {scan.errors} run{scan.errors === 1 ? '' : 's'} (not matched), first on{' '}
          <a href={href(`/runs/${scan.first_error.run}`)}>{scan.first_error.run}</a>: {scan.first_error.message}
        </p>
      )}
    </div>
  );
}

/** Why the row stands where it does: the error (kind and shortened message, the whole in its title), who denied it, what it waits on. */
function ReasonCell({ run }: { run: Run }) {
  const why = rowReason(run);
  if (why.tone === 'none') return null;
  return (
    <span class={`reason reason-${why.tone}`} title={why.full} data-testid="run-reason">
      {why.kind && <strong class="reason-kind">{why.kind}</strong>}
      {why.kind && ': '}
      {why.text}
    </span>
  );
}

/** A hook's run names its hook; an agent's call reads as one ("agent ci-bot → tool deploy"), as there is no hook of that name. */
function HookCell({ run }: { run: Run }) {
  const call = agentCallOf(run);
  if (!call) return <>{run.hook}</>;
  return (
    <span class="agent-call" data-agent={call.agent}>
      {agentCallWords(call)}
    </span>
  );
}
