/**
 * A three-master Redis Cluster and a three-node NATS cluster on loopback, from
 * the redis-server and nats-server binaries, for the cluster tests. Random
 * ports, data in a temp dir, everything killed and removed by stop().
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StorageType } from 'nats';
import { sleep } from './processes';
import { findBinary, freePort, startNats, startRedis, type ServerProcess } from './servers';

const run = promisify(execFile);

export interface RedisCluster {
  nodes: ServerProcess[];
  /** A seed node's URL (HOOKS_REDIS_URL with HOOKS_REDIS_CLUSTER=true). */
  url: string;
  stop(): Promise<void>;
}

async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(findBinary('redis-cli'), ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

/** Three masters, the 16384 slots split between them by `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'hookyard-redis-cluster-'));
  const nodes: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i += 1) {
      const busPort = await freePort();
      nodes.push(
        await startRedis(join(dir, `n${i}`), {
          aof: false,
          extra: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort), '--cluster-node-timeout', '5000'],
        }),
      );
    }
    await redisCli(nodes[0]!.port, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-yes');
    // Every node must agree the cluster is whole before a client is pointed at it.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const infos = await Promise.all(nodes.map((n) => redisCli(n.port, 'cluster', 'info')));
      if (infos.every((i) => i.includes('cluster_state:ok') && i.includes('cluster_known_nodes:3'))) break;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster did not become ok:\n${infos.join('\n')}`);
      await sleep(200);
    }
    return { nodes, url: `redis://127.0.0.1:${nodes[0]!.port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Keys held by each master (DBSIZE), in node order. */
export async function keysPerNode(cluster: RedisCluster): Promise<number[]> {
  return Promise.all(cluster.nodes.map(async (n) => Number((await redisCli(n.port, 'dbsize')).trim())));
}

export interface NatsCluster {
  nodes: ServerProcess[];
  /** Every node's client URL, comma-separated (HOOKS_NATS_URL). */
  url: string;
  stop(): Promise<void>;
}

/** Three nats-server nodes with JetStream, routed to each other on loopback, each with its own store. */
export async function startNatsCluster(name = 'hookyard'): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'hookyard-nats-cluster-'));
  const nodes: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const clientPorts = [await freePort(), await freePort(), await freePort()];
    const routePorts = [await freePort(), await freePort(), await freePort()];
    const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
    await Promise.all(
      clientPorts.map((port, i) =>
        startNats(join(dir, `n${i}`), ['-n', `n${i}`, '--cluster_name', name, '--cluster', `nats://127.0.0.1:${routePorts[i]}`, '--routes', routes], port).then(
          (s) => void (nodes[i] = s),
        ),
      ),
    );
    return { nodes, url: clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(','), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Waits until JetStream of the cluster can place a stream on every node: a
 * fresh cluster first elects a meta leader, and its peers report in after
 * that, so a three-replica stream created the moment the leader answers can
 * still be refused ("no suitable peers for placement") on a busy machine. A
 * throwaway in-memory stream at `replicas` is created (retried) and deleted.
 */
export async function waitForJetStream(url: string, timeoutMs = 30_000, replicas = 3): Promise<void> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: url.split(',') });
  const probe = `HOOKYARD_PROBE_${process.pid}_${Date.now()}`;
  try {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.add({ name: probe, subjects: [`${probe.toLowerCase()}.>`], num_replicas: replicas, storage: StorageType.Memory });
        await jsm.streams.delete(probe);
        return;
      } catch (err) {
        last = err;
      }
      if (Date.now() > deadline) throw new Error(`JetStream of the NATS cluster could not place a ${replicas}-replica stream: ${String(last)}`);
      await sleep(250);
    }
  } finally {
    await nc.close();
  }
}
