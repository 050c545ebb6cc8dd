import { agentTokenHash, loadSettings, silentLogger, systemClock, type AgentClient } from '@hookyard/core';
import {
  createMemoryBus,
  createRunEventHub,
  createRunEventPublisher,
  createRunEventSubscriber,
  summarizeRun,
  type RunEventFeed,
  type RunSummary,
} from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { AgentCalls } from '../src/agent/calls';

/**
 * Waiting agent calls at scale: each waits on its own run's events (routed by
 * run id), so an event costs the same with 1 or 1,000 calls waiting; through
 * NATS, a call's outcome reaches it by its event (the store poll is set past
 * the wait, so nothing else could wake it).
 */

async function addAgent(stores: Stores, name: string): Promise<AgentClient> {
  return stores.agents.create({ name, description: null, tools_allow: ['*'], tokenHash: agentTokenHash(`hya_${name}-token-0123456789abcdef`) }, Date.now());
}

async function succeed(stores: Stores, id: string, result: unknown): Promise<RunSummary> {
  const c = await stores.runs.claim(id, 'test-executor', 30_000, Date.now());
  if (!c) throw new Error(`run ${id} could not be claimed`);
  return summarizeRun(await stores.runs.complete(id, c.token, 'succeeded', result, Date.now()), 'finished');
}

/** The feed, counting what reaches listeners: every-event listeners added, and calls of per-run listeners. */
function countingFeed(inner: RunEventFeed) {
  const n = { listenAll: 0, callListenersCalled: 0 };
  const feed: RunEventFeed = {
    listen(l) {
      n.listenAll += 1;
      return inner.listen(l);
    },
    listening: () => inner.listening(),
    listenCall: (runId, l) =>
      inner.listenCall(runId, (s) => {
        n.callListenersCalled += 1;
        l(s);
      }),
    close: () => inner.close(),
  };
  return { feed, n };
}

const settings = loadSettings({}, { agentWaitMs: 60_000 });

describe('AgentCalls.wait with many calls waiting', () => {
  it("with 1,000 calls waiting, one call's outcome event wakes that call alone (one listener called, none on every event)", async () => {
    const stores = createMemoryStores();
    const hub = createRunEventHub();
    const { feed, n } = countingFeed(hub);
    const calls = new AgentCalls({
      settings,
      stores,
      bus: createMemoryBus(),
      clock: systemClock,
      logger: silentLogger(),
      runEvents: feed,
      slowPollMs: 600_000,
    });
    const agent = await addAgent(stores, 'many');
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) ids.push((await calls.submit(agent, { tool: 'echo', arguments: { i }, via: 'http' })).id);
    const ac = new AbortController();
    const waits = ids.map((id) => calls.wait(agent, id, 60_000, { signal: ac.signal }));
    const x = ids[617]!;
    const xDone = waits[617]!;
    try {
      // Each wait listened before its first read (synchronously, in calls.wait), so none can miss the event.
      const finished = await succeed(stores, x, 'x done');
      await hub.publish(finished);
      expect(await xDone).toMatchObject({ id: x, status: 'succeeded', done: true, result: 'x done' });
      expect(n.callListenersCalled).toBe(1);
      expect(n.listenAll).toBe(0);
      // Another hook's event with a waiting call's run id wakes nobody.
      await hub.publish({ ...finished, run_id: ids[3]!, hook: 'notify' });
      expect(n.callListenersCalled).toBe(1);
    } finally {
      ac.abort();
      await Promise.all(waits);
    }
  }, 60_000);
});

describe('AgentCalls.wait through NATS run events', () => {
  it("a call's outcome arrives by its run event on <prefix>.events.run.*.agent.* (the store poll is set past the wait)", async () => {
    const url = await requireNats();
    const prefix = uniquePrefix('callwait');
    const feed = await createRunEventSubscriber({ url, prefix });
    const publisher = await createRunEventPublisher({ url, prefix });
    const stores = createMemoryStores();
    const calls = new AgentCalls({
      settings,
      stores,
      bus: createMemoryBus(),
      clock: systemClock,
      logger: silentLogger(),
      runEvents: feed,
      slowPollMs: 600_000,
    });
    try {
      const agent = await addAgent(stores, 'natsbot');
      const { id } = await calls.submit(agent, { tool: 'echo', arguments: { a: 1 }, via: 'mcp' });
      const other = (await calls.submit(agent, { tool: 'echo', arguments: { a: 2 }, via: 'mcp' })).id;
      const ac = new AbortController();
      const otherWait = calls.wait(agent, other, 30_000, { signal: ac.signal });
      const outcome = calls.wait(agent, id, 30_000);
      // The wait reads once, then sleeps until an event (the poll is 600 s away, the wait 30 s).
      await publisher.publish(await succeed(stores, id, { echoed: 1 }));
      expect(await outcome).toMatchObject({ id, status: 'succeeded', done: true, result: { echoed: 1 } });
      // The other call is still waiting: its run did not move.
      ac.abort();
      expect(await otherWait).toMatchObject({ id: other, status: 'pending', done: false });
    } finally {
      await publisher.close();
      await feed.close();
    }
  }, 60_000);
});
