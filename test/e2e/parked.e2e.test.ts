/**
 * The waiting half of the run life across processes (ingress, scheduler and
 * two executors on real Redis and JetStream): a `wait` resumed by a later
 * event's resume_expr, one cancelled by cancel_expr, a take consuming a
 * resumed outcome once, 1,000 parked runs leaving one-slot executors serving
 * other runs; then an executor SIGKILLed between claim_intent and the commit
 * (held at a test pause point, not timed): the next attempt finds one
 * interaction resolved (held failed naming it) and one open (tries again).
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { uniquePrefix, REDIS_URL, cleanupPrefix } from '../support/services';
import { eventually, PLATFORM_ROLES, roleEnv, startRole, startRoles, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { Api, metricValue, pool, type RunView } from './api';

jest.setTimeout(300_000);

interface Parked extends RunView {
  acted_ids: string[];
  claim_intent: string;
  parked_on: string[];
  interaction: string | null;
}
interface InteractionView {
  id: string;
  status: string;
  run: string;
  resolution: { by: string; via: string; at: string; payload: unknown } | null;
  outcome: { result: unknown } | null;
}

const SUBJECT = { scope: 'conversation', kind: 'pr', key_expr: { content: '.pr' } };

function baseEnv(prefix: string, token: string): Record<string, string> {
  return roleEnv(prefix, token, {
    HOOKS_RUN_SWEEP_SECONDS: '0.25',
    HOOKS_RUN_LEASE_SECONDS: '1.5',
    HOOKS_RUN_DISPATCH_GRACE_SECONDS: '3',
    HOOKS_RUN_RETRY_BASE_SECONDS: '0.2',
    HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '2',
    HOOKS_MAX_WORKERS: '1',
    HOOKS_DOOR_RATE: '0',
    HOOKS_API_RATE: '0',
  });
}

async function runOf(api: Api, id: string): Promise<Parked> {
  return api.ok<Parked>('GET', `/api/hook-runs/${id}`);
}

/** Waits for the single run of `hook` created by the latest event, in `status`. */
async function runIn(api: Api, hook: string, status: string, not: Set<string> = new Set()): Promise<Parked> {
  return eventually(
    async () => {
      const page = await api.ok<{ runs: Parked[] }>('GET', `/api/hook-runs?hook=${hook}&status=${status}&limit=500`);
      return page.runs.find((r) => !not.has(r.id));
    },
    60_000,
    `a ${status} run of ${hook}`,
  );
}

async function until(api: Api, id: string, status: string): Promise<Parked> {
  return eventually(
    async () => {
      const r = await runOf(api, id);
      return r.status === status ? r : undefined;
    },
    60_000,
    `run ${id} to be ${status}`,
  );
}

const ms = (iso: string) => Date.parse(iso);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

describe('parked runs across processes (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2epark');
  const procs: RoleProcess[] = [];
  let api: Api;

  beforeAll(async () => {
    await requirePlatform();
    const env = baseEnv(prefix, token);
    procs.push(...(await startRoles(env, PLATFORM_ROLES)));
    api = new Api(procs[0]!.url, token);
    const hooks = [
      { name: 'e2e-wait', topic: 'pr-opened', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 }, subject: SUBJECT },
      // The payload is bound first: inside the pipe `.` is the interaction.
      {
        name: 'e2e-resume',
        topic: 'pr-merged',
        tool: 'echo',
        subject: SUBJECT,
        resume_expr: { content: '. as $e | [$parked[] | {id, payload: {merged_by: $e.by}}]' },
      },
      { name: 'e2e-cancel', topic: 'pr-closed', tool: 'echo', subject: SUBJECT, cancel_expr: { content: '[$parked[].id]' } },
      { name: 'e2e-take', topic: 'take-it', tool: 'echo', resume_expr: { content: '{take: .id}' } },
      { name: 'e2e-park', topic: 'park-many', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 } },
      { name: 'e2e-echo', topic: 'orders', tool: 'echo', start_expr: { content: '{n: .n}' } },
    ];
    await api.ok('PUT', '/api/states/declarations/conversation/pr', { schema: {}, description: 'a pull request conversation' });
    for (const h of hooks) await api.ok('POST', '/api/hooks', h);
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await cleanupPrefix(prefix);
  });

  it('a wait is resumed by a later event; its outcome is taken once', async () => {
    await api.sendEvent('pr-opened', { pr: 'acme#1' });
    const waiter = await runIn(api, 'e2e-wait', 'parked');
    expect(waiter).toMatchObject({ acted: 'start', parked_on: [expect.any(String)] });
    const id = waiter.parked_on[0]!;
    expect(await api.ok('GET', `/api/interactions/${id}`)).toMatchObject({ kind: 'wait', status: 'open', run: waiter.id });

    await api.sendEvent('pr-merged', { pr: 'acme#1', by: 'octocat' });
    const resumer = await runIn(api, 'e2e-resume', 'succeeded');
    expect(resumer).toMatchObject({ acted: 'resume', acted_ids: [id], result: { resumed: [id] } });
    const done = await until(api, waiter.id, 'succeeded');
    expect(done.result).toEqual({ merged_by: 'octocat' });
    expect(await api.ok<InteractionView>('GET', `/api/interactions/${id}`)).toMatchObject({
      status: 'resumed',
      resolution: { via: 'hook', by: `hook:e2e-resume run:${resumer.id}` },
      outcome: { result: { merged_by: 'octocat' } },
    });

    await api.sendEvent('take-it', { id });
    const taker = await runIn(api, 'e2e-take', 'succeeded');
    expect(taker).toMatchObject({ acted: 'take', acted_ids: [id], result: { merged_by: 'octocat' } });
    await api.sendEvent('take-it', { id });
    const second = await runIn(api, 'e2e-take', 'failed');
    expect(second.error?.kind).toBe('conflict');
    expect(second.error?.message).toContain(`interaction ${id} was already taken (by hook:e2e-take run:${taker.id}`);
    expect((await api.ok<InteractionView>('GET', `/api/interactions/${id}`)).status).toBe('taken');
  });

  it('a wait is cancelled by a later event; its run ends cancelled', async () => {
    await api.sendEvent('pr-opened', { pr: 'acme#2' });
    const waiter = await runIn(api, 'e2e-wait', 'parked');
    await api.sendEvent('pr-closed', { pr: 'acme#2' });
    const canceller = await runIn(api, 'e2e-cancel', 'succeeded');
    expect(canceller).toMatchObject({ acted: 'cancel', acted_ids: waiter.parked_on });
    expect(await until(api, waiter.id, 'cancelled')).toMatchObject({ result: { cancelled: waiter.parked_on[0] }, parked_on: [] });
  });

  it('resume-to-start latency: 20 waits resumed one by one', async () => {
    const lat: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const pr = `lat#${i}`;
      await api.sendEvent('pr-opened', { pr });
      const waiter = await eventually(
        async () => {
          const page = await api.ok<{ interactions: InteractionView[] }>('GET', '/api/interactions?status=open&hook=e2e-wait');
          return page.interactions[0];
        },
        30_000,
        'the wait to park',
      );
      await api.sendEvent('pr-merged', { pr, by: 'x' });
      const run = await until(api, waiter.run, 'succeeded');
      const i2 = await api.ok<InteractionView>('GET', `/api/interactions/${waiter.id}`);
      const claimed = run.history.filter((h) => h.event === 'claimed').at(-1) as unknown as { at: string };
      lat.push(ms(claimed.at) - ms(i2.resolution!.at));
    }
    process.stdout.write(`e2e parked: resume -> woken run claimed: median ${pct(lat, 50)} ms, p95 ${pct(lat, 95)} ms, max ${Math.max(...lat)} ms (n=20)\n`);
    expect(pct(lat, 50)).toBeLessThan(2_000);
  });

  it('1,000 parked runs hold no slot: one-slot executors keep serving other runs; memory per parked run', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keysBytes = async () => {
        let total = 0;
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
          cursor = next;
          const sizes = await Promise.all(keys.map((k) => redis.memory('USAGE', k, 'SAMPLES', 0)));
          total += sizes.reduce<number>((a, b) => a + (b ?? 0), 0);
        } while (cursor !== '0');
        return total;
      };
      const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
      const [before, usedBefore] = [await keysBytes(), await used()];
      await pool(1000, 25, async (n) => {
        expect((await api.sendEvent('park-many', { n })).body).toEqual({
          status: 'accepted',
          runs: 1,
          run_ids: [expect.any(String)],
          event_id: expect.any(String),
        });
      });
      await eventually(
        async () => ((await api.allRuns('e2e-park')).filter((r) => r.status === 'parked').length === 1000 ? true : undefined),
        120_000,
        '1,000 parked runs',
      );
      const [after, usedAfter] = [await keysBytes(), await used()];
      const perRun = (after - before) / 1000;
      process.stdout.write(
        `e2e parked: 1,000 parked runs: ${Math.round(perRun)} bytes each by MEMORY USAGE of their keys (${Math.round((1024 * 1024) / perRun)} per MiB); ` +
          `INFO used_memory delta ${Math.round((usedAfter - usedBefore) / 1000)} bytes each (shared Redis: noisy)\n`,
      );
      expect(await metricValue(procs[0]!.url, 'tai42_hook_runs_parked')).toBeGreaterThanOrEqual(1000);
      for (const p of procs.slice(2)) expect(await metricValue(p.url, 'tai42_hook_runs_in_flight')).toBe(0);

      const started = Date.now();
      for (let n = 0; n < 20; n += 1) await api.sendEvent('orders', { n });
      const served = await eventually(
        async () => {
          const all = await api.allRuns('e2e-echo');
          return all.length === 20 && all.every((r) => r.status === 'succeeded') ? all : undefined;
        },
        60_000,
        '20 other runs to succeed past 1,000 parked',
      );
      expect(new Set(served.map((r) => (r.result as { n: number }).n)).size).toBe(20);
      process.stdout.write(`e2e parked: 20 other runs served in ${Date.now() - started} ms past 1,000 parked runs (HOOKS_MAX_WORKERS=1, 2 executors)\n`);
    } finally {
      redis.disconnect();
    }
  });
});

describe('an executor killed between claim_intent and the commit', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2ekill');
  const procs: RoleProcess[] = [];
  let env: Record<string, string>;
  let api: Api;
  let paused: RoleProcess;

  beforeAll(async () => {
    await requirePlatform();
    env = { ...baseEnv(prefix, token), HOOKS_MAX_WORKERS: '4' };
    const ingress = startRole('ingress', 'ingress', env);
    paused = startRole('executor-paused', 'executor', { ...env, HOOKYARD_TEST_PAUSE_AT: 'claim_intent' });
    procs.push(ingress, startRole('scheduler', 'scheduler', env), paused);
    await Promise.all(procs.map((p) => p.waitListening()));
    api = new Api(ingress.url, token);
    await api.ok('PUT', '/api/states/declarations/conversation/pr', { schema: {}, description: 'a pull request conversation' });
    await api.ok('POST', '/api/hooks', { name: 'k-wait', topic: 'k-opened', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 }, subject: SUBJECT });
    await api.ok('POST', '/api/hooks', {
      name: 'k-resume',
      topic: 'k-merged',
      tool: 'echo',
      subject: SUBJECT,
      resume_expr: { content: '[$parked[] | {id, payload: {ok: true}}]' },
    });
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await cleanupPrefix(prefix);
  });

  it('finds one interaction resolved (held failed naming it) and one still open (tries again and resumes it)', async () => {
    const pauses = () => paused.logs().filter((r) => r.msg === 'test pause point reached');
    await api.sendEvent('k-opened', { pr: 'k#1' });
    const w1 = await runIn(api, 'k-wait', 'parked');
    await api.sendEvent('k-opened', { pr: 'k#2' });
    const w2 = await runIn(api, 'k-wait', 'parked', new Set([w1.id]));

    await api.sendEvent('k-merged', { pr: 'k#1' });
    await eventually(async () => (pauses().length === 1 ? true : undefined), 30_000, 'the first resume to stop at claim_intent');
    const r1 = String(pauses()[0]!.run);
    expect((await runOf(api, r1)).claim_intent).toBe(`resume:${w1.parked_on[0]}`);
    // Another door resolves it while the claim is held.
    await api.ok('POST', `/api/interactions/${w1.parked_on[0]}/cancel`, { reason: 'closed meanwhile' });

    await api.sendEvent('k-merged', { pr: 'k#2' });
    await eventually(async () => (pauses().length === 2 ? true : undefined), 30_000, 'the second resume to stop at claim_intent');
    const r2 = String(pauses()[1]!.run);

    paused.kill('SIGKILL');
    await paused.wait();
    const fresh = startRole('executor-fresh', 'executor', env);
    procs.push(fresh);
    await fresh.waitListening();

    const held = await until(api, r1, 'failed');
    expect(held).toMatchObject({ acted: '', error: { kind: 'conflict' } });
    expect(held.error!.message).toContain(`stopped while making a resume claim on ${w1.parked_on[0]}; ${w1.parked_on[0]} (cancelled) is no longer open`);
    expect(held.error!.message).toContain('the platform cannot tell whether this run');
    expect((await runOf(api, w1.id)).status).toBe('cancelled');

    const retried = await until(api, r2, 'succeeded');
    expect(retried).toMatchObject({ acted: 'resume', acted_ids: w2.parked_on });
    expect(retried.attempts).toBeGreaterThanOrEqual(2);
    expect(retried.history.map((h) => h.event)).toEqual(expect.arrayContaining(['lapsed', 'claim_checked']));
    expect(await until(api, w2.id, 'succeeded')).toMatchObject({ result: { ok: true } });
  });
});
