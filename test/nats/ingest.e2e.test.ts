/**
 * The NATS door across processes: ingress, scheduler and executor on Redis and
 * JetStream. 1,000 events published on `<prefix>.ingest.<topic>` and repeats
 * of 100 of them past the ingest stream's 100 ms duplicate window (JetStream
 * lets them through; Hookyard's own Nats-Msg-Id claim drops them). Each distinct event
 * is kept once, every run ends, and a summary of each run arrives on
 * `<prefix>.events.run.*` (accepted, started, finished). Malformed messages are terminated as rejected,
 * recorded, and not redelivered.
 */
import { randomBytes } from 'node:crypto';
import { connect, headers as natsHeaders, type NatsConnection, type Subscription } from 'nats';
import { INGEST_DUPLICATE_WINDOW_MS } from '@hookyard/bus';
import { validateMessage } from '@hookyard/core';
import { cleanupPrefix, uniquePrefix, NATS_URL } from '../support/services';
import { eventually, roleEnv, startRole, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { Api, metricValue, pool } from '../e2e/api';

jest.setTimeout(180_000);

const EVENTS = 1000;
const REPEATS = 100;
const TERMINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);

interface Summary {
  run_id: string;
  event: string;
  hook: string;
  status: string;
}

describe('NATS ingest across processes (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('nats');
  const ingestStream = `${prefix.toUpperCase()}_INGEST`;
  const procs: RoleProcess[] = [];
  let ingress: RoleProcess;
  let api: Api;
  let nc: NatsConnection;
  let events: Subscription;
  const summaries = new Map<string, Summary[]>();
  const badSummaries: string[] = [];

  beforeAll(async () => {
    await requirePlatform();
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.5',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '5',
      HOOKS_MAX_WORKERS: '32',
    });
    ingress = startRole('ingress', 'ingress', env);
    procs.push(ingress, startRole('scheduler', 'scheduler', env), startRole('executor', 'executor', env));
    await Promise.all(procs.map((p) => p.waitListening()));
    api = new Api(ingress.url, token);
    nc = await connect({ servers: NATS_URL, name: `${prefix}-test` });
    // Subscribed before anything is published: core NATS keeps nothing for a late subscriber.
    events = nc.subscribe(`${prefix}.events.run.>`, {
      callback: (err, msg) => {
        if (err) return;
        const s = msg.json<Summary>();
        const check = validateMessage('run_summary', s);
        if (!check.ok || msg.subject !== `${prefix}.events.run.${s.status}.${s.hook}`) badSummaries.push(`${msg.subject} ${JSON.stringify(check)}`);
        summaries.set(s.run_id, [...(summaries.get(s.run_id) ?? []), s]);
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    events?.unsubscribe();
    await nc?.close();
    // The ingest and runs streams and every key under the prefix.
    await cleanupPrefix(prefix);
  });

  it('keeps each distinct event once, ends every run, announces every run, rejects malformed messages', async () => {
    await api.ok('POST', '/api/hooks', { name: 'nats-echo', topic: 'orders', tool: 'echo', start_expr: { content: '{n: .n}' } });
    const js = nc.jetstream();
    const subject = `${prefix}.ingest.orders`;
    const send = async (i: number) => {
      const h = natsHeaders();
      h.set('Content-Type', 'application/json');
      return js.publish(subject, JSON.stringify({ n: i }), { msgID: `order-${i}`, headers: h });
    };

    await pool(EVENTS, 20, async (i) => {
      expect((await send(i)).duplicate).toBe(false);
    });
    // The stream's own window is JetStream's shortest (it spans every topic): past it, repeats reach
    // the door, and Hookyard's Nats-Msg-Id claim must drop them.
    const sentAt = Date.now();
    await eventually(async () => (Date.now() - sentAt > 4 * INGEST_DUPLICATE_WINDOW_MS ? true : undefined), 10_000, 'past the window');
    await pool(REPEATS, 20, async (i) => {
      expect((await send(i)).duplicate).toBe(false);
    });

    // Malformed: a topic that is not a name, and JSON that does not parse.
    const json = natsHeaders();
    json.set('Content-Type', 'application/json');
    await js.publish(`${prefix}.ingest.Not_A_Topic`, JSON.stringify({ n: -1 }));
    await js.publish(subject, '{"n": oops', { headers: json });

    const runs = await eventually(
      async () => {
        const all = await api.allRuns('nats-echo');
        return all.length >= EVENTS && all.every((r) => TERMINAL.has(r.status)) ? all : undefined;
      },
      120_000,
      `${EVENTS} runs to end`,
    );
    expect(runs).toHaveLength(EVENTS);
    expect(runs.filter((r) => r.status === 'succeeded')).toHaveLength(EVENTS);
    expect(new Set(runs.map((r) => (r.result as { n: number }).n)).size).toBe(EVENTS);

    // Every repeat that reached the ingress was settled as a duplicate by the claim; both malformed ones as rejected.
    await eventually(
      async () => ((await metricValue(ingress.url, 'tai42_hook_runs_ingest_messages_total')) >= EVENTS + REPEATS + 2 ? true : undefined),
      30_000,
      'every ingest message settled',
    );
    const verdicts = await verdictCounts(ingress.url);
    expect(verdicts).toEqual({ accepted: EVENTS, duplicate: REPEATS, rejected: 2 });
    const warned = ingress.logs().filter((l) => l.msg === 'NATS ingest message rejected; not kept, not redelivered');
    expect(warned.map((l) => l.topic).sort()).toEqual(['Not_A_Topic', 'orders']);
    expect(warned.every((l) => l.level === 40 || l.level === 'warn')).toBe(true);

    // Nothing waits for redelivery: the rejected messages were terminated, not left to come back.
    const consumer = await (await nc.jetstreamManager()).consumers.info(ingestStream, 'ingress');
    expect({ ackPending: consumer.num_ack_pending, redelivered: consumer.num_redelivered, pending: consumer.num_pending }).toEqual({
      ackPending: 0,
      redelivered: 0,
      pending: 0,
    });

    // Three events per run, each on the subject of its status and hook: accepted (the ingress), started and finished (the
    // executor). Two processes publish them, so they may arrive in either order.
    const done = (id: string) => summaries.get(id)?.some((s) => s.event === 'finished');
    await eventually(async () => (runs.every((r) => done(r.id)) ? true : undefined), 30_000, 'a finished run event for every run');
    expect(badSummaries).toEqual([]);
    for (const r of runs) {
      expect(
        summaries
          .get(r.id)!
          .map((s) => `${s.event}:${s.status}/${s.hook}`)
          .sort(),
      ).toEqual(['accepted:pending/nats-echo', 'finished:succeeded/nats-echo', 'started:running/nats-echo']);
    }
    expect(summaries.size).toBe(EVENTS);
  });
});

async function verdictCounts(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^tai42_hook_runs_ingest_messages_total\{([^}]*)\} (\S+)$/gm)) {
    const verdict = /verdict="([^"]+)"/.exec(m[1]!)?.[1];
    if (verdict) out[verdict] = (out[verdict] ?? 0) + Number(m[2]);
  }
  return out;
}
