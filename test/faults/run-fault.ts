/**
 * Runs one fault in a World: bounded load from the retrying sender while the
 * fault's injection runs, a bounded wait for every run to end, the counts, and
 * the promise checked with jest's expect. Shared by the fault suite and the
 * NATS cluster test.
 */
import { sleep } from '../support/processes';
import { count, TERMINAL, type FaultCount } from './count';
import { load, type Delivery } from './sender';
import { GITHUB_SECRET, LEASE_SECONDS, type World } from './world';

export interface FaultOptions {
  /** A github-verified topic (the sender signs and sends a delivery id). */
  verified?: boolean;
  /** The load is spread over this window. */
  windowMs: number;
  /** No executor dies or freezes: a tool call answered 200 must end its run succeeded. */
  rolesLive?: boolean;
  /**
   * Nothing the fault does may hold a run failed: no executor dies mid-call, and an
   * outage shorter than the retry budget (8 attempts, 0.2 s doubling to 2 s) is waited out.
   */
  noFailures?: boolean;
}

export type Inject = (at: (ms: number) => Promise<void>, notes: string[]) => Promise<void>;

export class FaultRunner {
  readonly rows: FaultCount[] = [];

  constructor(
    readonly world: World,
    readonly rand: () => number,
    readonly events: number,
  ) {}

  /** Random moments in [lo, hi) of the window, sorted. */
  moments(k: number, windowMs: number, lo = 0.1, hi = 0.9): number[] {
    return Array.from({ length: k }, () => Math.round(windowMs * (lo + this.rand() * (hi - lo)))).sort((a, b) => a - b);
  }

  pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  /** Waits until the sink has at least `k` calls of this fault in flight (bounded), so a fault lands mid-call. */
  async callsInFlight(name: string, k = 3): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (this.world.sink.calls.filter((c) => c.body.f === name && !c.answered).length < k && Date.now() < deadline) await sleep(20);
  }

  /**
   * Sends `events` events over `windowMs` while `inject(at)` runs its faults
   * (`at(ms)` waits until that moment of the window), waits for every run to
   * end, counts, and checks the promise.
   */
  async fault(name: string, opts: FaultOptions, inject: Inject): Promise<FaultCount> {
    const { world } = this;
    await world.topic(name, !!opts.verified);
    const notes: string[] = [];
    const t0 = Date.now();
    const at = async (ms: number) => {
      const wait = t0 + ms - Date.now();
      if (wait > 0) await sleep(wait);
    };
    const sender = { url: () => world.api.base, topic: name, fault: name, githubSecret: opts.verified ? GITHUB_SECRET : undefined, horizonMs: 90_000 };
    const [deliveries] = await Promise.all([load(sender, this.events, (this.events * 1000) / opts.windowMs), inject(at, notes)]);
    const [once, resume] = await this.settle(name, deliveries);
    const c = count(name, deliveries, once, resume, world.sink.calls);
    c.notes.push(...notes);
    this.rows.push(c);
    const f = [...once, ...resume].find((r) => r.status === 'failed');
    if (f && process.env.FAULT_DEBUG) process.stdout.write(`DEBUG ${JSON.stringify(await world.api.ok('GET', `/api/hook-runs/${f.id}`))}\n`);
    expect({ lost: c.lost, notTerminal: c.notTerminal }).toEqual({ lost: [], notTerminal: [] });
    expect({ calledTwice: c.calledTwice, badReplayKeys: c.badReplayKeys }).toEqual({ calledTwice: [], badReplayKeys: [] });
    // A delivery id dedupes the sender's retries: one event per delivery, however the answers were cut.
    if (opts.verified) expect(c.keptTwice).toEqual([]);
    if (opts.rolesLive) expect(c.failedAfterAnswered).toBe(0);
    if (opts.noFailures) expect({ failed: c.failedOnce + c.failedResume, errors: c.failedErrors }).toEqual({ failed: 0, errors: [] });
    expect(c.accepted + c.duplicate).toBe(this.events);
    return c;
  }

  /**
   * Waits until every accepted event has both runs and every run is terminal; or,
   * when some event's runs never come (lost), until every run kept is terminal and
   * nothing changed for three leases (every sweep and takeover had its chance); at
   * most two minutes.
   */
  private async settle(name: string, deliveries: Delivery[]) {
    const { api } = this.world;
    const want = new Set(deliveries.filter((d) => d.final !== 'gave up').map((d) => d.n));
    const deadline = Date.now() + 120_000;
    let last = '';
    let stableSince = Date.now();
    for (;;) {
      const [once, resume] = await Promise.all([api.allRuns(`${name}-once`), api.allRuns(`${name}-resume`)]);
      const all = [...once, ...resume];
      const ns = (rs: typeof once) => new Set(rs.map((r) => (r as unknown as { payload: { n: number } }).payload.n));
      const [a, b] = [ns(once), ns(resume)];
      const complete = [...want].every((n) => a.has(n) && b.has(n));
      const terminal = all.every((r) => TERMINAL.has(r.status));
      const state = all
        .map((r) => `${r.id}:${r.status}`)
        .sort()
        .join();
      if (state !== last) {
        last = state;
        stableSince = Date.now();
      }
      const quiet = terminal && Date.now() - stableSince > 3 * LEASE_SECONDS * 1000;
      if ((complete && terminal) || quiet || Date.now() > deadline) return [once, resume] as const;
      await sleep(500);
    }
  }
}
