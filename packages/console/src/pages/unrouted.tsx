import { useState } from 'preact/hooks';
import type { AnswerOf, dropUnrouted, listUnroutedTopics, replayUnrouted } from '@hookyard/api';
import { api, ApiError, atLeast, type Role } from '../api';
import { ErrorBox, time, toApiError, useConfirm, useLoad } from '../util';

/**
 * Events that came in on a topic with no hook (GET /api/unrouted): often a
 * sender's typo. An operator replays a topic's events once a hook is
 * registered on it (runs of door api, not verified), or drops them.
 */
export function UnroutedPage({ role }: { role: Role }) {
  const list = useLoad(() => api<AnswerOf<typeof listUnroutedTopics>>('GET', '/api/unrouted'), []);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [ask, dialog] = useConfirm();
  const operator = atLeast(role, 'operator');
  const path = (topic: string) => `/api/unrouted/${encodeURIComponent(topic)}`;

  const replay = async (topic: string) => {
    setError(null);
    setDone(null);
    try {
      const res = await api<AnswerOf<typeof replayUnrouted>>('POST', `${path(topic)}/replay`);
      setDone(`Replayed ${res.replayed} event(s) on ${topic}: ${res.runs} run(s) kept.`);
      list.reload();
    } catch (err) {
      setError(toApiError(err));
    }
  };
  const drop = async (topic: string) => {
    if (!(await ask(`Drop every unrouted event on ${topic}?`, 'Drop'))) return;
    setError(null);
    try {
      const res = await api<AnswerOf<typeof dropUnrouted>>('DELETE', path(topic));
      setDone(`Dropped ${res.removed} event(s) on ${topic}.`);
      list.reload();
    } catch (err) {
      setError(toApiError(err));
    }
  };

  return (
    <section aria-labelledby="unrouted-title">
      <h1 id="unrouted-title">Unrouted events</h1>
      <p class="hint">Events on a topic no hook is registered on. Register a hook on the topic, then replay them (runs of door api, not verified).</p>
      <ErrorBox error={list.error ?? error} />
      {done && <p role="status">{done}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Topic</th>
            <th scope="col">Kept</th>
            <th scope="col">Received</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Newest payload</th>
            {operator && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(list.data?.topics ?? []).map((t) => (
            <tr key={t.topic} data-testid={`unrouted-${t.topic}`}>
              <td>{t.topic}</td>
              <td>{t.kept}</td>
              <td>{t.received}</td>
              <td>{time(t.first_seen)}</td>
              <td>{time(t.last_seen)}</td>
              <td>
                <code>{typeof t.sample === 'string' && t.sample_truncated ? `${t.sample}…` : JSON.stringify(t.sample)}</code>
              </td>
              {operator && (
                <td>
                  <button type="button" class="small" onClick={() => void replay(t.topic)} aria-label={`Replay ${t.topic}`}>
                    Replay
                  </button>{' '}
                  <button type="button" class="danger small" onClick={() => void drop(t.topic)} aria-label={`Drop ${t.topic}`}>
                    Drop
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.topics.length === 0 && <p>None: every event came in on a topic with a hook.</p>}
      {dialog}
    </section>
  );
}
