import { randomBytes } from 'node:crypto';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

/**
 * A role whose stdout reader goes away (a parent that exited, a log shipper
 * that restarted) keeps serving: its logs go through a non-blocking
 * destination that stops writing on EPIPE and counts what it drops. Before,
 * pino's synchronous destination retried EPIPE on the main thread and the
 * process no longer answered /healthz or finished a SIGTERM.
 */
describe('a role with a closed stdout', () => {
  let role: RoleProcess;
  beforeAll(() => requireBuiltCli());
  afterEach(() => role?.kill('SIGKILL'));

  it.each([
    ['closed (EPIPE)', (r: RoleProcess) => r.child.stdout!.destroy(), true],
    // Lines wait in the bounded buffer (1 MiB) while the pipe is full; this test writes less than that.
    ['full: nobody reads (EAGAIN)', (r: RoleProcess) => r.child.stdout!.pause(), false],
  ])(
    '%s: still serves /healthz and the door, counts dropped lines, and exits on SIGTERM within its grace',
    async (_what, stopReading, drops) => {
      const token = randomBytes(24).toString('hex');
      role = startRole('embedded', 'all', {
        HOOKS_API_TOKENS: `admin:${token}`,
        HOOKS_DOOR_RATE: '0',
        HOOKS_LOG_LEVEL: 'trace', // as many lines as possible once the reader is gone
        HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '2',
      });
      const url = await role.waitListening();
      // The reader goes away (every later write meets EPIPE) or stops reading (the pipe fills up).
      stopReading(role);

      const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const hook = await fetch(`${url}/api/hooks`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'chatty', topic: 'logs', tool: 'print' }) });
      expect(hook.status).toBe(201);
      for (let i = 0; i < 150; i++) {
        const r = await fetch(`${url}/universal_webhook/logs`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ i }),
        });
        expect(r.status).toBe(200);
      }
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The runs still finish (leases, the executor's loop), and the lines that could not be written are counted.
      await eventually(
        async () => {
          const runs = (await (await fetch(`${url}/api/hook-runs?hook=chatty&limit=200`, { headers: auth })).json()) as { runs: { status: string }[] };
          return runs.runs.length === 150 && runs.runs.every((r) => r.status === 'succeeded') ? true : undefined;
        },
        30_000,
        'the 150 runs to succeed',
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const dropped = Number(/^hookyard_log_lines_dropped_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1]);
      if (drops) expect(dropped).toBeGreaterThan(0);
      else expect(dropped).toBeGreaterThanOrEqual(0);

      const t0 = Date.now();
      role.kill('SIGTERM');
      const code = await Promise.race([role.wait(), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000).unref())]);
      expect(code).not.toBe('hung');
      // Generous against a busy machine, far below "never".
      expect(Date.now() - t0).toBeLessThan(20_000);
    },
    90_000,
  );
});
