/**
 * SIGTERM on an executor process: it stops taking work, gives the runs in
 * flight HOOKS_RUN_SHUTDOWN_GRACE_SECONDS, then hands back what is left (a run
 * that started a tool that is not crash-resumable is held as failed; runs it
 * never claimed stay due for another executor). The process exits 0.
 */
import { randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, sleep, startRole, startRoles, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { json, startMockServer, type MockServer } from '../support/http-recorder';
import { Api } from './api';

jest.setTimeout(120_000);

const TERMINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);

describe('executor shutdown on SIGTERM', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('sd');
  const procs: RoleProcess[] = [];
  const inFlight = new Set<number>();
  let server: MockServer;
  let env: Record<string, string>;
  let api: Api;

  beforeAll(async () => {
    await requirePlatform();
    // The tool: answers after `delay_ms` from the call's arguments.
    server = await startMockServer(async (req) => {
      if (req.method !== 'POST') return { status: 404 };
      const args = json<{ i: number; delay_ms: number }>(req);
      inFlight.add(args.i);
      await sleep(args.delay_ms);
      inFlight.delete(args.i);
      return { body: JSON.stringify({ i: args.i }) };
    });
    env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '1',
      HOOKS_DOOR_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV, // the tool servers these tests start listen on loopback
    });
    procs.push(
      ...(await startRoles(env, [
        ['ingress', 'ingress'],
        ['scheduler', 'scheduler'],
      ])),
    );
    api = new Api(procs[0]!.url, token);
    await api.ok('POST', '/api/tools', { name: 'timed', endpoint: server.url, protocol: 'langserve-direct', timeout_ms: 30_000 });
    await api.ok('POST', '/api/hooks', { name: 'sd-timed', topic: 'timed', tool: 'timed', start_expr: { content: '{i: .i, delay_ms: .delay_ms}' } });
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await server.close();
    await cleanupPrefix(prefix);
  });

  async function runsById(): Promise<Map<number, { id: string; status: string; attempts: number; error: { kind: string; message: string } | null }>> {
    const all = await api.allRuns('sd-timed');
    return new Map(all.map((r) => [(r as unknown as { payload: { i: number } }).payload.i, r]));
  }

  it('lets runs in flight finish inside the grace, then exits 0', async () => {
    const exec = startRole('executor-a', 'executor', { ...env, HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '10', HOOKS_MAX_WORKERS: '2' });
    procs.push(exec);
    await exec.waitListening();
    for (const i of [1, 2]) expect((await api.sendEvent('timed', { i, delay_ms: 1500 })).body.runs).toBe(1);
    await eventually(async () => (inFlight.size === 2 ? true : undefined), 20_000, 'two tool calls in flight');
    exec.kill('SIGTERM');
    expect(await exec.wait()).toBe(0);
    const runs = await runsById();
    expect([runs.get(1)?.status, runs.get(2)?.status]).toEqual(['succeeded', 'succeeded']);
  });

  it('past the grace, hands back: a started non-resumable run is held failed, unclaimed runs go to the next executor', async () => {
    const exec = startRole('executor-b', 'executor', { ...env, HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '0.5', HOOKS_MAX_WORKERS: '1' });
    procs.push(exec);
    await exec.waitListening();
    expect((await api.sendEvent('timed', { i: 10, delay_ms: 20_000 })).body.runs).toBe(1);
    await eventually(async () => (inFlight.has(10) ? true : undefined), 20_000, 'the long call in flight');
    for (const i of [11, 12]) expect((await api.sendEvent('timed', { i, delay_ms: 10 })).body.runs).toBe(1);
    exec.kill('SIGTERM');
    expect(await exec.wait()).toBe(0);

    const held = (await runsById()).get(10)!;
    expect(held.status).toBe('failed');
    expect(held.error?.message).toMatch(/interrupted|shutdown/i);

    const next = startRole('executor-c', 'executor', { ...env, HOOKS_MAX_WORKERS: '4' });
    procs.push(next);
    await next.waitListening();
    const done = await eventually(
      async () => {
        const runs = await runsById();
        const r11 = runs.get(11);
        const r12 = runs.get(12);
        return r11 && r12 && TERMINAL.has(r11.status) && TERMINAL.has(r12.status) ? runs : undefined;
      },
      30_000,
      'the handed-back runs to finish on the next executor',
    );
    expect([done.get(11)?.status, done.get(12)?.status]).toEqual(['succeeded', 'succeeded']);
    expect(done.get(10)?.status).toBe('failed');
  });
});
