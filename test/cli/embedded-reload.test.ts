/**
 * A reload that would leave a process on the in-memory store or bus where
 * more than one process shares the work is refused as at boot, naming the
 * variable, and nothing is applied.
 */
import { createLiveSettings } from '@hookyard/core';
import { embeddedRefusalError, type RoleName } from '../../packages/cli/src/runtime';

function liveFor(role: RoleName, initial: string) {
  const file = { text: initial };
  const live = createLiveSettings({
    env: { HOOKS_CONFIG_FILE: '/etc/hookyard/live/settings.yaml' },
    read: () => file.text,
    check: (next) => embeddedRefusalError(role, next),
  });
  return { live, file };
}

describe('reload and the in-memory form', () => {
  it('an executor whose file loses HOOKS_REDIS_URL refuses the reload naming it; the good value beside it is not applied', () => {
    const { live, file } = liveFor('executor', 'HOOKS_REDIS_URL: redis://127.0.0.1:6379\nHOOKS_NATS_URL: nats://127.0.0.1:4222\n');
    file.text = 'HOOKS_NATS_URL: nats://127.0.0.1:4222\nHOOKS_MAX_WORKERS: 4\n';
    const r = live.reload('file');
    expect(r).toMatchObject({ ok: false, variable: 'HOOKS_REDIS_URL' });
    expect(!r.ok && r.message).toBe(
      "HOOKS_REDIS_URL: role 'executor' runs as one of several processes and needs a shared store and bus; set HOOKS_REDIS_URL (the in-memory form lives in one process only: use --role all for the embedded default)",
    );
    expect(live.settings.maxWorkers).toBe(16);
    expect(live.generation()).toBe(1);
  });

  it('role all: a file that adds HOOKS_REDIS_URL alone (a shared store over an in-memory bus) is refused naming HOOKS_NATS_URL', () => {
    const { live, file } = liveFor('all', 'HOOKS_MAX_WORKERS: 2\n');
    file.text = 'HOOKS_MAX_WORKERS: 3\nHOOKS_REDIS_URL: redis://127.0.0.1:6379\n';
    expect(live.reload('sighup')).toMatchObject({ ok: false, variable: 'HOOKS_NATS_URL' });
    expect(live.settings.maxWorkers).toBe(2);
    // Both set (or neither): allowed, and the URLs are listed as needing a restart.
    file.text = 'HOOKS_MAX_WORKERS: 3\nHOOKS_REDIS_URL: redis://127.0.0.1:6379\nHOOKS_NATS_URL: nats://127.0.0.1:4222\n';
    expect(live.reload('sighup')).toMatchObject({
      ok: true,
      applied: [{ variable: 'HOOKS_MAX_WORKERS', from: 2, to: 3 }],
      restart_needed: [{ variable: 'HOOKS_REDIS_URL' }, { variable: 'HOOKS_NATS_URL' }],
    });
  });
});
