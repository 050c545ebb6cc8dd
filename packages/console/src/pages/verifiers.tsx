import type { AnswerOf, getVerifier, listHooks } from '@hookyard/api';
import { api, ApiError } from '../api';
import { ErrorBox, time, useLoad } from '../util';

/** Admin: the verifier binding of every topic that has hooks (secret references only; an open topic says so). */
export function VerifiersPage() {
  const rows = useLoad(async () => {
    const { hooks } = await api<AnswerOf<typeof listHooks>>('GET', '/api/hooks');
    const topics = [...new Set(hooks.map((h) => h.topic))].sort();
    return Promise.all(
      topics.map(async (topic) => {
        try {
          return { topic, verifier: await api<AnswerOf<typeof getVerifier>>('GET', `/api/hooks/topics/${encodeURIComponent(topic)}/verifier`) };
        } catch (err) {
          if (err instanceof ApiError && err.status === 404) return { topic, verifier: null };
          throw err;
        }
      }),
    );
  }, []);
  return (
    <section aria-labelledby="verifiers-title">
      <h1 id="verifiers-title">Verifier bindings</h1>
      <p class="hint">Topics with hooks. Bind or remove with PUT/DELETE /api/hooks/topics/&#123;topic&#125;/verifier or `hookyard hooks verifier`.</p>
      <ErrorBox error={rows.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Topic</th>
            <th scope="col">Kind</th>
            <th scope="col">Secrets (references)</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {(rows.data ?? []).map(({ topic, verifier }) => (
            <tr key={topic}>
              <td>{topic}</td>
              <td>{verifier ? verifier.kind : <em>open (no verifier)</em>}</td>
              <td>{verifier ? verifier.secrets.join(', ') : ''}</td>
              <td>{verifier ? time(verifier.updated_at) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
