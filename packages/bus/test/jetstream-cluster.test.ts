/**
 * The run bus on a three-node NATS cluster (routes on loopback, started from
 * nats-server binaries), its stream at three replicas: the conformance suite,
 * and one node SIGKILLed under load while two replicas (each connected to a
 * different node first) consume. Counted: every id whose publish was acked is
 * delivered (nothing lost, asserted); ids delivered again after their handler
 * finished are counted and printed: an ack on its way to the dying leader is
 * lost with it, so JetStream redelivers (at least once, by contract). That a
 * redelivery never runs a run twice is the executor's claim (a compare-and-set
 * in Redis), proven end to end on this cluster by test/cluster/nats-cluster.e2e.
 */
import { connect, type NatsConnection } from 'nats';
import { startNatsCluster, waitForJetStream, type NatsCluster } from '../../../test/support/clusters';
import { uniquePrefix } from '../../../test/support/services';
import { createJetStreamBus, type RunBus } from '../src';
import { runBusConformance } from './conformance';
import { ids, sleep, waitFor } from './support';

jest.setTimeout(120_000);

let cluster: NatsCluster | undefined;
let admin: NatsConnection | undefined;

beforeAll(async () => {
  cluster = await startNatsCluster();
  await waitForJetStream(cluster.url);
  admin = await connect({ servers: cluster.url.split(',') });
}, 60_000);

afterAll(async () => {
  await admin?.close();
  await cluster?.stop();
}, 30_000);

/** One world per test; `url` lets a replica start on another node of the list. */
async function openWorld(extra: { ackWaitMs?: number } = {}) {
  const prefix = uniquePrefix('cbus');
  const buses: RunBus[] = [];
  return {
    prefix,
    stream: `${prefix.toUpperCase()}_RUNS`,
    async replica(url = cluster!.url) {
      const bus = await createJetStreamBus({ url, prefix, replicas: 3, ...extra });
      buses.push(bus);
      return bus;
    },
    async dispose() {
      for (const b of buses) await b.close();
      const jsm = await admin!.jetstreamManager();
      await jsm.streams.delete(`${prefix.toUpperCase()}_RUNS`).catch(() => undefined);
    },
  };
}

runBusConformance('jetstream, three-node cluster, three replicas', () => openWorld());

describe('JetStream bus on a NATS cluster', () => {
  it('keeps its stream at three replicas, one per node', async () => {
    const world = await openWorld();
    try {
      await world.replica();
      const info = await (await admin!.jetstreamManager()).streams.info(world.stream);
      expect(info.config.num_replicas).toBe(3);
      expect(info.cluster?.replicas?.length).toBe(2);
    } finally {
      await world.dispose();
    }
  });

  it('a node SIGKILLed under load loses no acked publish (redeliveries counted)', async () => {
    const world = await openWorld({ ackWaitMs: 2000 });
    const nodes = cluster!.url.split(',');
    try {
      // The victim is the stream's leader: the worst node to lose.
      const first = await world.replica();
      const info = await (await admin!.jetstreamManager()).streams.info(world.stream);
      const leader = Number(String(info.cluster?.leader).replace(/^n/, ''));
      const victim = cluster!.nodes[leader]!;
      // Consumers connect first to a node that survives, so their own reconnect is not what is tested.
      const others = nodes.filter((_, i) => i !== leader).join(',');
      const a = await world.replica(others);
      const b = await world.replica(others.split(',').reverse().join(','));
      const delivered = new Map<string, number>();
      const finished = new Set<string>();
      let doubled = 0;
      const handler = async (id: string) => {
        if (finished.has(id)) doubled += 1;
        delivered.set(id, (delivered.get(id) ?? 0) + 1);
        await sleep(1);
        finished.add(id);
      };
      await a.subscribe(handler, { concurrency: 16 });
      await b.subscribe(handler, { concurrency: 16 });
      const acked: string[] = [];
      let refused = 0;
      // 50 batches of 10 ids, then the leader dies, then publishing goes on until 150 more
      // batches were acked (the stream elected a new leader and the publisher reconnected), bounded.
      const BEFORE = 50;
      const AFTER = 150;
      let afterAcked = 0;
      const deadline = Date.now() + 45_000;
      for (let i = 0; afterAcked < AFTER && Date.now() < deadline; i += 1) {
        if (i === BEFORE) await victim.kill('SIGKILL');
        const batch = ids(`b${i}`, 10);
        // A publish that got no ack may or may not be kept; the platform's sweep covers those.
        const ok = await first.publish(batch).then(
          () => true,
          () => false,
        );
        if (ok) {
          acked.push(...batch);
          if (i >= BEFORE) afterAcked += 1;
        } else {
          refused += 1;
          await sleep(100);
        }
        if (i % 20 === 0) await sleep(20);
      }
      expect(afterAcked).toBe(AFTER);
      await waitFor('every acked id delivered', () => acked.every((id) => finished.has(id)), 60_000);
      // Every message acked by a handler has left the work queue: nothing is held for a late redelivery.
      await waitFor(
        'the work queue to empty',
        async () => {
          // While the cluster settles after the kill, the JetStream API may answer TIMEOUT (the manager's own
          // account check included): that is "not yet", asked again, never the test's failure.
          try {
            const s = await (await admin!.jetstreamManager()).streams.info(world.stream);
            return s.state.messages === 0;
          } catch {
            return false;
          }
        },
        60_000,
      );
      const lost = acked.filter((id) => !finished.has(id)).length;
      process.stdout.write(
        `nats cluster: stream leader n${leader} SIGKILLed after ${BEFORE} publishes of 10 ids, ${AFTER} acked after it: ` +
          `${acked.length} ids acked, ${refused} publishes refused while the stream elected a leader, ` +
          `${lost} lost, ${doubled} delivered again after their handler finished\n`,
      );
      expect(lost).toBe(0);
    } finally {
      await world.dispose();
      // The next test (none today) would want three nodes again.
      if (!cluster!.nodes.every((n) => n.alive)) {
        for (const n of cluster!.nodes) if (!n.alive) await n.start();
      }
    }
  });
});
