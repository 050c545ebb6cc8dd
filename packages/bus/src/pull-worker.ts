import type { Consumer, ConsumerMessages, JsMsg } from 'nats';
import type { Logger } from '@hookyard/core';
import { toBusError } from './nats-errors';

/** What one pulled message asks of this process: tasks to run, then how to settle the message. */
export interface MessageWork {
  tasks: Array<() => Promise<unknown>>;
  /** Called once every task settled (ack, nak or term the message). */
  settle(outcomes: PromiseSettledResult<unknown>[]): void;
}

export interface PullWorkerOptions {
  consumer: Consumer;
  /** Tasks in flight at most, across all messages this worker holds. */
  concurrency: number;
  /** How often a held message is marked "in progress" so its ack wait does not lapse. */
  heartbeatMs: number;
  /** How long one pull request waits at the server for messages. */
  expiresMs: number;
  logger: Logger;
  prepare(msg: JsMsg): MessageWork;
}

export interface PullWorker {
  /** Stops pulling, lets tasks in flight finish; messages with tasks never started are nak'ed. */
  stop(): Promise<void>;
  /** As after a crash: stops pulling and heartbeats, settles nothing. The server redelivers after ack wait. */
  abort(): void;
}

interface Held {
  msg: JsMsg;
  work: MessageWork;
  outcomes: PromiseSettledResult<unknown>[];
  remaining: number;
  /** Set on stop when some task was dropped: the message goes back to the server instead. */
  abandoned: boolean;
  heartbeat: NodeJS.Timeout;
}

/**
 * Pulls only as many messages as it has free task slots, so a message never
 * waits in a local buffer while its ack wait runs; a message carrying more
 * tasks than free slots queues them here and is kept alive by heartbeats.
 */
export function startPullWorker(opts: PullWorkerOptions): PullWorker {
  const queue: Array<{ held: Held; index: number; task: () => Promise<unknown> }> = [];
  const held = new Set<Held>();
  let inFlight = 0;
  // Running mean of tasks per message, so a pull asks for about as many
  // messages as there are free slots (a 100-id message fills 100 slots).
  let tasksPerMessage = 1;
  let stopping = false;
  let aborted = false;
  let current: ConsumerMessages | null = null;
  let wake: (() => void) | null = null;
  let idle: (() => void) | null = null;

  const hasCapacity = () => queue.length === 0 && inFlight < opts.concurrency;
  const notify = () => {
    if (wake && (stopping || hasCapacity())) {
      const w = wake;
      wake = null;
      w();
    }
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

  const finish = (h: Held) => {
    clearInterval(h.heartbeat);
    held.delete(h);
    if (aborted) return;
    if (h.abandoned) safely('nak a message on stop', () => h.msg.nak());
    else safely('settle a message', () => h.work.settle(h.outcomes));
  };

  const pump = () => {
    while (!aborted && inFlight < opts.concurrency && queue.length > 0) {
      const item = queue.shift()!;
      inFlight += 1;
      Promise.resolve()
        .then(item.task)
        .then(
          (value) => ({ status: 'fulfilled', value }) as const,
          (reason: unknown) => ({ status: 'rejected', reason }) as const,
        )
        .then((outcome) => {
          inFlight -= 1;
          item.held.outcomes[item.index] = outcome;
          item.held.remaining -= 1;
          if (item.held.remaining === 0) finish(item.held);
          pump();
          notify();
        });
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
      outcomes: new Array(work.tasks.length),
      remaining: work.tasks.length,
      abandoned: false,
      heartbeat: setInterval(() => safely('mark a message in progress', () => msg.working()), opts.heartbeatMs),
    };
    h.heartbeat.unref();
    held.add(h);
    if (work.tasks.length === 0) return finish(h);
    work.tasks.forEach((task, index) => queue.push({ held: h, index, task }));
    pump();
  };

  const loop = async () => {
    while (!stopping) {
      if (!hasCapacity()) await new Promise<void>((resolve) => (wake = resolve));
      if (stopping) break;
      try {
        const wanted = Math.max(1, Math.floor((opts.concurrency - inFlight) / tasksPerMessage));
        current = await opts.consumer.fetch({ max_messages: wanted, expires: opts.expiresMs });
        if (stopping) current.stop();
        for await (const msg of current) accept(msg);
      } catch (err) {
        if (stopping) break;
        opts.logger.warn({ err: toBusError(err, 'pull messages') }, 'pull failed; retrying');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 1000).unref();
        });
        wake = null;
      } finally {
        current = null;
      }
    }
  };
  const loopDone = loop();

  const halt = () => {
    stopping = true;
    current?.stop();
    notify();
    // Tasks not started are dropped; their messages go back to the server once
    // the tasks already running settled.
    for (const item of queue.splice(0)) {
      item.held.abandoned = true;
      item.held.remaining -= 1;
      if (item.held.remaining === 0) finish(item.held);
    }
  };

  return {
    async stop() {
      halt();
      await loopDone;
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
    },
    abort() {
      aborted = true;
      halt();
      for (const h of held) clearInterval(h.heartbeat);
      held.clear();
    },
  };
}
