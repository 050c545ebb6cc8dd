/**
 * End to end on a three-node NATS cluster (routes on loopback, the run and
 * ingest streams at three replicas, HOOKS_NATS_URL listing every node), with
 * its own Redis: the fault suite's roles, sink and retrying sender, while the
 * node leading the run stream is SIGKILLed under load and later started again.
 * Counted as a fault: nothing lost, nothing run twice.
 */
import { connect } from 'nats';
import { table } from '../faults/count';
import { FaultRunner } from '../faults/run-fault';
import { World, prng } from '../faults/world';

jest.setTimeout(240_000);

const EVENTS = Number(process.env.FAULT_EVENTS ?? 300);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);

describe(`NATS cluster (${EVENTS} events, seed ${SEED})`, () => {
  const rand = prng(SEED);
  const world = new World(rand, { natsCluster: true });
  const runner = new FaultRunner(world, rand, EVENTS);

  beforeAll(async () => {
    await world.start();
  }, 120_000);

  afterAll(async () => {
    process.stdout.write(`\nNATS cluster: ${EVENTS} events, 2 hooks each, seed ${SEED}\n${table(runner.rows)}\n`);
    await world.stop();
  }, 60_000);

  it('the node leading the run stream SIGKILLed under load, restarted later: nothing lost, nothing run twice', async () => {
    const cluster = world.natsCluster!;
    const W = 8000;
    await runner.fault('nats-node-kill', { windowMs: W, rolesLive: true, noFailures: true }, async (at, notes) => {
      await at(W * 0.3);
      await runner.callsInFlight('nats-node-kill');
      const nc = await connect({ servers: cluster.url.split(',') });
      let leader: number;
      try {
        const info = await (await nc.jetstreamManager()).streams.info('FAULTS_RUNS');
        expect(info.config.num_replicas).toBe(3);
        leader = Number(String(info.cluster?.leader).replace(/^n/, ''));
      } finally {
        await nc.close();
      }
      const victim = cluster.nodes[leader]!;
      await victim.kill('SIGKILL');
      notes.push(`run stream leader n${leader} SIGKILLed at ${Math.round(W * 0.3)} ms`);
      await at(W * 0.8);
      await victim.start();
    });
  });
});
