import { api, type Delivery, type Role } from '../api';
import { href } from '../route';
import { ErrorBox, Json, Status, time, useLoad } from '../util';

/**
 * One delivery (`#/events/<event id>`): how it came in (door, verified or
 * not, topic, when, the sender's delivery id), its payload, and every run it
 * became (one per hook on its topic) with its status. An agent's call (the
 * agent door) reads as a call: its one run, the call as kept.
 */
export function EventPage({ id }: { role: Role; id: string }) {
  const event = useLoad(() => api<Delivery>('GET', `/api/deliveries/${encodeURIComponent(id)}`), [id]);
  if (event.error) return <ErrorBox error={event.error} />;
  const e = event.data;
  if (!e) return <p class="loading">Loading event…</p>;
  const failed = e.runs.filter((r) => r.status === 'failed').length;
  // An agent's call comes through the agent door: a call (with its idempotency key), not a delivery.
  const call = e.door === 'agent';
  const key = call ? (e.payload as { idempotency_key?: unknown } | null)?.idempotency_key : undefined;
  return (
    <article class="story event" aria-labelledby="event-title">
      <p>
        <a href={href('/runs', { topic: e.topic, group: 'event' })}>← runs on {e.topic}, grouped by event</a>
      </p>
      <h1 id="event-title">
        {call ? 'Call' : 'Event'} <code>{e.event_id}</code>
      </h1>
      <dl class="facts">
        <dt>Topic</dt>
        <dd>{e.topic}</dd>
        <dt>Came in</dt>
        <dd>
          through the {e.door} door, <strong>{e.verified ? 'verified' : 'not verified'}</strong>
        </dd>
        <dt>Received</dt>
        <dd>{time(e.received_at)}</dd>
        <dt>{call ? 'Idempotency key' : 'Delivery id'}</dt>
        <dd>
          {call ? (
            typeof key === 'string' ? (
              <code>{key}</code>
            ) : (
              'none (kept without one)'
            )
          ) : e.delivery_id ? (
            <>
              {e.delivery_id} (<a href={href('/runs', { delivery_id: e.delivery_id })}>every run with this delivery id</a>)
            </>
          ) : (
            'none (the sender gave none and the topic has no dedupe key)'
          )}
        </dd>
        <dt>Headers</dt>
        <dd>
          <KeptHeaders headers={e.headers} door={e.door} />
        </dd>
        <dt>Runs</dt>
        <dd>
          {e.runs.length} run{e.runs.length === 1 ? '' : 's'}
          {failed > 0 && `, ${failed} failed`}
        </dd>
      </dl>
      <h2>{call ? 'Its run' : 'Runs it became'}</h2>
      <table class="runs event-runs">
        <caption class="sr-only">The runs of this event, in the order they were kept</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Hook</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Error</th>
            <th scope="col">Finished</th>
          </tr>
        </thead>
        <tbody>
          {e.runs.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td>
                <a href={href(`/runs/${encodeURIComponent(r.id)}`)}>{r.id}</a>
              </td>
              <td>{r.hook}</td>
              <td>
                <Status status={r.status} />
              </td>
              <td>{r.attempts}</td>
              <td>{r.error ? `${r.error.kind}: ${r.error.message}` : ''}</td>
              <td>{time(r.finished_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>{call ? 'The call' : 'Payload'}</h2>
      <Json value={e.payload} label={call ? 'The call' : 'Payload'} />
    </article>
  );
}

/** Doors whose deliveries come with request headers (the others keep none). */
const HEADED_DOORS = new Set(['http', 'nats', 'trigger']);

/**
 * The request headers kept with the delivery: only allowlisted names, never a
 * credential or a signature (the door dropped those). Null: none kept.
 */
function KeptHeaders({ headers, door }: { headers: Record<string, string> | null; door: string }) {
  if (!headers)
    return <>{HEADED_DOORS.has(door) ? 'not kept (kept before the doors kept request headers)' : `none (the ${door} door has no request headers)`}</>;
  const names = Object.keys(headers);
  if (names.length === 0) return <>none of the kept names came with it</>;
  return (
    <table class="kept-headers" aria-label="Headers kept">
      <caption>Allowlisted headers only: credentials and signatures are never kept</caption>
      <tbody>
        {names.map((name) => (
          <tr key={name}>
            <th scope="row">
              <code>{name}</code>
            </th>
            <td>{headers[name]}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
