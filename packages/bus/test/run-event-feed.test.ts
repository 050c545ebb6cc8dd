import { connect, type NatsConnection } from 'nats';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createCallRouter, createRunEventHub, createRunEventPublisher, createRunEventSubscriber, type RunSummary } from '../src';
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

/** A Map that counts its lookups, so a test can tell how much work one delivery did. */
class CountingMap<K, V> extends Map<K, V> {
  lookups = 0;
  override get(key: K): V | undefined {
    this.lookups += 1;
    return super.get(key);
  }
  override has(key: K): boolean {
    this.lookups += 1;
    return super.has(key);
  }
}

describe('call router (agent calls by run id)', () => {
  it("with 1,000 calls waiting, an event for run X calls exactly X's listeners, with one lookup", () => {
    const byRun = new CountingMap<string, Set<(s: RunSummary) => void>>();
    const router = createCallRouter(byRun);
    const calls = new Map<string, number>();
    const count = (name: string) => () => void calls.set(name, (calls.get(name) ?? 0) + 1);
    for (let i = 0; i < 1000; i++) router.add(`run-${i}`, count(`run-${i}`));
    // A second waiter on X (an MCP call and an HTTP join of the same run).
    router.add('run-500', count('run-500 again'));
    expect(router.runs).toBe(1000);
    byRun.lookups = 0;
    expect(router.deliver(summary({ run_id: 'run-500', hook: 'agent:bot' }))).toBe(2);
    expect(Object.fromEntries(calls)).toEqual({ 'run-500': 1, 'run-500 again': 1 });
    expect(byRun.lookups).toBe(1);
    // A run nobody waits on: one lookup, nobody called.
    expect(router.deliver(summary({ run_id: 'run-nobody', hook: 'agent:bot' }))).toBe(0);
    expect(byRun.lookups).toBe(2);
    expect(calls.size).toBe(2);
  });

  it('forgets a run with its last listener; a listener added twice is two entries', () => {
    const router = createCallRouter();
    const got: string[] = [];
    const l = (s: RunSummary) => got.push(s.event);
    const stopA = router.add('x', l);
    const stopB = router.add('x', l);
    router.deliver(summary({ run_id: 'x', event: 'started' }));
    stopA();
    stopA();
    router.deliver(summary({ run_id: 'x', event: 'parked' }));
    stopB();
    expect(router.runs).toBe(0);
    router.deliver(summary({ run_id: 'x', event: 'finished' }));
    expect(got).toEqual(['started', 'started', 'parked']);
  });
});

describe('run event hub: agent calls', () => {
  it("routes an agent call's events to its run's listeners, and no other hook's", async () => {
    const hub = createRunEventHub();
    const call: string[] = [];
    const all: string[] = [];
    hub.listen((s) => all.push(`${s.hook}/${s.run_id}`));
    const stop = hub.listenCall('r1', (s) => call.push(`${s.hook}/${s.run_id}`));
    await hub.publish(summary({ run_id: 'r1', hook: 'notify' }));
    await hub.publish(summary({ run_id: 'r1', hook: 'agent:bot' }));
    await hub.publish(summary({ run_id: 'r2', hook: 'agent:bot' }));
    stop();
    await hub.publish(summary({ run_id: 'r1', hook: 'agent:bot', event: 'retried' }));
    expect(call).toEqual(['agent:bot/r1']);
    expect(all).toEqual(['notify/r1', 'agent:bot/r1', 'agent:bot/r2', 'agent:bot/r1']);
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
    await feed.listening();
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

  it("routes an agent call's events (subject <prefix>.events.run.*.agent.*) to its run's listeners; another hook's event of the same run id never reaches them", async () => {
    const prefix = uniquePrefix('feedcall');
    const feed = await createRunEventSubscriber({ url, prefix });
    const publisher = await createRunEventPublisher({ url, prefix });
    const call: string[] = [];
    const all: string[] = [];
    const stopAll = feed.listen((s) => all.push(`${s.hook}/${s.run_id}/${s.event}`));
    const stop = feed.listenCall('r1', (s) => call.push(`${s.hook}/${s.run_id}/${s.event}`));
    await feed.listening();
    try {
      // Same run id, other hooks: a hook's own run, and a hook literally named "agent" (subject ...succeeded.agent).
      await publisher.publish(summary({ run_id: 'r1', hook: 'notify', event: 'accepted', status: 'pending' }));
      await publisher.publish(summary({ run_id: 'r1', hook: 'agent', event: 'started', status: 'running' }));
      // Raw, past the publisher: the subject is what picks, not the JSON inside.
      raw.publish(`${prefix}.events.run.succeeded.notify`, JSON.stringify(summary({ run_id: 'r1', hook: 'agent:bot', event: 'retried' })));
      await publisher.publish(summary({ run_id: 'r2', hook: 'agent:bot', event: 'started', status: 'running' }));
      await publisher.publish(summary({ run_id: 'r1', hook: 'agent:bot' }));
      await waitFor('every event at the full feed', () => all.length >= 5);
      await waitFor("r1's call event", () => call.length >= 1);
      // NATS keeps one connection's order: the call's own event came last, so the others would have come first.
      expect(call).toEqual(['agent:bot/r1/finished']);
    } finally {
      stop();
      stopAll();
      await publisher.close();
      await feed.close();
    }
  });

  it("takes only the agent calls' events off NATS while nothing listens to every event, and every event while something does", async () => {
    const prefix = uniquePrefix('feedlazy');
    const feed = await createRunEventSubscriber({ url, prefix });
    const publisher = await createRunEventPublisher({ url, prefix });
    const call: string[] = [];
    const all: string[] = [];
    const stopCall = feed.listenCall('c1', (s) => call.push(s.event));
    try {
      await publisher.publish(summary({ run_id: 'h1', hook: 'notify' }));
      await publisher.publish(summary({ run_id: 'h2', hook: 'notify' }));
      await publisher.publish(summary({ run_id: 'c1', hook: 'agent:bot', event: 'started', status: 'running' }));
      await waitFor('the call event', () => call.length === 1);
      // One connection's order holds: the hooks' events, published first, would have been taken off before it.
      expect(feed.received).toBe(1);

      const stopAll = feed.listen((s) => all.push(s.run_id));
      await feed.listening();
      await publisher.publish(summary({ run_id: 'h3', hook: 'notify' }));
      await waitFor('the hook event at the full feed', () => all.length === 1);
      expect(all).toEqual(['h3']);
      expect(feed.received).toBe(2);

      stopAll();
      await publisher.publish(summary({ run_id: 'h4', hook: 'notify' }));
      await publisher.publish(summary({ run_id: 'c1', hook: 'agent:bot' }));
      await waitFor('the second call event', () => call.length === 2);
      expect(call).toEqual(['started', 'finished']);
      expect(all).toEqual(['h3']);
      expect(feed.received).toBe(3);
    } finally {
      stopCall();
      await publisher.close();
      await feed.close();
    }
  });
});
