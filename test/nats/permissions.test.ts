/**
 * The example NATS server config of deploy/nats/ (one user per role, each
 * allowed only its subjects) against a throwaway nats-server: every role's
 * connections work with their own credentials (a discovery round trip through
 * the real requester and responder, runs published and pulled, an event in
 * through the NATS door, run events out), and a `publisher` can publish on
 * `hooks.ingest.>` but can neither publish nor subscribe on
 * `hooks.discovery.request`. Each role reads replies on its own inbox prefix
 * only, and the account's JetStream limits and the ingest stream's bound hold.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, DiscardPolicy, Events, nanos, type NatsConnection } from 'nats';
import {
  createDiscoveryRequester,
  createDiscoveryResponder,
  createJetStreamBus,
  createNatsIngest,
  createRunEventPublisher,
  createRunEventSubscriber,
  type NatsCredentials,
  type RunBus,
  type RunSummary,
  INGEST_DUPLICATE_WINDOW_MS,
  INGEST_MAX_BYTES,
  roleInboxPrefix,
} from '@hookyard/bus';
import { startNats, type ServerProcess } from '../support/servers';
import { deleteRedisKeys, uniquePrefix } from '../support/services';
import { eventually, requirePlatform, roleEnv, startRoles, stopRoles, type RoleProcess } from '../support/processes';
import { Api } from '../e2e/api';

const CONF = join(__dirname, '..', '..', 'deploy', 'nats', 'nats-server.conf');
const PREFIX = 'hooks';
const ROLES = ['ingress', 'executor', 'scheduler', 'publisher'] as const;
const passwords = Object.fromEntries(ROLES.map((r) => [r, randomBytes(12).toString('hex')])) as Record<(typeof ROLES)[number], string>;
// As a role's process connects: its user, and its own inbox prefix (HOOKS_NATS_INBOX_PREFIX's default).
const as = (role: (typeof ROLES)[number]): NatsCredentials => ({
  user: role,
  pass: passwords[role],
  source: `user ${role}`,
  inboxPrefix: roleInboxPrefix(role),
});

let dir: string;
let server: ServerProcess;
let url: string;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookyard-nats-perms-'));
  // The config reads each role's password from the server's environment; here they are written into a copy.
  let conf = readFileSync(CONF, 'utf8');
  for (const r of ROLES) conf = conf.split(`$HOOKYARD_NATS_${r.toUpperCase()}_PASSWORD`).join(JSON.stringify(passwords[r]));
  expect(conf).not.toContain('$HOOKYARD_');
  writeFileSync(join(dir, 'nats-server.conf'), conf);
  server = await startNats(join(dir, 'js'), ['-c', join(dir, 'nats-server.conf')]);
  url = `nats://127.0.0.1:${server.port}`;
}, 30_000);
// Each test's connections close after it: a bus or door left open would share the roles' durable consumers.
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `predicate` holds, polling each 20 ms (a condition, never a fixed sleep); fails after 10 s. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The permission violations the server reported to `nc`, as `<operation> <subject>`. */
function violations(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const s of nc.status()) {
      const ctx = (s as unknown as { permissionContext?: { operation: string; subject: string } }).permissionContext;
      if (s.type === Events.Error && ctx) seen.push(`${ctx.operation} ${ctx.subject}`);
    }
  })();
  return seen;
}

describe('deploy/nats/nats-server.conf', () => {
  it('each role works with its own credentials: discovery, runs, the NATS door and run events', async () => {
    // Executor: answers discovery, pulls runs, announces run events.
    const asked: unknown[] = [];
    const responder = await createDiscoveryResponder({ url, prefix: PREFIX, credentials: as('executor') }, async (r) => {
      asked.push(r);
      return { ok: true, tools: ['pets__list_pets'] };
    });
    closers.push(() => responder.close());
    const executorBus = await createJetStreamBus({ url, prefix: PREFIX, credentials: as('executor') });
    closers.push(() => executorBus.close());
    const pulled: string[] = [];
    await executorBus.subscribe(async (id) => void pulled.push(id), { concurrency: 2 });
    const executorEvents = await createRunEventPublisher({ url, prefix: PREFIX, credentials: as('executor') });
    closers.push(() => executorEvents.close());

    // Ingress: asks discovery, keeps runs and publishes them, takes the NATS door, reads run events.
    const requester = await createDiscoveryRequester({ url, prefix: PREFIX, credentials: as('ingress') });
    closers.push(() => requester.close());
    expect(await requester.ask({ op: 'discover', name: 'pets' }, 10_000)).toEqual({ ok: true, tools: ['pets__list_pets'] });
    expect(asked).toEqual([{ op: 'discover', name: 'pets' }]);

    const ingressBus: RunBus = await createJetStreamBus({ url, prefix: PREFIX, credentials: as('ingress') });
    closers.push(() => ingressBus.close());
    await ingressBus.publish(['run-from-ingress']);
    const ingest = await createNatsIngest({ url, prefix: PREFIX, credentials: as('ingress') });
    closers.push(() => ingest.close());
    const door: string[] = [];
    await ingest.start(async (m) => {
      door.push(`${m.topic}:${Buffer.from(m.data).toString('utf8')}`);
      return 'accepted';
    });
    const feed = await createRunEventSubscriber({ url, prefix: PREFIX, credentials: as('ingress') });
    closers.push(() => feed.close());
    const events: RunSummary[] = [];
    feed.listen((s) => events.push(s));
    await feed.listening();
    const callEvents: RunSummary[] = [];
    feed.listenCall('r2', (s) => callEvents.push(s));

    // Scheduler: dispatches runs.
    const schedulerBus = await createJetStreamBus({ url, prefix: PREFIX, credentials: as('scheduler') });
    closers.push(() => schedulerBus.close());
    await schedulerBus.publish(['run-from-scheduler']);
    await until(() => pulled.length === 2, 'both runs pulled by the executor');
    expect(pulled.sort()).toEqual(['run-from-ingress', 'run-from-scheduler']);

    // A publisher's event reaches the door.
    const pub = await connect({ servers: url, user: 'publisher', pass: passwords.publisher, inboxPrefix: '_INBOX_publisher' });
    closers.push(() => pub.close());
    const ack = await pub.jetstream().publish(`${PREFIX}.ingest.demo`, '{"a":1}');
    expect(ack.stream).toBe('HOOKS_INGEST');
    await until(() => door.length === 1, 'the event through the NATS door');
    expect(door).toEqual(['demo:{"a":1}']);

    const summary = { run_id: 'r1', hook: 'h1', topic: 'demo', status: 'succeeded' } as unknown as RunSummary;
    void executorEvents.publish(summary);
    await until(() => events.length === 1, 'the run event at the ingress');
    expect(events[0]).toMatchObject({ run_id: 'r1', hook: 'h1' });
    // An agent call's event, on <prefix>.events.run.<status>.agent.<name>: the ingress's call subscription hears it.
    void executorEvents.publish({ ...summary, run_id: 'r2', hook: 'agent:bot' });
    await until(() => callEvents.length === 1, "the agent call's event at the ingress");
    expect(callEvents[0]).toMatchObject({ run_id: 'r2', hook: 'agent:bot' });
    // Not one subject a role used was refused: the config allows each what it needs.
    expect(server.log.filter((l) => l.includes('Violation'))).toEqual([]);
  }, 60_000);

  it('a publisher cannot publish to, nor subscribe on, the discovery subject', async () => {
    const asked: unknown[] = [];
    const responder = await createDiscoveryResponder({ url, prefix: PREFIX, credentials: as('executor') }, async (r) => {
      asked.push(r);
      return { ok: true, tools: [] };
    });
    closers.push(() => responder.close());
    const pub = await connect({ servers: url, user: 'publisher', pass: passwords.publisher, inboxPrefix: '_INBOX_publisher' });
    closers.push(() => pub.close());
    const seen = violations(pub);

    pub.publish(`${PREFIX}.discovery.request`, JSON.stringify({ op: 'discover', name: 'pets' }));
    await until(() => seen.includes(`publish ${PREFIX}.discovery.request`), 'the publish violation');

    const sub = pub.subscribe(`${PREFIX}.discovery.request`);
    await until(() => seen.includes(`subscription ${PREFIX}.discovery.request`), 'the subscription violation');
    sub.unsubscribe();

    // The executor was never asked; an ingest publish on the same connection still goes through.
    const ack = await pub.jetstream().publish(`${PREFIX}.ingest.demo`, '{}');
    expect(ack.stream).toBe('HOOKS_INGEST');
    expect(asked).toEqual([]);
    expect(server.log.filter((l) => l.includes('Violation'))).toEqual([
      expect.stringContaining(`Publish Violation - User "publisher", Subject "${PREFIX}.discovery.request"`),
      expect.stringContaining(`Subscription Violation - User "publisher", Subject "${PREFIX}.discovery.request"`),
    ]);
  }, 30_000);

  it("a role cannot subscribe to another role's inbox, nor to every inbox", async () => {
    const hookyard = ['ingress', 'executor', 'scheduler'] as const;
    for (const role of hookyard) {
      const nc = await connect({ servers: url, user: role, pass: passwords[role], inboxPrefix: roleInboxPrefix(role) });
      closers.push(() => nc.close());
      const seen = violations(nc);
      const others = [...hookyard.filter((r) => r !== role).map((r) => `${roleInboxPrefix(r)}.>`), '_INBOX_publisher.>', '_INBOX.>'];
      for (const subject of others) nc.subscribe(subject);
      await until(() => others.every((s) => seen.includes(`subscription ${s}`)), `${role}'s refused subscriptions`);
      // Its own prefix is allowed: a JetStream request answers there.
      expect((await (await nc.jetstreamManager()).getAccountInfo()).streams).toBeGreaterThanOrEqual(0);
      expect(seen.sort()).toEqual(others.map((s) => `subscription ${s}`).sort());
    }
  }, 30_000);

  it("the account's JetStream limits hold, and the ingest stream is bounded (refusing new messages when full)", async () => {
    const nc = await connect({ servers: url, user: 'ingress', pass: passwords.ingress, inboxPrefix: roleInboxPrefix('ingress') });
    closers.push(() => nc.close());
    const jsm = await nc.jetstreamManager();
    const { limits } = await jsm.getAccountInfo();
    expect({ file: limits.max_storage, memory: limits.max_memory, streams: limits.max_streams, consumers: limits.max_consumers }).toEqual({
      // nats-server reads 4G and 512M in powers of ten.
      file: 4e9,
      memory: 512e6,
      streams: 4,
      consumers: 8,
    });
    const ingest = await createNatsIngest({ url, prefix: PREFIX, credentials: as('ingress') });
    closers.push(() => ingest.close());
    const { config } = await jsm.streams.info('HOOKS_INGEST');
    expect({ max_bytes: config.max_bytes, discard: config.discard, window: config.duplicate_window }).toEqual({
      max_bytes: INGEST_MAX_BYTES,
      discard: DiscardPolicy.New,
      window: nanos(INGEST_DUPLICATE_WINDOW_MS),
    });
    // The account refuses a stream past its storage, whoever asks.
    const tooBig = await jsm.streams
      .add({ name: 'HOOKS_RUNS_MOVING', subjects: ['hooks.runs.moving'], max_bytes: 5 * 1024 ** 3 })
      .then(() => null)
      .catch((err: Error & { api_error?: { description?: string } }) => err.api_error?.description ?? err.message);
    expect(tooBig).toMatch(/insufficient storage resources/);
  }, 30_000);

  it('hookyard serve, each role as its own user, takes its own inbox prefix: an event in through the NATS door runs to the end, nothing refused', async () => {
    await requirePlatform();
    const keys = uniquePrefix('perms');
    const token = randomBytes(16).toString('hex');
    const violationsBefore = server.log.filter((l) => l.includes('Violation')).length;
    const envOf = (role: 'ingress' | 'executor' | 'scheduler') =>
      roleEnv(keys, token, {
        HOOKS_NATS_URL: url,
        HOOKS_NATS_PREFIX: PREFIX,
        HOOKS_NATS_USER: role,
        HOOKS_NATS_PASSWORD: 'env:HOOKS_SECRET_NATS_PASSWORD',
        HOOKS_SECRET_NATS_PASSWORD: passwords[role],
        HOOKS_RUN_SWEEP_SECONDS: '0.5',
      });
    const procs: RoleProcess[] = [];
    try {
      for (const role of ['ingress', 'scheduler', 'executor'] as const) procs.push(...(await startRoles(envOf(role), [[role, role]])));
      const api = new Api(procs[0]!.url, token);
      await api.ok('POST', '/api/hooks', { name: 'perms-echo', topic: 'perms', tool: 'echo', start_expr: { content: '{n: .n}' } });
      const pub = await connect({ servers: url, user: 'publisher', pass: passwords.publisher, inboxPrefix: '_INBOX_publisher' });
      closers.push(() => pub.close());
      await pub.jetstream().publish(`${PREFIX}.ingest.perms`, '{"n":7}');
      const [run] = await eventually(
        async () => {
          const runs = await api.allRuns('perms-echo');
          return runs.length === 1 && runs[0]!.status === 'succeeded' ? runs : undefined;
        },
        30_000,
        'the run to succeed',
      );
      expect(run!.result).toEqual({ n: 7 });
      expect(server.log.filter((l) => l.includes('Violation')).slice(violationsBefore)).toEqual([]);
    } finally {
      await stopRoles(procs, 'SIGKILL');
      await deleteRedisKeys(keys);
    }
  }, 90_000);
});
