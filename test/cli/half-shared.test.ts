import { randomBytes } from 'node:crypto';
import { requireBuiltCli, startRole } from '../support/processes';

/** `--role all` is either wholly embedded or wholly shared; the banner says what really started. */
describe('serve --role all', () => {
  beforeAll(() => requireBuiltCli());

  it.each([
    [{ HOOKS_REDIS_URL: 'redis://127.0.0.1:6379' }, "role 'all' with HOOKS_REDIS_URL set needs HOOKS_NATS_URL too"],
    [{ HOOKS_NATS_URL: 'nats://127.0.0.1:4222' }, "role 'all' with HOOKS_NATS_URL set needs HOOKS_REDIS_URL too"],
  ])(
    'refuses to start half shared (%j)',
    async (env, line) => {
      const role = startRole('half', 'all', { HOOKS_API_TOKENS: `admin:${randomBytes(24).toString('hex')}`, ...env });
      const code = await Promise.race([role.wait(), new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000).unref())]);
      role.kill('SIGKILL');
      expect(code).not.toBe(0);
      expect(code).not.toBe('running');
      expect(role.lines.join('\n')).toContain(line);
    },
    40_000,
  );

  it('says what the embedded default started', async () => {
    const role = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${randomBytes(24).toString('hex')}` });
    try {
      await role.waitListening();
      const banner = role.logs().find((r) => typeof r.msg === 'string' && r.msg.includes('listening'))!;
      expect(String(banner.msg)).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+: ingress, scheduler, executor on a memory store and a memory bus$/);
      expect(banner).toMatchObject({ roles: ['ingress', 'scheduler', 'executor'], store: 'memory', bus: 'memory' });
    } finally {
      await role.stop('SIGKILL');
    }
  }, 40_000);
});
