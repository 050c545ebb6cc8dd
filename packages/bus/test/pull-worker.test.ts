import type { JsMsg } from 'nats';
import { silentLogger } from '@hookyard/core';
import type { PullSourceHandlers } from '../src/pull-source';
import { minPullSlots, startPullWorker, type MessageWork, type PullWorkerOptions } from '../src/pull-worker';

/** A message carrying run ids, recording how it was settled. */
interface FakeMsg {
  ids: string[];
  settled: string[];
  ackedAtTick: number;
}

/**
 * A standing pull over a backlog: each request stays open until it got its
 * batch (what JetStream does with a pull request that has not expired), and a
 * message added later goes to an open request at once. Records every request.
 */
function backlog(messages: FakeMsg[]): {
  open: PullWorkerOptions['open'];
  requests: number[];
  add(m: FakeMsg): void;
  outstanding(): number;
  /** Every open request expires (the server's 408 naming what was left), as after the pull's expiry. */
  expireAll(): void;
} {
  const requests: number[] = [];
  let outstanding = 0;
  let handlers: PullSourceHandlers | null = null;
  let closed = false;
  const deliver = () => {
    while (!closed && handlers && outstanding > 0 && messages.length > 0) {
      outstanding -= 1;
      handlers.message(messages.shift() as unknown as JsMsg);
    }
  };
  return {
    requests,
    outstanding: () => outstanding,
    add(m) {
      messages.push(m);
      deliver();
    },
    expireAll() {
      outstanding = 0;
      handlers?.changed();
    },
    open(h) {
      handlers = h;
      return {
        request(batch) {
          requests.push(batch);
          outstanding += batch;
          // Delivered on a later turn, as over a socket.
          setImmediate(deliver);
        },
        outstanding: () => outstanding,
        close() {
          closed = true;
        },
      };
    },
  };
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

const prepare =
  (run: (id: string) => Promise<void>) =>
  (raw: JsMsg): MessageWork => {
    const m = raw as unknown as FakeMsg & { ack(): void };
    return { tasks: m.ids.map((id) => () => run(id)), settle: () => m.ack() };
  };

describe('pull worker', () => {
  it('runs the ids of one message side by side, up to the concurrency, and frees a slot before the ack', async () => {
    let running = 0;
    let peak = 0;
    const done: string[] = [];
    const one = msg(Array.from({ length: 30 }, (_, i) => `r${i}`));
    const { open } = backlog([one]);
    const worker = startPullWorker({
      open,
      concurrency: 10,
      heartbeatMs: 10_000,
      logger: silentLogger(),
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

  it('keeps requests open for a handful of free slots at a time while saturated, never for more than are free', async () => {
    const messages = Array.from({ length: 200 }, (_, i) => msg([`r${i}`]));
    const all = [...messages];
    const source = backlog(messages);
    const { open, requests } = source;
    let running = 0;
    let peak = 0;
    let peakAsked = 0;
    const worker = startPullWorker({
      open,
      concurrency: 16,
      heartbeatMs: 10_000,
      logger: silentLogger(),
      prepare: prepare(async () => {
        running += 1;
        peak = Math.max(peak, running);
        peakAsked = Math.max(peakAsked, running + source.outstanding());
        await new Promise((r) => setTimeout(r, Math.random() * 4));
        running -= 1;
      }),
    });
    for (let i = 0; i < 400 && all.some((m) => m.settled.length === 0); i += 1) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    expect(all.every((m) => m.settled.join() === 'ack')).toBe(true);
    expect(peak).toBeLessThanOrEqual(16);
    // Tasks running plus messages asked for never pass the bound.
    expect(peakAsked).toBeLessThanOrEqual(16);
    // The first request asks for every slot; later ones for minPullSlots(16) = 2 missing or more.
    expect(requests[0]).toBe(16);
    expect(requests.filter((n) => n < minPullSlots(16))).toEqual([]);
  });

  it('gathers the acks of one event-loop turn and sends them together; stop() sends what is pending', async () => {
    const messages = Array.from({ length: 8 }, (_, i) => msg([`r${i}`]));
    const all = [...messages];
    const { open } = backlog(messages);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const worker = startPullWorker({
      open,
      concurrency: 8,
      heartbeatMs: 10_000,
      logger: silentLogger(),
      prepare: prepare(() => {
        started += 1;
        return gate;
      }),
    });
    for (let i = 0; i < 200 && started < 8; i += 1) await new Promise((r) => setTimeout(r, 1));
    expect(started).toBe(8);
    tick = 1;
    release();
    const stopped = worker.stop();
    await stopped;
    // Every task settled in one turn: all acks left in the same batch, and before stop() resolved.
    expect(all.map((m) => m.settled.join())).toEqual(all.map(() => 'ack'));
    expect(new Set(all.map((m) => m.ackedAtTick))).toEqual(new Set([1]));
  });

  it('marks a long-held message in progress from the shared heartbeat', async () => {
    const slow = msg(['slow']);
    const { open } = backlog([slow]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = startPullWorker({
      open,
      concurrency: 2,
      heartbeatMs: 20,
      logger: silentLogger(),
      prepare: prepare(() => gate),
    });
    // Counted, not timed: the task holds its message until the heartbeat marked it four times.
    const beats = () => slow.settled.filter((s) => s === 'working').length;
    for (let i = 0; i < 2000 && beats() < 4; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(beats()).toBeGreaterThanOrEqual(4);
    expect(slow.settled).not.toContain('ack');
    release();
    await worker.stop();
    expect(slow.settled[slow.settled.length - 1]).toBe('ack');
  });

  it('settles nothing after abort(), as after a crash', async () => {
    const m = msg(['a']);
    const { open } = backlog([m]);
    let ran!: () => void;
    const hasRun = new Promise<void>((r) => (ran = r));
    const worker = startPullWorker({
      open,
      concurrency: 2,
      heartbeatMs: 10_000,
      logger: silentLogger(),
      prepare: prepare(async () => ran()),
    });
    // The task settled; its ack waits for the next turn of the loop, and the crash comes first.
    await hasRun;
    worker.abort();
    await new Promise((r) => setTimeout(r, 10));
    expect(m.settled).toEqual([]);
  });

  it('has requests waiting while idle, so a message stored later is handed over without a new request', async () => {
    const source = backlog([]);
    const done: string[] = [];
    const worker = startPullWorker({
      open: source.open,
      concurrency: 8,
      heartbeatMs: 10_000,
      logger: silentLogger(),
      prepare: prepare(async (id) => {
        done.push(id);
      }),
    });
    // Nothing to do yet: every slot already has a request open at the server.
    expect(source.requests).toEqual([8]);
    expect(source.outstanding()).toBe(8);
    const late = msg(['late']);
    source.add(late);
    for (let i = 0; i < 100 && late.settled.length < 1; i += 1) await new Promise((r) => setTimeout(r, 1));
    expect(late.settled).toEqual(['ack']);
    expect(done).toEqual(['late']);
    // The delivery counted one off; once its slot was free again one request (minPullSlots(8) = 1) put it back.
    expect(source.requests).toEqual([8, 1]);
    expect(source.outstanding()).toBe(8);
    await worker.stop();
  });

  it('keeps a request open while a slot is free when messages carry many ids (the door batches them)', async () => {
    const source = backlog([]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const done: string[] = [];
    const worker = startPullWorker({
      open: source.open,
      concurrency: 48,
      heartbeatMs: 10_000,
      logger: silentLogger(),
      prepare: prepare(async (id) => {
        if (id.startsWith('held')) await gate;
        done.push(id);
      }),
    });
    // The door's batches: 12 ids a message, so the worker learns to ask for about free / 12 messages.
    const fast = Array.from({ length: 15 }, (_, m) => msg(Array.from({ length: 12 }, (_, i) => `f${m}-${i}`)));
    for (const m of fast) source.add(m);
    for (let i = 0; i < 400 && fast.some((m) => m.settled.length === 0); i += 1) await new Promise((r) => setTimeout(r, 1));
    expect(fast.every((m) => m.settled.join() === 'ack')).toBe(true);
    // One message whose tasks stay running, then every open request expires at the server.
    const held = msg(Array.from({ length: 12 }, (_, i) => `held${i}`));
    // Delivered at once (a request is open), its tasks started in the same turn.
    source.add(held);
    source.expireAll();
    // 36 slots are free while 12 tasks run: a request must be open at the server again, not only once all are idle.
    expect(source.outstanding()).toBeGreaterThanOrEqual(1);
    const late = msg(['late']);
    source.add(late);
    for (let i = 0; i < 100 && late.settled.length === 0; i += 1) await new Promise((r) => setTimeout(r, 1));
    expect(late.settled).toEqual(['ack']);
    expect(held.settled).toEqual([]);
    release();
    await worker.stop();
    expect(held.settled).toEqual(['ack']);
  });
});
