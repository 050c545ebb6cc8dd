/**
 * The whole run life cycle across separate processes: ingress, scheduler and
 * executors on real Redis and JetStream. Then faults: an executor killed with
 * SIGKILL mid-run, and one frozen past its lease whose late writes are refused.
 */
import { randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, sleep, startRole, PLATFORM_ROLES, startRoles, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { idempotencyKey, startMockServer, type MockServer } from '../support/http-recorder';
import { Api, metricValue, pool, type RunView } from './api';

jest.setTimeout(180_000);

const TERMINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);

describe('run life cycle across processes (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2e');
  const procs: RoleProcess[] = [];
  let env: Record<string, string>;
  let ingress: RoleProcess;
  let api: Api;

  beforeAll(async () => {
    await requirePlatform();
    env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_LEASE_SECONDS: '1.5',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '3',
      HOOKS_RUN_RETRY_BASE_SECONDS: '0.2',
      HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '2',
      HOOKS_MAX_WORKERS: '32',
      HOOKS_DOOR_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV, // the tool servers these tests start listen on loopback
    });
    procs.push(...(await startRoles(env, PLATFORM_ROLES)));
    ingress = procs[0]!;
    api = new Api(ingress.url, token);
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await cleanupPrefix(prefix);
  });

  it('keeps and finishes 1,000 events sent over HTTP, every run succeeded exactly once', async () => {
    await api.ok('POST', '/api/hooks', {
      name: 'e2e-echo',
      topic: 'orders',
      tool: 'echo',
      condition: { content: '.n >= 0' },
      start_expr: { content: '{n: .n}' },
    });
    const started = Date.now();
    await pool(1000, 25, async (i) => {
      const r = await api.sendEvent('orders', { n: i });
      expect(r).toEqual({ status: 200, body: { status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) } });
    });
    const acceptedMs = Date.now() - started;
    const runs = await eventually(
      async () => {
        const all = await api.allRuns('e2e-echo');
        return all.length === 1000 && all.every((r) => TERMINAL.has(r.status)) ? all : undefined;
      },
      120_000,
      '1,000 runs to end',
    );
    const doneMs = Date.now() - started;
    expect(runs.filter((r) => r.status === 'succeeded')).toHaveLength(1000);
    const ns = new Set(runs.map((r) => (r.result as { n: number }).n));
    expect(ns.size).toBe(1000);
    // Both executors took a share of the work.
    const [a, b] = await Promise.all(procs.slice(2, 4).map((p) => metricValue(p.url, 'tai42_hook_runs_started_total')));
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    expect(a! + b!).toBeGreaterThanOrEqual(1000);
    process.stdout.write(
      `e2e: 1000 events accepted in ${acceptedMs} ms (${Math.round(1000 / (acceptedMs / 1000))}/s), ` +
        `all runs succeeded after ${doneMs} ms (${Math.round(1000 / (doneMs / 1000))} runs/s end to end)\n`,
    );
  });

  describe('with a slow, crash-resumable HTTP tool', () => {
    let server: MockServer;
    const calls: string[] = [];
    const inFlight = new Set<string>();

    beforeAll(async () => {
      server = await startMockServer(async (req) => {
        // The tool layer asks GET /schema first; "no schema" is a valid answer.
        if (req.method !== 'POST') return { status: 404 };
        const key = idempotencyKey(req);
        calls.push(key);
        inFlight.add(key);
        await sleep(1500);
        inFlight.delete(key);
        return { body: JSON.stringify({ done: key }) };
      });
      await api.ok('POST', '/api/tools', {
        name: 'slow',
        endpoint: server.url,
        method: 'POST',
        timeout_ms: 10_000,
        headers: {},
        body_properties: {},
        protocol: 'langserve-direct',
        crash_resumable: true,
      });
    });

    afterAll(async () => {
      await server.close();
    });

    it('a SIGKILLed executor loses nothing: its leases lapse and another executor finishes each run once', async () => {
      // A third executor joins so that one can be killed and one frozen.
      const third = startRole('executor-3', 'executor', env);
      procs.push(third);
      await third.waitListening();
      await api.ok('POST', '/api/hooks', { name: 'e2e-slow', topic: 'slow', tool: 'slow', tool_kwargs: {} });
      await pool(90, 10, async (i) => {
        expect((await api.sendEvent('slow', { i })).body.runs).toBe(1);
      });
      // Wait until tools are running, then kill mid-run the executor holding most of them (one executor may pull
      // every run; a fixed victim could hold none, and then nothing would be taken over).
      await eventually(async () => (inFlight.size >= 10 ? true : undefined), 30_000, 'tool calls in flight');
      const busiest = async (among: typeof procs) => {
        const n = await Promise.all(among.map(async (p) => (await metricValue(p.url, 'tai42_hook_runs_in_flight')) ?? 0));
        const i = n.indexOf(Math.max(...n));
        return n[i]! > 0 ? among[i] : undefined;
      };
      const executors = procs.slice(2);
      const victim = await eventually(() => busiest(executors), 30_000, 'an executor with tool calls in flight');
      victim.kill('SIGKILL');
      await victim.wait();

      // Freeze another one past its lease (one with runs in flight); when it wakes, its writes must be refused.
      const frozen = await eventually(() => busiest(executors.filter((p) => p !== victim)), 30_000, 'another executor with runs in flight');
      frozen.kill('SIGSTOP');
      await sleep(4000);
      frozen.kill('SIGCONT');

      const runs = await eventually(
        async () => {
          const all = await api.allRuns('e2e-slow');
          return all.length === 90 && all.every((r) => TERMINAL.has(r.status)) ? all : undefined;
        },
        120_000,
        '90 slow runs to end',
      );
      const bad = runs.filter((r) => r.status !== 'succeeded');
      expect(bad.map((r) => [r.id, r.status, r.error])).toEqual([]);
      // Each run ended once: exactly one terminal event in its history.
      for (const r of runs) {
        const full = await api.ok<RunView>('GET', `/api/hook-runs/${r.id}`);
        const ends = full.history.filter((h) => h.event === 'succeeded');
        expect(ends).toHaveLength(1);
      }
      // Interrupted runs were taken over: more than one attempt, the replay reused the idempotency key.
      const retaken = runs.filter((r) => r.attempts > 1);
      expect(retaken.length).toBeGreaterThan(0);
      const seen = new Map<string, number>();
      for (const k of calls) seen.set(k, (seen.get(k) ?? 0) + 1);
      expect([...seen.values()].some((n) => n > 1)).toBe(true);
      expect(new Set(calls).size).toBe(90);
      // The frozen executor's late writes were refused by the fencing token.
      await eventually(
        async () => (frozen.logs().some((l) => /supersede|stale/i.test(String(l.msg))) ? true : undefined),
        20_000,
        'the frozen executor to report a refused stale write',
      );
    });
  });
});
