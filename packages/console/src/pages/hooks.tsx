import { useState } from 'preact/hooks';
import type { AnswerOf, listHooks } from '@hookyard/api';
import { api, atLeast, type ApiError, type Role } from '../api';
import { href } from '../route';
import { ErrorBox, toApiError, useConfirm, useLoad } from '../util';

function jqText(v: unknown): string {
  if (!v || typeof v !== 'object') return '';
  const f = v as { content?: string; id?: string };
  return f.content ?? (f.id ? `template ${f.id}` : '');
}

/** Every registered hook; an operator registers, edits and removes them. */
export function HooksPage({ role }: { role: Role }) {
  const hooks = useLoad(() => api<AnswerOf<typeof listHooks>>('GET', '/api/hooks'), []);
  const [confirm, dialog] = useConfirm();
  const [error, setError] = useState<ApiError | null>(null);
  const operator = atLeast(role, 'operator');
  const remove = async (name: string) => {
    if (!(await confirm(`Remove hook ${name}? Its kept runs stay.`, 'Remove'))) return;
    try {
      await api('DELETE', `/api/hooks/${encodeURIComponent(name)}`);
      hooks.reload();
    } catch (err) {
      setError(toApiError(err));
    }
  };
  return (
    <section aria-labelledby="hooks-title">
      <h1 id="hooks-title">Hooks</h1>
      {operator && (
        <p>
          <a class="button" href={href('/hooks/new')}>
            Register a hook
          </a>
        </p>
      )}
      <ErrorBox error={hooks.error ?? error} />
      <table>
        <caption class="sr-only">Registered hooks</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Topic</th>
            <th scope="col">Tool</th>
            <th scope="col">Condition</th>
            <th scope="col">Runs</th>
            {operator && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(hooks.data?.hooks ?? []).map((h) => (
            <tr key={h.name} data-hook={h.name}>
              <td>{h.name}</td>
              <td>{h.topic}</td>
              <td>{h.tool}</td>
              <td>
                <code>{jqText(h.condition)}</code>
              </td>
              <td>
                <a href={href('/runs', { hook: h.name })}>runs</a> · <a href={href('/runs', { hook: h.name, status: 'failed' })}>failed</a> ·{' '}
                <a href={href(`/hooks/${encodeURIComponent(h.name)}/links`)}>links</a>
              </td>
              {operator && (
                <td>
                  <a href={href(`/hooks/${encodeURIComponent(h.name)}/edit`)} aria-label={`Edit ${h.name}`}>
                    Edit
                  </a>{' '}
                  <button type="button" class="danger small" onClick={() => void remove(h.name)} aria-label={`Remove ${h.name}`}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!hooks.loading && (hooks.data?.hooks ?? []).length === 0 && <p class="empty">No hooks registered.</p>}
      {dialog}
    </section>
  );
}
