import { connect, type NatsConnection } from 'nats';
import { HookyardError } from '@hookyard/core';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createJetStreamBus, RUN_ACK_WAIT_MS, RUN_CONSUMER, type RunBus } from '../src';
import { ensureStream, pullConsumerConfig, workQueueStreamConfig } from '../src/nats-setup';
import { runBusConformance } from './conformance';
import { gate, ids, sleep, startRelay, waitFor } from './support';

let url: string;
let admin: NatsConnection;

beforeAll(async () => {
  url = await requireNats();
  admin = await connect({ servers: url });
});
afterAll(async () => {
  await admin?.close();
});

/** A stream per world; replicas are separate connections sharing its durable consumer. */
async function openWorld(extra: { ackWaitMs?: number } = {}) {
  const prefix = uniquePrefix('bus');
  const buses: RunBus[] = [];
  return {
    prefix,
    stream: `${prefix.toUpperCase()}_RUNS`,
    async replica() {
      const bus = await createJetStreamBus({ url, prefix, ...extra });
      buses.push(bus);
      return bus;
    },
    async dispose() {
      for (const b of buses) await b.close();
      const jsm = await admin.jetstreamManager();
      await jsm.streams.delete(`${prefix.toUpperCase()}_RUNS`).catch(() => undefined);
    },
  };
}

runBusConformance('jetstream', () => openWorld());

describe('JetStream bus', () => {
  it('creates its stream and shared consumer idempotently, as file-backed work queue', async () => {
    const world = await openWorld();
    try {
      const a = await world.replica();
      await world.replica();
      expect(a.kind).toBe('jetstream');
      const jsm = await admin.jetstreamManager();
      const info = await jsm.streams.info(world.stream);
      expect(info.config.subjects).toEqual([`${world.prefix}.runs.ready.>`]);
      expect(info.config.retention).toBe('workqueue');
      expect(info.config.storage).toBe('file');
      const consumer = await jsm.consumers.info(world.stream, RUN_CONSUMER);
      expect(consumer.config.ack_policy).toBe('explicit');
      expect(consumer.config.ack_wait).toBe(RUN_ACK_WAIT_MS * 1e6);
      expect(consumer.config.max_ack_pending).toBeGreaterThan(0);
    } finally {
      await world.dispose();
    }
  });

  it("brings a running deployment's consumer (the old 30 s ack wait) to the current ack wait at start", async () => {
    const world = await openWorld();
    try {
      const jsm = await admin.jetstreamManager();
      await ensureStream(jsm, workQueueStreamConfig(world.stream, `${world.prefix}.runs.ready.>`, 3600_000));
      await jsm.consumers.add(world.stream, pullConsumerConfig(RUN_CONSUMER, 30_000, 4096, 10));
      await world.replica();
      const consumer = await jsm.consumers.info(world.stream, RUN_CONSUMER);
      expect(consumer.config.ack_wait).toBe(RUN_ACK_WAIT_MS * 1e6);
      expect(consumer.config.max_deliver).toBe(10);
    } finally {
      await world.dispose();
    }
  });

  it('keeps pull requests waiting at the server while idle (a standing pull), for no more than its free slots', async () => {
    const world = await openWorld();
    try {
      const bus = await world.replica();
      const seen: string[] = [];
      const sub = await bus.subscribe(async (id) => void seen.push(id), { concurrency: 8 });
      const jsm = await admin.jetstreamManager();
      // An idle subscriber already has its requests open, so a run published now is handed over at once.
      await waitFor('a pull request waiting at the server', async () => (await jsm.consumers.info(world.stream, RUN_CONSUMER)).num_waiting > 0);
      expect((await jsm.consumers.info(world.stream, RUN_CONSUMER)).num_waiting).toBeLessThanOrEqual(8);
      await bus.publish(['late-1']);
      await waitFor('the late id', () => seen.length === 1);
      await bus.publish(['late-2']);
      await waitFor('the second late id', () => seen.length === 2);
      expect(seen).toEqual(['late-1', 'late-2']);
      await sub.stop();
    } finally {
      await world.dispose();
    }
  });

  it('packs many ids into few messages and leaves none behind once handled', async () => {
    const world = await openWorld({ ackWaitMs: 1000 });
    try {
      const bus = await world.replica();
      await bus.publish(ids('m', 250));
      const jsm = await admin.jetstreamManager();
      expect((await jsm.streams.info(world.stream)).state.messages).toBe(3);
      let failures = 0;
      const seen = new Set<string>();
      const sub = await bus.subscribe(
        async (id) => {
          seen.add(id);
          if (id.endsWith('7')) {
            failures += 1;
            throw new Error('boom');
          }
        },
        { concurrency: 16 },
      );
      await waitFor('250 ids', () => seen.size === 250);
      // Acked even where a handler threw: the work queue empties (a work queue drops a message
      // only on its ack), so nothing is left to come back after ack wait.
      await waitFor('the work queue to empty', async () => {
        const [info, consumer] = await Promise.all([jsm.streams.info(world.stream), jsm.consumers.info(world.stream, RUN_CONSUMER)]);
        return info.state.messages === 0 && consumer.num_ack_pending === 0;
      });
      expect((await jsm.consumers.info(world.stream, RUN_CONSUMER)).num_redelivered).toBe(0);
      expect(seen.size).toBe(250);
      expect(failures).toBe(25);
      await sub.stop();
    } finally {
      await world.dispose();
    }
  });

  it('redelivers to another replica a message whose handler never finished before its replica died', async () => {
    const world = await openWorld({ ackWaitMs: 1000 });
    const stuck = gate();
    try {
      const doomed = await world.replica();
      let startedOnDoomed = 0;
      await doomed.subscribe(
        async () => {
          startedOnDoomed += 1;
          await stuck.wait;
        },
        { concurrency: 1 },
      );
      await doomed.publish(['lost-1']);
      await waitFor('the doomed replica to start the run', () => startedOnDoomed === 1);
      await doomed.close(); // the replica "crashes": no ack, no heartbeat

      const survivor = await world.replica();
      const seen: string[] = [];
      const sub = await survivor.subscribe(async (id) => void seen.push(id), { concurrency: 1 });
      await waitFor('redelivery to the survivor', () => seen.includes('lost-1'), 20_000);
      await sub.stop();
    } finally {
      stuck.open();
      await world.dispose();
    }
  });

  it("keeps a slow handler's message alive past ack wait: the other replica never gets it", async () => {
    const world = await openWorld({ ackWaitMs: 1000 });
    try {
      const runs: string[] = [];
      const slow = async (id: string) => {
        runs.push(id);
        await sleep(2500);
      };
      const a = await world.replica();
      const b = await world.replica();
      const subA = await a.subscribe(slow, { concurrency: 1 });
      const subB = await b.subscribe(slow, { concurrency: 1 });
      await a.publish(['slow-1']);
      await waitFor('the slow handler to start', () => runs.length >= 1);
      await subA.stop();
      await subB.stop();
      expect(runs).toEqual(['slow-1']);
    } finally {
      await world.dispose();
    }
  });

  it('rejects a publish while disconnected (unavailable) and works again after the reconnect', async () => {
    const target = new URL(url);
    const relay = await startRelay({ host: target.hostname, port: Number(target.port || 4222) });
    const prefix = uniquePrefix('bus');
    const bus = await createJetStreamBus({ url: relay.url, prefix });
    try {
      const seen: string[] = [];
      const sub = await bus.subscribe(async (id) => void seen.push(id), { concurrency: 2 });
      await relay.cut();
      let err: unknown = null;
      // Poll until the client noticed the loss; each try must settle, never hang.
      for (let i = 0; i < 100 && err === null; i += 1) {
        err = await bus.publish(['gone-1']).then(
          () => null,
          (e: unknown) => e,
        );
        if (err === null) await sleep(50);
      }
      expect(err).toBeInstanceOf(HookyardError);
      expect((err as HookyardError).kind).toBe('unavailable');
      await expect(bus.ping()).rejects.toMatchObject({ kind: 'unavailable' });

      await relay.resume();
      let back = false;
      for (let i = 0; i < 100 && !back; i += 1) {
        back = await bus.ping().then(
          () => true,
          () => false,
        );
        if (!back) await sleep(100);
      }
      expect(back).toBe(true);
      await bus.publish(['back-1']);
      await waitFor('delivery after the reconnect', () => seen.includes('back-1'));
      await sub.stop();
    } finally {
      await bus.close();
      await relay.close();
      const jsm = await admin.jetstreamManager();
      await jsm.streams.delete(`${prefix.toUpperCase()}_RUNS`).catch(() => undefined);
    }
  });

  it('fails to start with unavailable when NATS is not there', async () => {
    const err = await createJetStreamBus({ url: 'nats://127.0.0.1:1', prefix: uniquePrefix('bus') }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HookyardError);
    expect((err as HookyardError).kind).toBe('unavailable');
  });

  it('refuses a prefix that would change the subject shape', async () => {
    await expect(createJetStreamBus({ url, prefix: 'bad prefix.*' })).rejects.toMatchObject({ kind: 'bad_input' });
  });
});
