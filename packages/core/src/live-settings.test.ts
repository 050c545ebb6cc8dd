import { SETTINGS_REGISTRY, SETTINGS_VARIABLES, SettingsError, loadSettings, settingsDocs } from './settings';
import { parseSettingsFile, resolveSettings } from './settings-file';
import { createLiveSettings } from './live-settings';

/** A config file held in memory: tests edit `files[path]`. */
function fakeFiles(initial: Record<string, string>) {
  const files: Record<string, string | undefined> = { ...initial };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };
  return { files, read };
}

describe('the settings registry', () => {
  it('is keyed by variable name; every entry has a field, a doc, a default and says whether it applies live', () => {
    const fields = new Set<string>();
    for (const [variable, spec] of Object.entries(SETTINGS_REGISTRY)) {
      expect(variable).toMatch(/^HOOKS_[A-Z0-9_]+$/);
      expect(spec.doc.startsWith(`${variable}:`)).toBe(false);
      expect(spec.default.length).toBeGreaterThan(0);
      expect(typeof spec.live).toBe('boolean');
      expect(fields.has(spec.field)).toBe(false);
      fields.add(spec.field);
    }
    expect(SETTINGS_VARIABLES).toContain('TAI_DEFAULT_REDIS_URL');
    expect(settingsDocs()).toContain(
      'HOOKS_MAX_WORKERS: runs in flight per executor process; a reload applies from the next run admitted, never cancelling one in flight (default 16; applies live)',
    );
    expect(settingsDocs()).toContain('HOOKS_NATS_URL: NATS with JetStream for dispatch (default in-memory; needs a restart)');
  });

  it('parses through the registry: every default loads, each bad value names its variable', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({ maxWorkers: 16, approvalTimeoutMs: 3_600_000, apiBurst: undefined, configFile: undefined });
    expect(loadSettings({ HOOKS_API_BURST: '50' }).apiBurst).toBe(50);
    expect(() => loadSettings({ HOOKS_API_BURST: '0' })).toThrow(new SettingsError('HOOKS_API_BURST', 'must be >= 1, got 0'));
    expect(() => loadSettings({ HOOKS_APPROVAL_TIMEOUT_SECONDS: 'soon' })).toThrow('HOOKS_APPROVAL_TIMEOUT_SECONDS: expected a number, got "soon"');
  });
});

describe('HOOKS_CONFIG_FILE', () => {
  it('reads YAML and JSON by the same names; lists join with commas, numbers and booleans become text, null is unset', () => {
    expect(parseSettingsFile('HOOKS_MAX_WORKERS: 8\nHOOKS_TOOLS_ALLOW: [echo, print]\nHOOKS_REDIS_CLUSTER: false\nHOOKS_LOG_LEVEL: null\n', 'c.yaml')).toEqual({
      HOOKS_MAX_WORKERS: '8',
      HOOKS_TOOLS_ALLOW: 'echo,print',
      HOOKS_REDIS_CLUSTER: 'false',
    });
    expect(parseSettingsFile('{"HOOKS_DOOR_RATE": 0.5}', 'c.json')).toEqual({ HOOKS_DOOR_RATE: '0.5' });
    expect(parseSettingsFile('', 'empty.yaml')).toEqual({});
  });

  it.each([
    ['HOOKS_MAX_WORKER: 8', 'HOOKS_MAX_WORKER', 'HOOKS_MAX_WORKER: in c.yaml is not a Hookyard setting; did you mean HOOKS_MAX_WORKERS?'],
    ['__proto__: 8', '__proto__', '__proto__: in c.yaml is not a Hookyard setting (see `hookyard settings`)'],
    ['HOOKS_SECRET_GITHUB: s3cret', 'HOOKS_SECRET_GITHUB', 'HOOKS_SECRET_GITHUB: in c.yaml is not a Hookyard setting (see `hookyard settings`)'],
    ['HOOKS_CONFIG_FILE: other.yaml', 'HOOKS_CONFIG_FILE', 'HOOKS_CONFIG_FILE: is read from the environment only, not from c.yaml'],
    ['HOOKS_MAX_WORKERS: {a: 1}', 'HOOKS_MAX_WORKERS', 'HOOKS_MAX_WORKERS: in c.yaml must be a string, number, boolean or list of them'],
    ['- HOOKS_MAX_WORKERS', 'HOOKS_CONFIG_FILE', 'HOOKS_CONFIG_FILE: c.yaml must be a mapping of setting names to values'],
    ['HOOKS_MAX_WORKERS: [1\n', 'HOOKS_CONFIG_FILE', undefined],
    ['HOOKS_MAX_WORKERS: 1\nHOOKS_MAX_WORKERS: 2\n', 'HOOKS_CONFIG_FILE', undefined],
  ])('refuses %j naming %s', (text, variable, message) => {
    let err: unknown;
    try {
      parseSettingsFile(text, 'c.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as SettingsError).variable).toBe(variable);
    if (message) expect((err as SettingsError).message).toBe(message);
    else expect((err as SettingsError).message).toMatch(/^HOOKS_CONFIG_FILE: c\.yaml is not valid YAML or JSON: /);
  });

  it('the environment wins on a clash and says so; each value knows where it came from', () => {
    const { read } = fakeFiles({ '/cfg/hooks.yaml': 'HOOKS_MAX_WORKERS: 8\nHOOKS_DOOR_RATE: 5\n' });
    const r = resolveSettings({ HOOKS_CONFIG_FILE: '/cfg/hooks.yaml', HOOKS_MAX_WORKERS: '3' }, read);
    expect(r.settings.maxWorkers).toBe(3);
    expect(r.settings.doorRate).toBe(5);
    expect(r.overridden).toEqual(['HOOKS_MAX_WORKERS']);
    expect(r.sources).toMatchObject({ HOOKS_MAX_WORKERS: 'environment', HOOKS_DOOR_RATE: 'file', HOOKS_API_RATE: 'default', HOOKS_CONFIG_FILE: 'environment' });
  });

  it('a file that cannot be read, or a bad value in it, names the variable', () => {
    const { read } = fakeFiles({ '/cfg/bad.yaml': 'HOOKS_MAX_WORKERS: lots\n' });
    expect(() => resolveSettings({ HOOKS_CONFIG_FILE: '/cfg/none.yaml' }, read)).toThrow(
      new SettingsError('HOOKS_CONFIG_FILE', 'cannot read /cfg/none.yaml (ENOENT)'),
    );
    expect(() => resolveSettings({ HOOKS_CONFIG_FILE: '/cfg/bad.yaml' }, read)).toThrow(
      new SettingsError('HOOKS_MAX_WORKERS', 'expected a number, got "lots"'),
    );
  });
});

describe('reload', () => {
  const path = '/cfg/hooks.yaml';

  it('applies the live settings in place, lists the others as needing a restart, and bumps the generation', () => {
    const { files, read } = fakeFiles({ [path]: 'HOOKS_MAX_WORKERS: 2\nHOOKS_KEY_PREFIX: one\n' });
    const live = createLiveSettings({ env: { HOOKS_CONFIG_FILE: path }, read });
    const seen: string[][] = [];
    live.onApply((changed) => seen.push([...changed].sort()));
    const settings = live.settings;
    expect(settings.maxWorkers).toBe(2);
    expect(live.generation()).toBe(1);

    files[path] = 'HOOKS_MAX_WORKERS: 8\nHOOKS_KEY_PREFIX: two\nHOOKS_LOG_LEVEL: debug\n';
    const r = live.reload('file');
    expect(r).toEqual({
      ok: true,
      trigger: 'file',
      generation: 2,
      applied: [
        { variable: 'HOOKS_MAX_WORKERS', from: 2, to: 8 },
        { variable: 'HOOKS_LOG_LEVEL', from: 'info', to: 'debug' },
      ],
      restart_needed: [{ variable: 'HOOKS_KEY_PREFIX', from: 'one', to: 'two' }],
      env_overrides_file: [],
    });
    expect(live.settings).toBe(settings);
    expect(settings).toMatchObject({ maxWorkers: 8, logLevel: 'debug', keyPrefix: 'one' });
    expect(seen).toEqual([['logLevel', 'maxWorkers']]);
    const view = live.view();
    expect(view.generation).toBe(2);
    expect(view.settings.find((v) => v.variable === 'HOOKS_KEY_PREFIX')).toEqual({
      variable: 'HOOKS_KEY_PREFIX',
      value: 'one',
      source: 'file',
      live: false,
      pending_restart: 'two',
    });
    expect(view.settings.find((v) => v.variable === 'HOOKS_MAX_WORKERS')).toEqual({ variable: 'HOOKS_MAX_WORKERS', value: 8, source: 'file', live: true });

    // Nothing new: nothing applied, the generation stays.
    const again = live.reload('sighup');
    expect(again).toMatchObject({ ok: true, generation: 2, applied: [], restart_needed: [{ variable: 'HOOKS_KEY_PREFIX' }] });
    expect(seen).toHaveLength(1);
  });

  it('a bad value changes nothing, not even the good values beside it, and names the variable', () => {
    const { files, read } = fakeFiles({ [path]: 'HOOKS_MAX_WORKERS: 2\n' });
    const live = createLiveSettings({ env: { HOOKS_CONFIG_FILE: path }, read });
    files[path] = 'HOOKS_MAX_WORKERS: 8\nHOOKS_DOOR_RATE: -1\n';
    expect(live.reload('api')).toEqual({
      ok: false,
      trigger: 'api',
      generation: 1,
      variable: 'HOOKS_DOOR_RATE',
      message: 'HOOKS_DOOR_RATE: must be >= 0, got -1',
    });
    expect(live.settings.maxWorkers).toBe(2);
    expect(live.settings.doorRate).toBe(200);
    files[path] = 'HOOKS_RUN_RETRY_BASE_SECONDS: 10\nHOOKS_RUN_RETRY_CAP_SECONDS: 5\n';
    expect(live.reload('api')).toMatchObject({ ok: false, variable: 'HOOKS_RUN_RETRY_CAP_SECONDS' });
    expect(live.settings.retryBaseMs).toBe(2000);
    delete files[path];
    expect(live.reload('sighup')).toMatchObject({ ok: false, variable: 'HOOKS_CONFIG_FILE', message: `HOOKS_CONFIG_FILE: cannot read ${path} (ENOENT)` });
  });

  it('the whole-configuration check refuses too (the embedded-form refusal of the CLI)', () => {
    const { files, read } = fakeFiles({ [path]: 'HOOKS_REDIS_URL: redis://127.0.0.1:6379\n' });
    const live = createLiveSettings({
      env: { HOOKS_CONFIG_FILE: path },
      read,
      check: (next) => (next.redisUrl ? null : new SettingsError('HOOKS_REDIS_URL', 'needed')),
    });
    files[path] = 'HOOKS_MAX_WORKERS: 4\n';
    expect(live.reload('file')).toMatchObject({ ok: false, variable: 'HOOKS_REDIS_URL', message: 'HOOKS_REDIS_URL: needed' });
    expect(live.settings.maxWorkers).toBe(16);
  });

  it('the view never shows a token or a URL password; env over file is named', () => {
    const { read } = fakeFiles({ [path]: 'HOOKS_API_TOKENS: "admin:file-token-0123456789"\n' });
    const live = createLiveSettings({
      env: {
        HOOKS_CONFIG_FILE: path,
        HOOKS_API_TOKENS: 'admin:env-admin-token-0123456789,reader:env-reader-token-0123456789',
        HOOKS_REDIS_URL: 'redis://user:hunter2hunter2@redis.internal:6379/0',
        HOOKS_APPROVAL_LINK_SECRET: 'env:HOOKS_SECRET_LINKS',
      },
      read,
    });
    const view = live.view();
    const text = JSON.stringify(view);
    expect(text).not.toContain('token-0123456789');
    expect(text).not.toContain('hunter2');
    expect(view.env_overrides_file).toEqual(['HOOKS_API_TOKENS']);
    const row = (v: string) => view.settings.find((s) => s.variable === v);
    expect(row('HOOKS_API_TOKENS')).toMatchObject({ value: { set: true, roles: ['admin', 'reader'] }, source: 'environment' });
    expect(row('HOOKS_REDIS_URL')?.value).toBe('redis://user:***@redis.internal:6379/0');
    expect(row('HOOKS_APPROVAL_LINK_SECRET')?.value).toBe('env:HOOKS_SECRET_LINKS');
    // In the variable's unit: seconds, though kept as ms.
    expect(row('HOOKS_RUN_RETRY_BASE_SECONDS')).toMatchObject({ value: 2, source: 'default', live: true });
  });
});
