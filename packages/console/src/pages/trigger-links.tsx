import { useState } from 'preact/hooks';
import type { AnswerOf, createTriggerLink, listTriggerLinks } from '@hookyard/api';
import { api, atLeast, type ApiError, type Role } from '../api';
import { href } from '../route';
import { ErrorBox, time, toApiError, useConfirm, useLoad } from '../util';

/** A hook's trigger links: an operator makes one (its URL shown once) and revokes; a reader sees the list (never a token). */
export function TriggerLinksPage({ role, hook }: { role: Role; hook: string }) {
  const path = `/api/hooks/${encodeURIComponent(hook)}/links`;
  const links = useLoad(() => api<AnswerOf<typeof listTriggerLinks>>('GET', path), [path]);
  const [confirm, dialog] = useConfirm();
  const [error, setError] = useState<ApiError | null>(null);
  const [made, setMade] = useState<{ id: string; url: string } | null>(null);
  const [label, setLabel] = useState('');
  const operator = atLeast(role, 'operator');
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const res = await api<AnswerOf<typeof createTriggerLink>>('POST', path, label ? { label } : {});
      setMade({ id: res.link.id, url: res.url ?? `${location.origin}${res.path}` });
      setLabel('');
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
        <form onSubmit={(e) => void create(e)}>
          <label>
            Label <input value={label} maxLength={200} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
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
              <td>{l.expires_at ? time(l.expires_at) : 'never'}</td>
              <td>{l.revoked ? 'revoked' : 'active'}</td>
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
