/**
 * Live settings on a spawned `hookyard serve` (the embedded default): a
 * HOOKS_CONFIG_FILE mounted the way a Kubernetes ConfigMap is (a `..data`
 * symlink swapped atomically), reloaded by a change of the file, by SIGHUP and
 * by POST /api/settings/reload; each live setting observably changes what the
 * process does. Every wait is for a log line, a metric or an answer.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { Api, metricValue } from '../e2e/api';

jest.setTimeout(60_000);

const TOKENS = { reader: 'live-reader-token-0123456789', operator: 'live-operator-token-0123456789', admin: 'live-admin-token-0123456789' };
const API_TOKENS = Object.entries(TOKENS)
  .map(([role, token]) => `${role}:${token}`)
  .join(',');

/** A directory laid out as kubelet mounts a ConfigMap: hooks.yaml -> ..data/hooks.yaml, ..data -> ..<version>. */
class ConfigMapDir {
  readonly dir = mkdtempSync(join(tmpdir(), 'hy-live-'));
  readonly file = join(this.dir, 'hooks.yaml');
  private version = 0;

  constructor(text: string) {
    const first = this.writeVersion(text);
    symlinkSync(first, join(this.dir, '..data'));
    symlinkSync(join('..data', 'hooks.yaml'), this.file);
  }

  private writeVersion(text: string): string {
    this.version += 1;
    const name = `..v${this.version}`;
    mkdirSync(join(this.dir, name));
    writeFileSync(join(this.dir, name, 'hooks.yaml'), text);
    return name;
  }

  /** What kubelet does on an update: a new version directory, a new symlink renamed over `..data`, the old version removed. */
  swap(text: string): void {
    const old = `..v${this.version}`;
    const next = this.writeVersion(text);
    symlinkSync(next, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    rmSync(join(this.dir, old), { recursive: true, force: true });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const BASE = 'HOOKS_DOOR_RATE: 1000\nHOOKS_DOOR_BURST: 1000\nHOOKS_TOOLS_ALLOW: "*"\n';

describe('live settings of a running process', () => {
  let cfg: ConfigMapDir;
  let proc: RoleProcess;
  let admin: Api;

  /** Log records whose msg starts with `prefix`. */
  const logsStarting = (prefix: string) => proc.logs().filter((r) => typeof r.msg === 'string' && r.msg.startsWith(prefix));
  const generation = () => metricValue(proc.url, 'tai42_hook_runs_config_generation');
  const untilGeneration = (n: number) => eventually(async () => ((await generation()) === n ? n : undefined), 15_000, `config generation ${n}`);

  beforeAll(async () => {
    requireBuiltCli();
    cfg = new ConfigMapDir(BASE);
    // HOOKS_LOG_LEVEL left to the file (startRole sets info; node leaves an undefined variable out), HOOKS_API_RATE set in both.
    const env = { HOOKS_API_TOKENS: API_TOKENS, HOOKS_CONFIG_FILE: cfg.file, HOOKS_API_RATE: '1000', HOOKS_LOG_LEVEL: undefined } as unknown as Record<
      string,
      string
    >;
    proc = startRole('live', 'all', env);
    await proc.waitListening();
    admin = new Api(proc.url, TOKENS.admin);
    await admin.ok('POST', '/api/hooks', { name: 'live-echo', topic: 'live', tool: 'echo', start_expr: { content: '{n: .n}' } });
  });

  afterAll(async () => {
    await proc?.stop();
    cfg?.remove();
  });

  /** Sends one event and waits for its run to end; answers the run. */
  async function fire(n: number): Promise<{ status: string; error: { kind: string; message: string } | null }> {
    const sent = await admin.sendEvent('live', { n });
    expect(sent.status).toBe(200);
    const id = (sent.body as unknown as { run_ids: string[] }).run_ids[0]!;
    return eventually(
      async () => {
        const run = await admin.ok<{ status: string; error: { kind: string; message: string } | null }>('GET', `/api/hook-runs/${id}`);
        return ['succeeded', 'failed'].includes(run.status) ? run : undefined;
      },
      15_000,
      `run ${id} to end`,
    );
  }

  it('boots at generation 1 and shows where each value came from', async () => {
    expect(await generation()).toBe(1);
    const view = await admin.ok<{ generation: number; config_file: string; settings: { variable: string; value: unknown; source: string; live: boolean }[] }>(
      'GET',
      '/api/settings',
    );
    expect(view.generation).toBe(1);
    expect(view.config_file).toBe(cfg.file);
    const row = (v: string) => view.settings.find((s) => s.variable === v);
    expect(row('HOOKS_DOOR_RATE')).toEqual({ variable: 'HOOKS_DOOR_RATE', value: 1000, source: 'file', live: true });
    expect(row('HOOKS_LOG_LEVEL')).toEqual({ variable: 'HOOKS_LOG_LEVEL', value: 'info', source: 'default', live: true });
    expect(row('HOOKS_API_RATE')).toEqual({ variable: 'HOOKS_API_RATE', value: 1000, source: 'environment', live: true });
    expect(row('HOOKS_RUN_LEASE_SECONDS')).toEqual({ variable: 'HOOKS_RUN_LEASE_SECONDS', value: 30, source: 'default', live: false });
    expect(row('HOOKS_API_TOKENS')?.value).toEqual({ set: true, roles: ['reader', 'operator', 'admin'] });
    expect(JSON.stringify(view)).not.toContain('token-0123456789');
  });

  it('a ConfigMap swap of HOOKS_TOOLS_ALLOW reloads by itself and is checked at call time', async () => {
    expect((await fire(1)).status).toBe('succeeded');
    cfg.swap(BASE.replace('HOOKS_TOOLS_ALLOW: "*"', 'HOOKS_TOOLS_ALLOW: "*,!echo"'));
    await untilGeneration(2);
    const reloaded = logsStarting('settings reloaded (generation 2)');
    expect(reloaded).toHaveLength(1);
    expect(reloaded[0]).toMatchObject({ trigger: 'file', applied: [{ variable: 'HOOKS_TOOLS_ALLOW', from: ['*'], to: ['*', '!echo'] }], restart_needed: [] });
    const refused = await fire(2);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatchObject({ kind: 'unauthorized' });
    expect(refused.error!.message).toContain("tool 'echo' is not allowed for hook 'live-echo'");
  });

  it('SIGHUP reloads: the door rate and burst change the door answer from the next request', async () => {
    cfg.swap(BASE.replace('HOOKS_DOOR_RATE: 1000\nHOOKS_DOOR_BURST: 1000', 'HOOKS_DOOR_RATE: 0.01\nHOOKS_DOOR_BURST: 1'));
    // The watch may get there first; either way exactly one reload applies it, and SIGHUP after it finds nothing new.
    proc.kill('SIGHUP');
    await untilGeneration(3);
    await eventually(async () => (proc.logs().some((r) => r.trigger === 'sighup') ? true : undefined), 15_000, 'the SIGHUP reload line');
    const third = logsStarting('settings reloaded (generation 3)')[0]!;
    expect(third.applied).toEqual([
      { variable: 'HOOKS_TOOLS_ALLOW', from: ['*', '!echo'], to: ['*'] },
      { variable: 'HOOKS_DOOR_RATE', from: 1000, to: 0.01 },
      { variable: 'HOOKS_DOOR_BURST', from: 1000, to: 1 },
    ]);
    const first = await admin.sendEvent('live', { n: 3 });
    const second = await admin.sendEvent('live', { n: 4 });
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
  });

  it('POST /api/settings/reload: roles, restart-needed list, env over file, and a bad value refused whole naming it', async () => {
    const as = (role: keyof typeof TOKENS) => new Api(proc.url, TOKENS[role]);
    expect((await fetch(`${proc.url}/api/settings/reload`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${proc.url}/api/settings`)).status).toBe(401);
    expect((await as('reader').call('GET', '/api/settings')).status).toBe(403);
    expect((await as('operator').call('GET', '/api/settings')).status).toBe(200);
    expect((await as('operator').call('POST', '/api/settings/reload')).status).toBe(403);

    cfg.swap(`${BASE}HOOKS_KEY_PREFIX: elsewhere\nHOOKS_API_RATE: 1\nHOOKS_RUN_MAX_ATTEMPTS: 7\n`);
    await untilGeneration(4);
    const r = await admin.ok<Record<string, unknown>>('POST', '/api/settings/reload');
    expect(r).toEqual({
      ok: true,
      trigger: 'api',
      generation: 4,
      applied: [],
      restart_needed: [{ variable: 'HOOKS_KEY_PREFIX', from: 'hookyard', to: 'elsewhere' }],
      env_overrides_file: ['HOOKS_API_RATE'],
    });
    const view = await admin.ok<{ settings: { variable: string; value: unknown; source: string; pending_restart?: unknown }[] }>('GET', '/api/settings');
    expect(view.settings.find((s) => s.variable === 'HOOKS_KEY_PREFIX')).toMatchObject({ value: 'hookyard', pending_restart: 'elsewhere' });
    expect(view.settings.find((s) => s.variable === 'HOOKS_API_RATE')).toMatchObject({ value: 1000, source: 'environment' });
    expect(view.settings.find((s) => s.variable === 'HOOKS_RUN_MAX_ATTEMPTS')).toMatchObject({ value: 7, source: 'file' });

    // A good value beside a bad one: neither is applied, the answer names the bad one.
    cfg.swap(`${BASE}HOOKS_RUN_MAX_ATTEMPTS: 9\nHOOKS_TOOL_TIMEOUT_SECONDS: none\n`);
    await eventually(async () => (logsStarting('settings reload refused').length >= 1 ? true : undefined), 15_000, 'the file watch to refuse');
    const bad = await admin.call<{ error: { kind: string; message: string; details: string[] } }>('POST', '/api/settings/reload');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({
      kind: 'bad_input',
      message: 'settings reload refused, nothing applied: HOOKS_TOOL_TIMEOUT_SECONDS: expected a number, got "none"',
      details: ['HOOKS_TOOL_TIMEOUT_SECONDS: expected a number, got "none"'],
    });
    expect(await generation()).toBe(4);
    const after = await admin.ok<{ settings: { variable: string; value: unknown }[] }>('GET', '/api/settings');
    expect(after.settings.find((s) => s.variable === 'HOOKS_RUN_MAX_ATTEMPTS')?.value).toBe(7);
    const text = await (await fetch(`${proc.url}/metrics`)).text();
    expect(text).toMatch(/^tai42_hook_runs_config_reloads_total\{outcome="refused",role="all"\} 2$/m);
  });

  it('a file briefly missing keeps the settings in effect; back with a new log level, that level applies', async () => {
    rmSync(join(cfg.dir, '..data'));
    const missing = await admin.call<{ error: { message: string } }>('POST', '/api/settings/reload');
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe(`settings reload refused, nothing applied: HOOKS_CONFIG_FILE: cannot read ${cfg.file} (ENOENT)`);
    expect(await generation()).toBe(4);

    cfg.swap(`${BASE}HOOKS_RUN_MAX_ATTEMPTS: 7\nHOOKS_LOG_LEVEL: warn\n`);
    await untilGeneration(5);
    const infoLines = logsStarting('settings reloaded').length;
    const warnLines = logsStarting('settings reload refused').length;
    // An unchanged reload logs at INFO, now below the level; a refused one at WARN, still written (and after it in the stream).
    expect(await admin.ok('POST', '/api/settings/reload')).toMatchObject({ ok: true, generation: 5, applied: [] });
    cfg.swap(`${BASE}HOOKS_LOG_LEVEL: loud\n`);
    await eventually(async () => (logsStarting('settings reload refused').length > warnLines ? true : undefined), 15_000, 'the WARN of the refused reload');
    expect(logsStarting('settings reloaded').length).toBe(infoLines);
    expect(logsStarting('settings reload refused').at(-1)).toMatchObject({ trigger: 'file', variable: 'HOOKS_LOG_LEVEL' });
  });
});

describe('a bad HOOKS_CONFIG_FILE at boot', () => {
  it('exits 2 with one line naming the variable', async () => {
    requireBuiltCli();
    const dir = mkdtempSync(join(tmpdir(), 'hy-live-boot-'));
    try {
      writeFileSync(join(dir, 'hooks.yaml'), 'HOOKS_MAX_WORKER: 4\n');
      const p = startRole('boot', 'all', { HOOKS_CONFIG_FILE: join(dir, 'hooks.yaml') });
      expect(await p.wait()).toBe(2);
      expect(p.lines.join('\n')).toContain(`HOOKS_MAX_WORKER: in ${join(dir, 'hooks.yaml')} is not a Hookyard setting; did you mean HOOKS_MAX_WORKERS?`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
