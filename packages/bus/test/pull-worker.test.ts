import type { Consumer, ConsumerMessages, JsMsg } from 'nats';
import { silentLogger } from '@hookyard/core';
import { minPullSlots, startPullWorker, type MessageWork } from '../src/pull-worker';

/** A message carrying run ids, recording how it was settled. */
interface FakeMsg {
  ids: string[];
  settled: string[];
  ackedAtTick: number;
}

/**
 * A consumer over a backlog of messages: each fetch hands over up to
 * max_messages at once (what a server with a backlog does) and records its size.
 */
function backlog(messages: FakeMsg[]): { consumer: Consumer; fetches: number[] } {
  const fetches: number[] = [];
  const consumer = {
    async fetch({ max_messages }: { max_messages: number }) {
      fetches.push(max_messages);
      const batch = messages.splice(0, max_messages);
      const iter = {
        stop() {},
        async *[Symbol.asyncIterator]() {
          for (const m of batch) yield m as unknown as JsMsg;
          // An empty backlog: the pull waits (as until its expiry) so the loop does not spin.
          if (batch.length === 0) await new Promise((r) => setTimeout(r, 20));
        },
      };
      return iter as unknown as ConsumerMessages;
    },
  };
  return { consumer: consumer as unknown as Consumer, fetches };
}

let tick = 0;
function msg(ids: string[]): FakeMsg {
  const m: FakeMsg & Record<string, unknown> = { ids, settled: [], ackedAtTick: -1 };
  m.ack = () => {
    m.settled.push('ack');
    m.ackedAtTick = tick;
  };
  m.nak = () => m.settled.push('nak');
  m.term = () => m.settled.push('term');
  m.working = () => m.settled.push('working');
  return m;
}

const prepare = (run: (id: string) => Promise<void>) => (raw: JsMsg): MessageWork => {
  const m = raw as unknown as FakeMsg & { ack(): void };
  return { tasks: m.ids.map((id) => () => run(id)), settle: () => m.ack() };
};

describe('pull worker', () => {
  it('runs the ids of one message side by side, up to the concurrency, and frees a slot before the ack', async () => {
    let running = 0;
    let peak = 0;
    const done: string[] = [];
    const one = msg(Array.from({ length: 30 }, (_, i) => `r${i}`));
    const { consumer } = backlog([one]);
    const worker = startPullWorker({
      consumer, concurrency: 10, heartbeatMs: 10_000, expiresMs: 1000, logger: silentLogger(),
      prepare: prepare(async (id) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running -= 1;
        done.push(id);
      }),
    });
    for (let i = 0; i < 400 && done.length < 30; i += 1) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    expect(done).toHaveLength(30);
    // Ten at a time: the burst is not run one by one, and never past the bound.
    expect(peak).toBe(10);
    expect(one.settled).toEqual(['ack']);
  });

  it('pulls for a handful of free slots at a time while saturated, never for more than are free', async () => {
    const messages = Array.from({ length: 200 }, (_, i) => msg([`r${i}`]));
    const all = [...messages];
    const { consumer, fetches } = backlog(messages);
    let running = 0;
    let peak = 0;
    const worker = startPullWorker({
      consumer, concurrency: 16, heartbeatMs: 10_000, expiresMs: 1000, logger: silentLogger(),
      prepare: prepare(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, Math.random() * 4));
        running -= 1;
      }),
    });
    for (let i = 0; i < 400 && all.some((m) => m.settled.length === 0); i += 1) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    expect(all.every((m) => m.settled.join() === 'ack')).toBe(true);
    expect(peak).toBeLessThanOrEqual(16);
    // The first pull fills every slot; later ones wait for minPullSlots(16) = 2 free slots.
    expect(fetches[0]).toBe(16);
    expect(fetches.filter((n) => n < minPullSlots(16))).toEqual([]);
  });

  it('gathers the acks of one event-loop turn and sends them together; stop() sends what is pending', async () => {
    const messages = Array.from({ length: 8 }, (_, i) => msg([`r${i}`]));
    const all = [...messages];
    const { consumer } = backlog(messages);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let started = 0;
    const worker = startPullWorker({
      consumer, concurrency: 8, heartbeatMs: 10_000, expiresMs: 1000, logger: silentLogger(),
      prepare: prepare(() => {
        started += 1;
        return gate;
      }),
    });
    for (let i = 0; i < 200 && started < 8; i += 1) await new Promise((r) => setTimeout(r, 1));
    expect(started).toBe(8);
    tick = 1;
    open();
    const stopped = worker.stop();
    await stopped;
    // Every task settled in one turn: all acks left in the same batch, and before stop() resolved.
    expect(all.map((m) => m.settled.join())).toEqual(all.map(() => 'ack'));
    expect(new Set(all.map((m) => m.ackedAtTick))).toEqual(new Set([1]));
  });

  it('marks a long-held message in progress from the shared heartbeat', async () => {
    const slow = msg(['slow']);
    const { consumer } = backlog([slow]);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const worker = startPullWorker({
      consumer, concurrency: 2, heartbeatMs: 20, expiresMs: 1000, logger: silentLogger(),
      prepare: prepare(() => gate),
    });
    // Counted, not timed: the task holds its message until the heartbeat marked it four times.
    const beats = () => slow.settled.filter((s) => s === 'working').length;
    for (let i = 0; i < 2000 && beats() < 4; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(beats()).toBeGreaterThanOrEqual(4);
    expect(slow.settled).not.toContain('ack');
    open();
    await worker.stop();
    expect(slow.settled[slow.settled.length - 1]).toBe('ack');
  });

  it('settles nothing after abort(), as after a crash', async () => {
    const m = msg(['a']);
    const { consumer } = backlog([m]);
    let ran!: () => void;
    const hasRun = new Promise<void>((r) => (ran = r));
    const worker = startPullWorker({
      consumer, concurrency: 2, heartbeatMs: 10_000, expiresMs: 1000, logger: silentLogger(),
      prepare: prepare(async () => ran()),
    });
    // The task settled; its ack waits for the next turn of the loop, and the crash comes first.
    await hasRun;
    worker.abort();
    await new Promise((r) => setTimeout(r, 10));
    expect(m.settled).toEqual([]);
  });
});
