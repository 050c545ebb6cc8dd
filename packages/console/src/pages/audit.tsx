import type { AnswerOf, listAudit } from '@hookyard/api';
import { api, query } from '../api';
import { go, href } from '../route';
import { diffText, lineDiff } from '../line-diff';
import { ErrorBox, formFields, Json, Pager, time, useLoad } from '../util';
import { TimeRange } from './runs';

type AuditPage = AnswerOf<typeof listAudit>;
type AuditEntry = AuditPage['entries'][number];

const PAGE = 50;
/** The actions the trail names (a change through a route not named is recorded as `<METHOD> /api/<route>`). */
const ACTIONS = [
  'hook.register',
  'hook.remove',
  'verifier.bind',
  'verifier.unbind',
  'dedupe.bind',
  'dedupe.unbind',
  'trigger_link.create',
  'trigger_link.revoke',
  'run.retry',
  'run.replay',
  'run.discard',
  'run.resolve',
  'runs.bulk_retry',
  'runs.bulk_discard',
  'interaction.approve',
  'interaction.deny',
  'interaction.cancel',
  'tool.register',
  'tool.remove',
  'template.put',
  'template.remove',
  'policy.update',
  'settings.reload',
  'state.put',
  'state.remove',
  'unrouted.replay',
  'unrouted.drop',
  'agent.create',
  'agent.update',
  'agent.rotate',
  'agent.remove',
];
const FILTERS = ['action', 'actor', 'target', 'since', 'until'] as const;
type Filter = Record<(typeof FILTERS)[number], string>;

const isoFromInput = (local: string) => {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
};

/**
 * The audit trail (GET /api/audit, admin): every operator and admin change,
 * newest first, filtered by action, actor, target and time (kept in the
 * hash), paged with the API's cursor; each change opens to a diff of the
 * record before and after.
 */
export function AuditPage({ params }: { params: URLSearchParams }) {
  const filter = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Filter;
  const cursor = params.get('cursor');
  const page = useLoad(
    () => api<AuditPage>('GET', `/api/audit${query({ ...filter, limit: PAGE, cursor })}`),
    [filter.action, filter.actor, filter.target, filter.since, filter.until, cursor],
  );
  const apply = (e: Event) => {
    e.preventDefault();
    const text = formFields(e.target as HTMLFormElement);
    const field = (k: string) => text(k).trim();
    go('/audit', {
      action: field('action'),
      actor: field('actor'),
      target: field('target'),
      since: isoFromInput(field('since')),
      until: isoFromInput(field('until')),
    });
  };
  const entries = page.data?.entries ?? [];

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit trail</h1>
      <p class="hint">
        Every change an operator or admin made, who (role and token label), from where, and the record before and after.
        {page.data &&
          ` Kept ${page.data.retention_days} days, at most ${page.data.max_entries} changes and ${page.data.max_refused} refused attempts; never a secret.`}
      </p>
      <form class="filters" key={JSON.stringify(filter)} onSubmit={apply} aria-label="Filter the audit trail">
        <label>
          Action
          <input
            name="action"
            type="text"
            list="audit-actions"
            defaultValue={filter.action}
            placeholder="hook.* or hook.register"
            autoComplete="off"
            spellcheck={false}
          />
          <datalist id="audit-actions">
            {ACTIONS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          Actor
          <input name="actor" type="text" defaultValue={filter.actor} placeholder="admin, operator:1a2b3c4d, link" autoComplete="off" spellcheck={false} />
        </label>
        <label>
          Target
          <input name="target" type="text" defaultValue={filter.target} autoComplete="off" spellcheck={false} />
        </label>
        <TimeRange since={filter.since} until={filter.until} />
        <button type="submit">Apply</button>
        {FILTERS.some((k) => filter[k]) && (
          <a class="button" href={href('/audit')}>
            Clear
          </a>
        )}
      </form>
      <ErrorBox error={page.error} />
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">From</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} data-testid={`audit-${e.id}`} data-action={e.action}>
              <td>{time(e.at)}</td>
              <td>
                <span class={`actor actor-${e.actor.kind}`}>{e.actor.label}</span>
              </td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>{e.target ?? '—'}</td>
              <td class={e.status >= 400 ? 'refused' : undefined}>{e.status}</td>
              <td>{e.client || '—'}</td>
              <td>
                <Change entry={e} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!page.loading && !page.error && entries.length === 0 && <p class="empty">No changes match.</p>}
      <Pager
        newest={cursor ? href('/audit', filter) : null}
        older={page.data?.next_cursor ? href('/audit', { ...filter, cursor: page.data.next_cursor }) : null}
      />
    </section>
  );
}

/** Before and after as a line diff of their JSON (keys sorted); a refusal or a change without records shows its detail only. */
function Change({ entry }: { entry: AuditEntry }) {
  const has = entry.before !== undefined || entry.after !== undefined;
  if (!has && entry.detail === undefined) return <>—</>;
  const lines = has ? lineDiff(diffText(entry.before), diffText(entry.after)) : [];
  const added = lines.filter((l) => l.op === '+').length;
  const removed = lines.filter((l) => l.op === '-').length;
  return (
    <details>
      <summary>{has ? `${entry.before == null ? 'new' : entry.after == null ? 'removed' : 'changed'}: +${added} −${removed}` : 'detail'}</summary>
      {has && (
        <pre class="diff" aria-label={`Changes of ${entry.action} ${entry.target ?? ''}`} tabIndex={0}>
          {lines.map((l, i) => (
            <span key={i} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : undefined}>
              {`${l.op} ${l.text}\n`}
            </span>
          ))}
        </pre>
      )}
      {entry.detail !== undefined && <Json value={entry.detail} label={`Detail of ${entry.action}`} />}
    </details>
  );
}
