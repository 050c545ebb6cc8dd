import { AGENT_CALL_TOPIC, agentTokenHash, loadSettings, silentLogger, systemClock, type AgentClient } from '@hookyard/core';
import {
  acceptedSummaries,
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
import { viewAfterEvent, type CallView } from '../src/agent/call-view';

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

/** Memory stores whose `runs.get` counts its reads; `reads(k)` settles once k reads have answered. */
function countingReads() {
  const stores = createMemoryStores();
  const get = stores.runs.get.bind(stores.runs);
  const n = { reads: 0 };
  const waiting: Array<{ k: number; resolve: () => void }> = [];
  stores.runs.get = async (id) => {
    const run = await get(id);
    n.reads += 1;
    for (const w of waiting.filter((w) => w.k <= n.reads)) w.resolve();
    return run;
  };
  const reads = (k: number) => new Promise<void>((resolve) => (k <= n.reads ? resolve() : waiting.push({ k, resolve })));
  return { stores, n, reads };
}

/** Records each reported status; `reached(status)` settles once that status was reported. */
function progressLog() {
  const seen: string[] = [];
  const waiting: Array<{ status: string; resolve: () => void }> = [];
  const onProgress = (v: CallView) => {
    seen.push(v.status);
    for (const w of waiting.filter((w) => w.status === v.status)) w.resolve();
  };
  const reached = (status: string) => new Promise<void>((resolve) => (seen.includes(status) ? resolve() : waiting.push({ status, resolve })));
  return { seen, onProgress, reached };
}

describe('AgentCalls.wait reads the run only when an event cannot tell', () => {
  it('accepted and started cost no read; the outcome is read once (two reads in all, the state reported at each step)', async () => {
    const { stores, n, reads } = countingReads();
    const hub = createRunEventHub();
    const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger(), runEvents: hub, slowPollMs: 600_000 });
    const agent = await addAgent(stores, 'reads');
    const { id } = await calls.submit(agent, { tool: 'echo', arguments: { a: 1 }, via: 'mcp' });
    const log = progressLog();
    const outcome = calls.wait(agent, id, 60_000, { untilDone: true, reportFirst: true, onProgress: log.onProgress });
    await reads(1);
    for (const s of acceptedSummaries(AGENT_CALL_TOPIC, [{ id, hook: 'agent:reads' }], Date.now())) await hub.publish(s);
    const c = await stores.runs.claim(id, 'test-executor', 30_000, Date.now());
    if (!c) throw new Error('not claimed');
    await hub.publish(summarizeRun(c.run, 'started'));
    await log.reached('running');
    expect(n.reads).toBe(1);
    await hub.publish(summarizeRun(await stores.runs.complete(id, c.token, 'succeeded', { echoed: 1 }, Date.now()), 'finished'));
    expect(await outcome).toMatchObject({ id, status: 'succeeded', done: true, result: { echoed: 1 } });
    expect(log.seen).toEqual(['pending', 'running']);
    expect(n.reads).toBe(2);
  });

  it('an event that would step back (an `accepted` arriving after `started`) is read, never taken as the state', async () => {
    const { stores, n, reads } = countingReads();
    const hub = createRunEventHub();
    const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger(), runEvents: hub, slowPollMs: 600_000 });
    const agent = await addAgent(stores, 'late');
    const { id } = await calls.submit(agent, { tool: 'echo', arguments: { a: 2 }, via: 'mcp' });
    const log = progressLog();
    const ac = new AbortController();
    const outcome = calls.wait(agent, id, 60_000, { signal: ac.signal, untilDone: true, onProgress: log.onProgress });
    await reads(1);
    const c = await stores.runs.claim(id, 'test-executor', 30_000, Date.now());
    if (!c) throw new Error('not claimed');
    await hub.publish(summarizeRun(c.run, 'started'));
    await log.reached('running');
    const [late] = acceptedSummaries(AGENT_CALL_TOPIC, [{ id, hook: 'agent:late' }], Date.now());
    await hub.publish(late!);
    // The late event is read (the started one was not): the store says running still, and the abort ends the wait.
    await reads(2);
    ac.abort();
    expect(await outcome).toMatchObject({ id, status: 'running', done: false });
    expect(log.seen).toEqual(['running']);
    expect(n.reads).toBe(2);
  });
});

describe('AgentCalls.submit with follow: the wait of a new call starts from what was kept', () => {
  it('no read before the outcome: the events held since the keep (accepted, started) are read alone, the outcome once', async () => {
    const { stores, n } = countingReads();
    const hub = createRunEventHub();
    const calls = new AgentCalls({
      settings,
      stores,
      bus: createMemoryBus(),
      clock: systemClock,
      logger: silentLogger(),
      runEvents: hub,
      events: hub,
      slowPollMs: 600_000,
    });
    const agent = await addAgent(stores, 'follow');
    const kept = await calls.submit(agent, { tool: 'echo', arguments: { a: 3 }, via: 'mcp' }, { follow: true });
    const { id, follow } = kept;
    expect(follow?.view).toMatchObject({ id, agent: 'follow', tool: 'echo', status: 'pending', done: false });
    try {
      // Before the wait attaches: its accepted event (published by submit) and its start are held for it.
      const c = await stores.runs.claim(id, 'test-executor', 30_000, Date.now());
      if (!c) throw new Error('not claimed');
      await hub.publish(summarizeRun(c.run, 'started'));
      const log = progressLog();
      const outcome = calls.wait(agent, id, 60_000, { untilDone: true, reportFirst: true, onProgress: log.onProgress, follow });
      await log.reached('running');
      expect(n.reads).toBe(0);
      await hub.publish(summarizeRun(await stores.runs.complete(id, c.token, 'succeeded', { echoed: 3 }, Date.now()), 'finished'));
      expect(await outcome).toEqual(await calls.view(agent, id));
      expect(log.seen).toEqual(['pending', 'running']);
      // The wait's one read (the outcome), and the check's above.
      expect(n.reads).toBe(2);
    } finally {
      follow?.stop();
    }
  });

  it('the kept view is the view a read gives of the new call', async () => {
    const stores = createMemoryStores();
    const hub = createRunEventHub();
    const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger(), runEvents: hub });
    const agent = await addAgent(stores, 'same');
    const { id, follow } = await calls.submit(agent, { tool: 'echo', arguments: { b: 1 }, via: 'mcp' }, { follow: true });
    follow?.stop();
    expect(follow?.view).toEqual(await calls.view(agent, id));
    // A call joining an open one is no new call: nothing to follow, its wait reads.
    const joined = await calls.submit(agent, { tool: 'echo', arguments: { b: 1 }, via: 'mcp' }, { follow: true });
    expect(joined).toMatchObject({ id, joined: true });
    expect(joined.follow).toBeUndefined();
  });
});

describe('viewAfterEvent', () => {
  const waiting: CallView = { id: 'r1', agent: 'a', tool: 'echo', status: 'pending', done: false, sentence: 'waits' };
  it.each([
    ['pending', 'pending', 'same'],
    ['pending', 'running', 'running'],
    ['running', 'running', 'same'],
    ['retry_wait', 'running', 'running'],
    ['parked', 'running', 'running'],
    ['running', 'pending', 'read'],
    ['pending', 'parked', 'read'],
    ['parked', 'parked', 'read'],
    ['retry_wait', 'retry_wait', 'read'],
    ['running', 'succeeded', 'read'],
    ['running', 'failed', 'read'],
  ] as const)('seen %s, event %s: %s', (from, event, expected) => {
    const v: CallView = { ...waiting, status: from };
    const next = viewAfterEvent(v, event);
    if (expected === 'read') expect(next).toBeNull();
    else if (expected === 'same') expect(next).toBe(v);
    else expect(next).toEqual({ id: 'r1', agent: 'a', tool: 'echo', status: 'running', done: false, sentence: expect.stringContaining('(r1) is running') });
  });
});
