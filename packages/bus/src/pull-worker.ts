import { performance } from 'node:perf_hooks';
import type { JsMsg } from 'nats';
import type { Logger } from '@hookyard/core';
import { toBusError } from './nats-errors';
import type { PullSource, PullSourceHandlers } from './pull-source';

/** What one pulled message asks of this process: tasks to run, then how to settle the message. */
export interface MessageWork {
  tasks: Array<() => Promise<unknown>>;
  /** Called once every task settled (ack, nak or term the message). */
  settle(outcomes: PromiseSettledResult<unknown>[]): void;
}

export interface PullWorkerOptions {
  /** Opens the standing pull the worker asks through (JetStream: openJetStreamPullSource). */
  open(handlers: PullSourceHandlers): PullSource;
  /** Tasks in flight at most, across all messages this worker holds. */
  concurrency: number;
  /** How often a held message is marked "in progress" so its ack wait does not lapse. */
  heartbeatMs: number;
  logger: Logger;
  prepare(msg: JsMsg): MessageWork;
}

export interface PullWorker {
  /** Stops pulling, lets tasks in flight finish; messages with tasks never started are nak'ed. */
  stop(): Promise<void>;
  /** As after a crash: stops pulling and heartbeats, settles nothing. The server redelivers after ack wait. */
  abort(): void;
  /** Tasks in flight at most from now on; tasks running are never cancelled (shrinking only stops admitting). */
  resize(concurrency: number): void;
}

interface Held {
  msg: JsMsg;
  work: MessageWork;
  outcomes: PromiseSettledResult<unknown>[];
  remaining: number;
  /** Set on stop when some task was dropped: the message goes back to the server instead. */
  abandoned: boolean;
  /** performance.now() of its receipt or its last "in progress" mark. */
  markedAt: number;
}

interface Item {
  held: Held;
  index: number;
  task: () => Promise<unknown>;
}

/**
 * The fewest free slots, not yet asked for, worth a new pull request while
 * tasks run: a request is a publish the server parses and queues, so asking
 * again for every single slot freed would cost about as much as the message
 * itself. With nothing running the worker asks for all its free slots at once.
 */
export function minPullSlots(concurrency: number): number {
  return Math.max(1, Math.min(concurrency, Math.floor(concurrency / 8)));
}

/**
 * Keeps pull requests open at the server for every free task slot (a standing
 * pull: an idle worker already has requests waiting, so a message is handed
 * over as soon as it is stored), and never for more than are free, so a
 * message never waits in a local buffer while its ack wait runs; a message
 * carrying more tasks than free slots queues them here and is kept alive by
 * heartbeats.
 *
 * Per message nothing but the message itself: one heartbeat timer for all the
 * messages held (each marked "in progress" once it is heartbeatMs/2 old, so
 * never more than heartbeatMs apart), and settles (acks) gathered over one
 * turn of the event loop so they leave in one socket write. A slot is free
 * the moment its task settled, before its message is acknowledged.
 */
export function startPullWorker(opts: PullWorkerOptions): PullWorker {
  const queue: Item[] = [];
  const held = new Set<Held>();
  let inFlight = 0;
  // Running mean of tasks per message, so a pull asks for about as many
  // messages as there are free slots (a 100-id message fills 100 slots).
  let tasksPerMessage = 1;
  let stopping = false;
  let aborted = false;
  let idle: (() => void) | null = null;
  let concurrency = opts.concurrency;
  let minPull = minPullSlots(concurrency);
  let heartbeat: NodeJS.Timeout | undefined;
  let toSettle: Held[] = [];
  let settling: NodeJS.Immediate | undefined;

  // Counted in slots, not messages: the slots free that no open request will fill (each message asked for fills
  // about tasksPerMessage). A new request goes out once minPull or more slots are unasked for, or for any when
  // nothing runs (a trickle never waits), and asks for the messages that fill them (at least one). Counting
  // messages against minPull instead left a worker whose messages carry many ids (the door batches them) with
  // no request open until it went idle, while its free slots waited.
  const topUp = () => {
    if (stopping || aborted) return;
    const free = concurrency - inFlight - queue.length;
    const unasked = free - source.outstanding() * tasksPerMessage;
    if (unasked <= 0 || (unasked < minPull && inFlight > 0)) return;
    source.request(Math.max(1, Math.floor(unasked / tasksPerMessage)));
  };
  const notify = () => {
    topUp();
    if (idle && inFlight === 0) idle();
  };
  const safely = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      // The connection is gone: the server redelivers after ack wait.
      opts.logger.debug({ err: toBusError(err, what) }, 'could not settle a message');
    }
  };

  const beat = () => {
    const due = performance.now() - opts.heartbeatMs / 2;
    for (const h of held) {
      if (h.markedAt > due) continue;
      h.markedAt = performance.now();
      safely('mark a message in progress', () => h.msg.working());
    }
  };

  const settleNow = () => {
    settling = undefined;
    const batch = toSettle;
    toSettle = [];
    if (aborted) return;
    for (const h of batch) {
      if (h.abandoned) safely('nak a message on stop', () => h.msg.nak());
      else safely('settle a message', () => h.work.settle(h.outcomes));
    }
  };

  const finish = (h: Held) => {
    held.delete(h);
    if (held.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
    if (aborted) return;
    toSettle.push(h);
    settling ??= setImmediate(settleNow);
  };

  const runTask = async (item: Item) => {
    let outcome: PromiseSettledResult<unknown>;
    try {
      outcome = { status: 'fulfilled', value: await item.task() };
    } catch (reason) {
      outcome = { status: 'rejected', reason };
    }
    inFlight -= 1;
    item.held.outcomes[item.index] = outcome;
    item.held.remaining -= 1;
    if (item.held.remaining === 0) finish(item.held);
    pump();
    notify();
  };

  const pump = () => {
    while (!aborted && inFlight < concurrency && queue.length > 0) {
      inFlight += 1;
      void runTask(queue.shift()!);
    }
  };

  const accept = (msg: JsMsg) => {
    if (stopping) {
      if (!aborted) safely('nak a message on stop', () => msg.nak());
      return;
    }
    let work: MessageWork;
    try {
      work = opts.prepare(msg);
    } catch (err) {
      opts.logger.error({ err }, 'could not read a pulled message; terminating it');
      safely('term an unreadable message', () => msg.term());
      return;
    }
    tasksPerMessage = tasksPerMessage * 0.8 + Math.max(1, work.tasks.length) * 0.2;
    const h: Held = {
      msg,
      work,
      outcomes: new Array<PromiseSettledResult<unknown>>(work.tasks.length),
      remaining: work.tasks.length,
      abandoned: false,
      markedAt: performance.now(),
    };
    held.add(h);
    if (!heartbeat) {
      heartbeat = setInterval(beat, Math.max(1, Math.floor(opts.heartbeatMs / 2)));
      heartbeat.unref();
    }
    if (work.tasks.length === 0) return finish(h);
    for (let index = 0; index < work.tasks.length; index += 1) queue.push({ held: h, index, task: work.tasks[index]! });
    pump();
  };

  const source = opts.open({
    message: (msg) => {
      accept(msg);
      topUp();
    },
    changed: topUp,
  });
  topUp();

  const halt = () => {
    stopping = true;
    // Deliveries still on their way are dropped with the subscription: the server redelivers them after ack wait.
    source.close();
    if (idle && inFlight === 0) idle();
    // Tasks not started are dropped; their messages go back to the server once
    // the tasks already running settled.
    for (const item of queue.splice(0)) {
      item.held.abandoned = true;
      item.held.remaining -= 1;
      if (item.held.remaining === 0) finish(item.held);
    }
  };

  return {
    resize(n) {
      concurrency = n;
      minPull = minPullSlots(n);
      pump();
      notify();
    },
    async stop() {
      halt();
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      // Acks gathered for the next turn leave now, before the caller closes the connection.
      if (settling) {
        clearImmediate(settling);
        settleNow();
      }
    },
    abort() {
      aborted = true;
      halt();
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      held.clear();
      if (settling) clearImmediate(settling);
      settling = undefined;
      toSettle = [];
    },
  };
}
