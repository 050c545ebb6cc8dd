import { connect, type NatsConnection } from 'nats';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createMemoryRunEventPublisher, createRunEventPublisher, runEventSubject, type RunSummary } from '../src';
import { waitFor } from './support';

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  run_id: 'run-1',
  event: 'finished',
  at: '2024-01-01T00:00:05.000Z',
  hook: 'notify-sales',
  topic: 'orders',
  status: 'failed',
  attempts: 3,
  error_kind: 'unavailable',
  error_message: 'tool endpoint refused the connection',
  created_at: '2024-01-01T00:00:00.000Z',
  finished_at: '2024-01-01T00:00:05.000Z',
  due_at: null,
  duration_ms: 5000,
  ...over,
});

describe('run event publisher (NATS)', () => {
  let url: string;
  let admin: NatsConnection;
  beforeAll(async () => {
    url = await requireNats();
    admin = await connect({ servers: url });
  });
  afterAll(async () => {
    await admin?.close();
  });

  it('publishes the summary as JSON on <prefix>.events.run.<status>.<hook>', async () => {
    const prefix = uniquePrefix('ev');
    const sub = admin.subscribe(`${prefix}.events.run.>`);
    await admin.flush();
    const got: Array<{ subject: string; body: unknown }> = [];
    void (async () => {
      for await (const m of sub) got.push({ subject: m.subject, body: m.json() });
    })();
    const events = await createRunEventPublisher({ url, prefix });
    try {
      await events.publish(summary());
      await events.publish(summary({ run_id: 'run-2', status: 'succeeded', error_kind: null, error_message: null }));
      await waitFor('two events', () => got.length === 2);
      expect(got[0]).toEqual({ subject: `${prefix}.events.run.failed.notify-sales`, body: summary() });
      expect(got[1]?.subject).toBe(`${prefix}.events.run.succeeded.notify-sales`);
    } finally {
      sub.unsubscribe();
      await events.close();
    }
    await expect(events.publish(summary())).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('refuses a prefix with wildcards at start', async () => {
    await expect(createRunEventPublisher({ url, prefix: 'hooks.>' })).rejects.toMatchObject({ kind: 'bad_input' });
  });

  it('refuses a hook name that would change the subject shape', async () => {
    const events = await createRunEventPublisher({ url, prefix: uniquePrefix('ev') });
    try {
      await expect(events.publish(summary({ hook: 'a.b' }))).rejects.toMatchObject({ kind: 'bad_input' });
    } finally {
      await events.close();
    }
  });
});

describe('run event publisher (memory)', () => {
  it('records what it was given, and refuses after close', async () => {
    const events = createMemoryRunEventPublisher();
    await events.publish(summary());
    expect(events.published).toEqual([summary()]);
    await events.close();
    await expect(events.publish(summary())).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('names subjects from status and hook', () => {
    expect(runEventSubject('hooks', { status: 'failed', hook: 'h1' })).toBe('hooks.events.run.failed.h1');
  });

  it("names an agent call's subject from its agent: the hook slot agent:<name> is not one subject token", () => {
    expect(runEventSubject('hooks', { status: 'succeeded', hook: 'agent:bench' })).toBe('hooks.events.run.succeeded.agent.bench');
    expect(() => runEventSubject('hooks', { status: 'succeeded', hook: 'agent:a.b' })).toThrow(/agent name "a.b" cannot be a NATS subject token/);
  });
});
