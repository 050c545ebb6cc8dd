/**
 * The fault suite: bounded load from a retrying sender while each role is
 * SIGKILLed at random moments, NATS and Redis are restarted (Redis from its
 * AOF), and an executor is frozen past its lease. Then it counts, per fault:
 * every event answered `200 accepted` (or `duplicate`) has its runs, every run
 * is terminal, the non-resumable tool was called at most once per run, and a
 * crash-resumable replay carries its run's key and input. The table is printed.
 *
 * FAULT_EVENTS (default 300) events per fault; FAULT_SEED replays a run's moments.
 */
import { sleep } from '../support/processes';
import { count, table, TERMINAL, type FaultCount } from './count';
import { load, type Delivery } from './sender';
import { GITHUB_SECRET, LEASE_SECONDS, World, prng } from './world';

jest.setTimeout(300_000);

const EVENTS = Number(process.env.FAULT_EVENTS ?? 300);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
const rand = prng(SEED);
const rows: FaultCount[] = [];

describe(`faults (${EVENTS} events per fault, seed ${SEED})`, () => {
  const world = new World(rand);

  beforeAll(async () => {
    await world.start();
  }, 120_000);

  afterAll(async () => {
    process.stdout.write(`\nfault suite: ${EVENTS} events per fault, 2 hooks each (non-resumable, crash-resumable), seed ${SEED}\n${table(rows)}\n`);
    await world.stop();
  }, 60_000);

  /** Random moments in [lo, hi) of the window, sorted. */
  const moments = (k: number, windowMs: number, lo = 0.1, hi = 0.9) =>
    Array.from({ length: k }, () => Math.round(windowMs * (lo + rand() * (hi - lo)))).sort((a, b) => a - b);

  /**
   * Sends EVENTS events over `windowMs` while `inject(at)` runs its faults
   * (`at(ms)` waits until that moment of the window), waits for every run to
   * end, counts, and checks the promise.
   */
  async function fault(
    name: string,
    opts: { verified?: boolean; windowMs: number; rolesLive?: boolean },
    inject: (at: (ms: number) => Promise<void>, notes: string[]) => Promise<void>,
  ): Promise<FaultCount> {
    await world.topic(name, !!opts.verified);
    const notes: string[] = [];
    const t0 = Date.now();
    const at = async (ms: number) => {
      const wait = t0 + ms - Date.now();
      if (wait > 0) await sleep(wait);
    };
    const sender = { url: () => world.api.base, topic: name, fault: name, githubSecret: opts.verified ? GITHUB_SECRET : undefined, horizonMs: 90_000 };
    const [deliveries] = await Promise.all([load(sender, EVENTS, (EVENTS * 1000) / opts.windowMs), inject(at, notes)]);
    const [once, resume] = await settle(name, deliveries);
    const c = count(name, deliveries, once, resume, world.sink.calls);
    c.notes.push(...notes);
    rows.push(c);
    expect({ lost: c.lost, notTerminal: c.notTerminal }).toEqual({ lost: [], notTerminal: [] });
    expect({ calledTwice: c.calledTwice, badReplayKeys: c.badReplayKeys }).toEqual({ calledTwice: [], badReplayKeys: [] });
    // A delivery id dedupes the sender's retries: one event per delivery, however the answers were cut.
    if (opts.verified) expect(c.keptTwice).toEqual([]);
    // No executor died or froze: a tool call answered 200 must end its run succeeded.
    if (opts.rolesLive) expect(c.failedAfterAnswered).toBe(0);
    expect(c.accepted + c.duplicate).toBe(EVENTS);
    return c;
  }

  /**
   * Waits until every accepted event has both runs and every run is terminal; or,
   * when some event's runs never come (lost), until every run kept is terminal and
   * nothing changed for three leases (every sweep and takeover had its chance); at
   * most two minutes.
   */
  async function settle(name: string, deliveries: Delivery[]) {
    const want = new Set(deliveries.filter((d) => d.final !== 'gave up').map((d) => d.n));
    const deadline = Date.now() + 120_000;
    let last = '';
    let stableSince = Date.now();
    for (;;) {
      const [once, resume] = await Promise.all([world.api.allRuns(`${name}-once`), world.api.allRuns(`${name}-resume`)]);
      const all = [...once, ...resume];
      const ns = (rs: typeof once) => new Set(rs.map((r) => (r as unknown as { payload: { n: number } }).payload.n));
      const [a, b] = [ns(once), ns(resume)];
      const complete = [...want].every((n) => a.has(n) && b.has(n));
      const terminal = all.every((r) => TERMINAL.has(r.status));
      const state = all.map((r) => `${r.id}:${r.status}`).sort().join();
      if (state !== last) {
        last = state;
        stableSince = Date.now();
      }
      const quiet = terminal && Date.now() - stableSince > 3 * LEASE_SECONDS * 1000;
      if ((complete && terminal) || quiet || Date.now() > deadline) return [once, resume] as const;
      await sleep(500);
    }
  }

  const executors = () => ['executor-1', 'executor-2'];
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  /** Waits until the sink has at least `k` calls of this fault in flight (bounded), so a fault lands mid-call. */
  const callsInFlight = async (name: string, k = 3) => {
    const deadline = Date.now() + 10_000;
    while (world.sink.calls.filter((c) => c.body.f === name && !c.answered).length < k && Date.now() < deadline) await sleep(20);
  };

  it('executor SIGKILL x3 at random moments, restarted each time', async () => {
    const W = 6000;
    await fault('exec-kill', { windowMs: W }, async (at) => {
      for (const m of moments(3, W)) {
        await at(m);
        await callsInFlight('exec-kill');
        const victim = pick(executors());
        await world.killRole(victim);
        await world.startRole(victim);
      }
    });
  });

  it('ingress SIGKILL x3 on an open topic, restarted on its port', async () => {
    const W = 6000;
    await fault('ingress-kill-open', { windowMs: W, rolesLive: true }, async (at) => {
      for (const m of moments(3, W)) {
        await at(m);
        await world.killRole('ingress');
        await world.startRole('ingress');
      }
    });
  });

  it('github-verified topic, ingress SIGKILL x4: a cut answer is never a lost delivery', async () => {
    const W = 6000;
    await fault('ingress-kill-github', { windowMs: W, verified: true, rolesLive: true }, async (at) => {
      for (const m of moments(4, W)) {
        await at(m);
        await world.killRole('ingress');
        await world.startRole('ingress');
      }
    });
  });

  it('both schedulers down, an executor SIGKILLed meanwhile, schedulers back after its leases lapsed', async () => {
    const W = 6000;
    await fault('schedulers-down', { windowMs: W }, async (at, notes) => {
      await at(W * 0.2);
      await Promise.all([world.killRole('scheduler-1'), world.killRole('scheduler-2')]);
      await at(W * 0.35);
      await callsInFlight('schedulers-down');
      await world.killRole('executor-1');
      await world.startRole('executor-1');
      await sleep(LEASE_SECONDS * 1000 + 1000);
      const back = Date.now();
      await Promise.all([world.startRole('scheduler-1'), world.startRole('scheduler-2')]);
      notes.push(`schedulers down ${((Date.now() - back) / 1000 + LEASE_SECONDS + 1).toFixed(1)} s+`);
    });
  });

  it('NATS stopped (SIGTERM) 3 s, then SIGKILLed 3 s, restarted on its store', async () => {
    const W = 10_000;
    await fault('nats-restart', { windowMs: W, rolesLive: true }, async (at) => {
      for (const [m, signal] of [[W * 0.15, 'SIGTERM'], [W * 0.55, 'SIGKILL']] as const) {
        await at(m);
        await world.nats.kill(signal);
        await sleep(3000);
        await world.nats.start();
      }
    });
  });

  it('Redis SIGKILLed 3 s, back from its AOF (appendfsync always)', async () => {
    const W = 8000;
    await fault('redis-restart', { windowMs: W, rolesLive: true }, async (at) => {
      await at(W * 0.3);
      await callsInFlight('redis-restart');
      await world.redis.kill('SIGKILL');
      await sleep(3000);
      await world.redis.start();
    });
  });

  it('an executor frozen (SIGSTOP) past its lease, then woken', async () => {
    const W = 6000;
    await fault('executor-freeze', { windowMs: W }, async (at, notes) => {
      await at(W * 0.3);
      await callsInFlight('executor-freeze');
      const victim = world.role('executor-2');
      const before = victim.lines.length;
      victim.kill('SIGSTOP');
      await sleep(LEASE_SECONDS * 1000 + 2000);
      victim.kill('SIGCONT');
      // Its late writes carry stale tokens: refused, logged as superseded.
      const deadline = Date.now() + 15_000;
      let refused = 0;
      while (Date.now() < deadline) {
        refused = victim.lines.slice(before).filter((l) => /supersede|stale/i.test(l)).length;
        if (refused > 0) break;
        await sleep(200);
      }
      notes.push(`${refused} late writes of the frozen executor refused`);
    });
  });
});
