/**
 * The run stream moves to the storage it is configured with (HOOKS_NATS_STORAGE)
 * at start, on the real nats-server: a file-backed stream as earlier versions
 * made it, holding dispatches nobody has taken yet, becomes a memory one and
 * those dispatches are delivered from it; replicas starting together move it
 * once; a lock left by a replica that died mid-move is taken over; and a
 * single server that forgot a memory stream in a restart gets it back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers, StorageType, type JetStreamManager, type NatsConnection, type StreamUpdateConfig } from 'nats';
import { silentLogger, type Logger } from '@hookyard/core';
import { startNats } from '../../../test/support/servers';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import { createJetStreamBus, RUN_CONSUMER, runSubject, type RunBus } from '../src';
import { ensureConsumer, pullConsumerConfig, workQueueStreamConfig } from '../src/nats-setup';
import { ensureStreamStorage } from '../src/stream-move';
import { waitFor } from './support';

let url: string;
let admin: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  url = await requireNats();
  admin = await connect({ servers: url });
  jsm = await admin.jetstreamManager();
});
afterAll(async () => {
  await admin?.close();
});

/** Log lines as `<level> <message>` with their objects, for asserting what a move said. */
function recordingLogger() {
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (obj: unknown, msg?: string): void =>
      void lines.push({ level, msg: msg ?? String(obj), obj: typeof obj === 'object' && obj ? (obj as Record<string, unknown>) : {} });
  const logger: Logger = { level: 'debug', debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return { logger, lines };
}

/** A world with the run stream as the file-backed version made it: stream, shared consumer, `pending` messages of ids. */
async function oldWorld(pending: string[][]) {
  const prefix = uniquePrefix('mv');
  const stream = `${prefix.toUpperCase()}_RUNS`;
  await jsm.streams.add(workQueueStreamConfig(stream, `${prefix}.runs.ready.>`, 3600_000, 1, 'file'));
  await ensureConsumer(jsm, stream, pullConsumerConfig(RUN_CONSUMER, 30_000, 4096, 10));
  const js = admin.jetstream();
  // One taken and acknowledged first, so the stream starts past a gap as a live one does.
  await js.publish(runSubject(prefix), JSON.stringify(['done-0']));
  const first = await (await js.consumers.get(stream, RUN_CONSUMER)).next({ expires: 5000 });
  first!.ack();
  await waitFor('the first message to leave', async () => (await jsm.streams.info(stream)).state.messages === 0);
  for (const [i, chunk] of pending.entries()) {
    const h = headers();
    h.set('traceparent', `00-${String(i).padStart(32, '0')}-${'1'.padStart(16, '0')}-01`);
    await js.publish(runSubject(prefix), JSON.stringify(chunk), { headers: h });
  }
  const buses: RunBus[] = [];
  return {
    prefix,
    stream,
    async bus(logger: Logger = silentLogger()) {
      const bus = await createJetStreamBus({ url, prefix, logger, storage: 'memory' });
      buses.push(bus);
      return bus;
    },
    async dispose() {
      for (const b of buses) await b.close();
      await jsm.streams.delete(stream).catch(() => undefined);
      await jsm.streams.delete(`${stream}_MOVING`).catch(() => undefined);
    },
  };
}

/** Every id the bus delivers until `want` have come, with each delivery's traceparent. */
async function drain(bus: RunBus, want: number) {
  const seen: { id: string; traceparent?: string }[] = [];
  const sub = await bus.subscribe(async (id, traceparent) => void seen.push({ id, traceparent }), { concurrency: 8 });
  await waitFor(`${want} ids delivered`, () => seen.length >= want, 20_000);
  await sub.stop();
  return seen;
}

describe('run stream storage', () => {
  it('moves a file-backed run stream to memory at start and delivers what it held, logging what moved', async () => {
    const world = await oldWorld([['a-1', 'a-2'], ['b-1'], ['c-1', 'c-2', 'c-3']]);
    try {
      expect((await jsm.streams.info(world.stream)).config.storage).toBe(StorageType.File);
      const { logger, lines } = recordingLogger();
      const bus = await world.bus(logger);

      const info = await jsm.streams.info(world.stream);
      expect(info.config.storage).toBe(StorageType.Memory);
      expect(info.config.sealed).toBeFalsy();
      expect(info.state.messages).toBe(3);
      expect((await jsm.consumers.info(world.stream, RUN_CONSUMER)).config.ack_policy).toBe('explicit');
      const moving = lines.find((l) => l.level === 'warn' && l.msg.startsWith('moving the stream'));
      expect(moving?.obj).toMatchObject({
        stream: world.stream,
        from: 'file',
        to: 'memory',
        messages: 3,
        payloads: ['["a-1","a-2"]', '["b-1"]', '["c-1","c-2","c-3"]'],
      });
      expect(lines.some((l) => l.level === 'info' && l.msg === 'stream moved')).toBe(true);

      const seen = await drain(bus, 6);
      expect(seen.map((s) => s.id).sort()).toEqual(['a-1', 'a-2', 'b-1', 'c-1', 'c-2', 'c-3']);
      // Headers travel with the message (the trace of the publish that kept the runs).
      expect(seen.find((s) => s.id === 'b-1')?.traceparent).toBe(`00-${'1'.padStart(32, '0')}-${'1'.padStart(16, '0')}-01`);
      await expect(jsm.streams.info(`${world.stream}_MOVING`)).rejects.toMatchObject({ api_error: { err_code: 10059 } });
    } finally {
      await world.dispose();
    }
  });

  it('is moved once when several replicas start together, and later starts leave it alone', async () => {
    const pending = Array.from({ length: 20 }, (_, i) => [`r-${i}`]);
    const world = await oldWorld(pending);
    try {
      const logs = [recordingLogger(), recordingLogger(), recordingLogger()];
      const buses = await Promise.all(logs.map((l) => world.bus(l.logger)));
      const info = await jsm.streams.info(world.stream);
      expect(info.config.storage).toBe(StorageType.Memory);
      // Published again by one replica only: a second mover would have doubled them.
      expect(info.state.messages).toBe(20);
      expect(logs.filter((l) => l.lines.some((x) => x.msg === 'stream moved'))).toHaveLength(1);

      const later = recordingLogger();
      await world.bus(later.logger);
      expect(later.lines.filter((l) => l.level !== 'debug')).toEqual([]);
      expect((await jsm.streams.info(world.stream)).state.messages).toBe(20);

      const seen = await drain(buses[0]!, 20);
      expect(new Set(seen.map((s) => s.id)).size).toBe(20);
    } finally {
      await world.dispose();
    }
  });

  it('takes over the lock of a replica that died mid-move, once it is stale', async () => {
    const world = await oldWorld([['x-1']]);
    try {
      // The dead replica's lock, and its seal: what a crash between those and the delete leaves.
      await jsm.streams.add({ name: `${world.stream}_MOVING`, subjects: [`${world.prefix}.runs.moving`], storage: StorageType.Memory, description: 'dead' });
      const old = await jsm.streams.info(world.stream);
      await jsm.streams.update(world.stream, { ...old.config, sealed: true } as Partial<StreamUpdateConfig>);
      const { logger, lines } = recordingLogger();
      const cfg = workQueueStreamConfig(world.stream, `${world.prefix}.runs.ready.>`, 3600_000, 1, 'memory');
      await ensureStreamStorage(admin, jsm, cfg, { lockSubject: `${world.prefix}.runs.moving`, logger, staleLockMs: 1000, pollMs: 50 });
      expect(lines.some((l) => l.msg.includes('never finished; taking it over'))).toBe(true);
      const info = await jsm.streams.info(world.stream);
      expect(info.config.storage).toBe(StorageType.Memory);
      expect(info.state.messages).toBe(1);
    } finally {
      await world.dispose();
    }
  });

  it('moves it back to file when told to', async () => {
    const world = await oldWorld([]);
    try {
      await world.bus();
      expect((await jsm.streams.info(world.stream)).config.storage).toBe(StorageType.Memory);
      const bus = await createJetStreamBus({ url, prefix: world.prefix, storage: 'file' });
      await bus.close();
      expect((await jsm.streams.info(world.stream)).config.storage).toBe(StorageType.File);
    } finally {
      await world.dispose();
    }
  });

  it('sets a memory stream and its consumer up again when a single server comes back without them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookyard-stream-move-'));
    const server = await startNats(join(dir, 'js'));
    const own = `nats://127.0.0.1:${server.port}`;
    const prefix = uniquePrefix('mvr');
    const stream = `${prefix.toUpperCase()}_RUNS`;
    const bus = await createJetStreamBus({ url: own, prefix, storage: 'memory' });
    const probe = await connect({ servers: own, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const seen: string[] = [];
      const sub = await bus.subscribe(async (id) => void seen.push(id), { concurrency: 4 });
      await bus.publish(['before']);
      await waitFor('the id published before the restart', () => seen.includes('before'));
      const pjsm = await probe.jetstreamManager();
      await server.kill('SIGKILL');
      await server.start();
      await waitFor(
        'the stream and consumer set up again',
        async () => {
          try {
            const info = await pjsm.streams.info(stream);
            await pjsm.consumers.info(stream, RUN_CONSUMER);
            return info.config.storage === StorageType.Memory;
          } catch {
            return false;
          }
        },
        30_000,
      );
      // The subscriber's pulls find the consumer again (they are re-asked after a reconnect or a silence).
      await waitFor(
        'an id published after the restart',
        async () => {
          await bus.publish(['after']).catch(() => undefined);
          return seen.includes('after');
        },
        30_000,
      );
      await sub.stop();
    } finally {
      await bus.close();
      await probe.close();
      await server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
