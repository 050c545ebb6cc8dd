import { connect, type NatsConnection } from 'nats';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createRunEventHub, createRunEventPublisher, createRunEventSubscriber, type RunSummary } from '../src';
import { waitFor } from './support';

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  run_id: 'run-1',
  event: 'finished',
  at: '2024-01-01T00:00:01.000Z',
  hook: 'notify',
  topic: 'orders',
  status: 'succeeded',
  attempts: 1,
  error_kind: null,
  error_message: null,
  created_at: '2024-01-01T00:00:00.000Z',
  finished_at: '2024-01-01T00:00:01.000Z',
  due_at: null,
  duration_ms: 1000,
  ...over,
});

describe('run event hub (in-process)', () => {
  it('fans each summary out to the listeners of the moment and keeps nothing', async () => {
    const hub = createRunEventHub();
    const a: string[] = [];
    const b: string[] = [];
    await hub.publish(summary({ run_id: 'before' }));
    const stopA = hub.listen((s) => a.push(s.run_id));
    hub.listen((s) => b.push(s.run_id));
    await hub.publish(summary({ run_id: 'r1' }));
    stopA();
    await hub.publish(summary({ run_id: 'r2' }));
    expect(a).toEqual(['r1']);
    expect(b).toEqual(['r1', 'r2']);
  });
});

describe('run event subscriber (NATS)', () => {
  let url: string;
  let raw: NatsConnection;
  beforeAll(async () => {
    url = await requireNats();
    raw = await connect({ servers: url });
  });
  afterAll(async () => {
    await raw?.close();
  });

  it('hands on what the publisher sends on <prefix>.events.run.> and drops what is not a summary', async () => {
    const prefix = uniquePrefix('feed');
    const feed = await createRunEventSubscriber({ url, prefix });
    const publisher = await createRunEventPublisher({ url, prefix });
    const got: RunSummary[] = [];
    const stop = feed.listen((s) => got.push(s));
    try {
      raw.publish(`${prefix}.events.run.failed.notify`, 'not json');
      raw.publish(`${prefix}.events.run.failed.notify`, JSON.stringify({ hello: 1 }));
      raw.publish(`${prefix}x.events.run.failed.notify`, JSON.stringify(summary({ run_id: 'other-prefix' })));
      await publisher.publish(summary({ run_id: 'f1', status: 'failed', error_kind: 'unavailable', error_message: 'down' }));
      await publisher.publish(summary({ run_id: 's1' }));
      await waitFor('two summaries', () => got.length >= 2);
      expect(got.map((s) => s.run_id)).toEqual(['f1', 's1']);
      expect(got[0]).toEqual(summary({ run_id: 'f1', status: 'failed', error_kind: 'unavailable', error_message: 'down' }));
    } finally {
      stop();
      await publisher.close();
      await feed.close();
    }
  });
});
