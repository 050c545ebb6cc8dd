import { useState } from 'preact/hooks';
import type { AnswerOf, createTriggerLink, listTriggerLinks } from '@hookyard/api';
import { api, atLeast, type ApiError, type Role } from '../api';
import { href } from '../route';
import { ErrorBox, time, toApiError, useConfirm, useLoad } from '../util';

/** How long a new link lives, as Create offers it (seconds; 0: never expires). */
const EXPIRIES: ReadonlyArray<readonly [seconds: number, label: string]> = [
  [0, 'never'],
  [3600, 'in 1 hour'],
  [86400, 'in 1 day'],
  [7 * 86400, 'in 7 days'],
  [30 * 86400, 'in 30 days'],
  [365 * 86400, 'in 1 year'],
];

/** What a link's row says of it: revoked, expired, used up or active (as the door decides, at the time the list is shown). */
function stateOf(l: { revoked: boolean; expires_at: string | null; uses: number; max_uses: number | null }): string {
  if (l.revoked) return 'revoked';
  if (l.expires_at !== null && Date.parse(l.expires_at) <= Date.now()) return 'expired';
  if (l.max_uses !== null && l.uses >= l.max_uses) return 'used up';
  return 'active';
}

/**
 * A hook's trigger links: an operator makes one (an expiry and a use limit
 * optional; its URL shown once) and revokes; a reader sees the list with
 * each link's last use (never a token).
 */
export function TriggerLinksPage({ role, hook }: { role: Role; hook: string }) {
  const path = `/api/hooks/${encodeURIComponent(hook)}/links`;
  const links = useLoad(() => api<AnswerOf<typeof listTriggerLinks>>('GET', path), [path]);
  const [confirm, dialog] = useConfirm();
  const [error, setError] = useState<ApiError | null>(null);
  const [made, setMade] = useState<{ id: string; url: string } | null>(null);
  const [label, setLabel] = useState('');
  const [expiresIn, setExpiresIn] = useState(0);
  const [maxUses, setMaxUses] = useState('');
  const operator = atLeast(role, 'operator');
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const body = {
        ...(label ? { label } : {}),
        ...(expiresIn > 0 ? { expires_in_seconds: expiresIn } : {}),
        // The server checks it (a whole number of at least 1) and names the field when it is not.
        ...(maxUses.trim() !== '' ? { max_uses: Number(maxUses) } : {}),
      };
      const res = await api<AnswerOf<typeof createTriggerLink>>('POST', path, body);
      setMade({ id: res.link.id, url: res.url ?? `${location.origin}${res.path}` });
      setLabel('');
      setExpiresIn(0);
      setMaxUses('');
      setError(null);
      links.reload();
    } catch (err) {
      setError(toApiError(err));
    }
  };
  const revoke = async (id: string) => {
    if (!(await confirm(`Revoke trigger link ${id}? Its next use is refused.`, 'Revoke'))) return;
    try {
      await api('DELETE', `${path}/${encodeURIComponent(id)}`);
      links.reload();
    } catch (err) {
      setError(toApiError(err));
    }
  };
  return (
    <section aria-labelledby="links-title">
      <h1 id="links-title">Trigger links of {hook}</h1>
      <p>
        A trigger link is a URL that fires this hook alone, for senders that cannot sign (a form, a cron <code>curl</code>).{' '}
        <a href={href('/hooks')}>All hooks</a>
      </p>
      {operator && (
        <form aria-label="Create a trigger link" onSubmit={(e) => void create(e)}>
          <label>
            Label <input value={label} maxLength={200} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <label>
            Expires{' '}
            <select value={String(expiresIn)} onChange={(e) => setExpiresIn(Number((e.target as HTMLSelectElement).value))}>
              {EXPIRIES.map(([seconds, text]) => (
                <option key={seconds} value={String(seconds)}>
                  {text}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Use limit{' '}
            <input type="number" min={1} step={1} placeholder="none" value={maxUses} onInput={(e) => setMaxUses((e.target as HTMLInputElement).value)} />
          </label>{' '}
          <button type="submit">Create a link</button>
        </form>
      )}
      {made && (
        <p role="status" data-made-link={made.id}>
          Link {made.id}, shown this once: <code>{made.url}</code>
        </p>
      )}
      <ErrorBox error={links.error ?? error} />
      <table>
        <caption class="sr-only">Trigger links</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Label</th>
            <th scope="col">Uses</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            {operator && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(links.data?.links ?? []).map((l) => (
            <tr key={l.id} data-link={l.id}>
              <td>
                <code>{l.id}</code>
              </td>
              <td>{l.label}</td>
              <td>
                {l.uses}
                {l.max_uses === null ? '' : ` / ${l.max_uses}`}
              </td>
              <td data-last-used>{l.last_used_at ? time(l.last_used_at) : 'never'}</td>
              <td>{l.expires_at ? time(l.expires_at) : 'never'}</td>
              <td>{stateOf(l)}</td>
              <td>
                {time(l.created_at)} by {l.created_by}
              </td>
              {operator && (
                <td>
                  {!l.revoked && (
                    <button type="button" class="danger small" onClick={() => void revoke(l.id)} aria-label={`Revoke ${l.id}`}>
                      Revoke
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!links.loading && (links.data?.links ?? []).length === 0 && <p class="empty">No trigger links.</p>}
      {dialog}
    </section>
  );
}
