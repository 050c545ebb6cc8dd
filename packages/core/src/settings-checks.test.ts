import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsError, checkSettingsAtBoot, loadSettings, unknownSettingMessage, unknownSettings } from './settings';

/** The SettingsError a load throws (or fails the test). */
function refusal(env: Record<string, string>): SettingsError {
  try {
    loadSettings(env);
  } catch (err) {
    if (err instanceof SettingsError) return err;
    throw err;
  }
  throw new Error(`loadSettings(${JSON.stringify(env)}) did not refuse`);
}

describe('settings: every bad value names its variable', () => {
  it.each([
    ['HOOKS_KEY_PREFIX', '', 'HOOKS_KEY_PREFIX: must not be empty (unset it for the default hookyard)'],
    ['HOOKS_KEY_PREFIX', '  ', 'HOOKS_KEY_PREFIX: must not be empty (unset it for the default hookyard)'],
    ['HOOKS_KEY_PREFIX', 'a{b}', 'HOOKS_KEY_PREFIX: must be up to 64 letters, digits, _, ., : or - (no braces: the store adds its own hash tags), got "a{b}"'],
    ['HOOKS_NATS_PREFIX', '', 'HOOKS_NATS_PREFIX: must not be empty (unset it for the default hooks)'],
    ['HOOKS_NATS_PREFIX', 'hooks.*', 'HOOKS_NATS_PREFIX: must be NATS subject tokens (letters, digits, _ and -) joined by dots, got "hooks.*"'],
    ['HOOKS_NATS_PREFIX', 'a..b', 'HOOKS_NATS_PREFIX: must be NATS subject tokens (letters, digits, _ and -) joined by dots, got "a..b"'],
    ['HOOKS_NATS_STORAGE', 'disk', 'HOOKS_NATS_STORAGE: must be one of file|memory, got "disk"'],
    ['HOOKS_HTTP_HOST', 'not a host', 'HOOKS_HTTP_HOST: must be an IP address or a host name to bind, got "not a host"'],
    ['HOOKS_TRUSTED_PROXIES', '10.0.0.1,10.0.0.0/33', 'HOOKS_TRUSTED_PROXIES: entry "10.0.0.0/33" is not an IP address or CIDR range'],
    ['HOOKS_TRUSTED_PROXIES', 'proxy.local', 'HOOKS_TRUSTED_PROXIES: entry "proxy.local" is not an IP address or CIDR range'],
    [
      'HOOKS_TOOLS_ALLOW',
      '!local_shell',
      'HOOKS_TOOLS_ALLOW: allows no tool: "!local_shell" only excludes; add * (e.g. "*,!local_shell") or the names to allow',
    ],
    ['HOOKS_TOOLS_ALLOW', ',', 'HOOKS_TOOLS_ALLOW: allows no tool, got "," (unset it for *)'],
    ['HOOKS_TOOLS_ALLOW', 'echo,bad name', 'HOOKS_TOOLS_ALLOW: entry "bad name" is not *, a tool name or !name'],
  ])('%s=%j', (variable, value, message) => {
    const e = refusal({ [variable]: value });
    expect(e.variable).toBe(variable);
    expect(e.message).toBe(message);
  });

  it('HOOKS_UNROUTED_EVENT_MAX_BYTES may not exceed HOOKS_UNROUTED_MAX_BYTES (one event past the whole budget could never be kept)', () => {
    const e = refusal({ HOOKS_UNROUTED_MAX_BYTES: '4096', HOOKS_UNROUTED_EVENT_MAX_BYTES: '8192' });
    expect(e.variable).toBe('HOOKS_UNROUTED_EVENT_MAX_BYTES');
    expect(e.message).toMatch(/must be <= HOOKS_UNROUTED_MAX_BYTES \(4096\)/);
    expect(loadSettings({ HOOKS_UNROUTED_MAX_BYTES: '8192', HOOKS_UNROUTED_EVENT_MAX_BYTES: '8192' })).toMatchObject({
      unroutedMaxBytes: 8192,
      unroutedEventMaxBytes: 8192,
    });
  });

  it('good values still load: a host name, IPv6, CIDR ranges, dotted prefixes, narrowed allowlists', () => {
    const s = loadSettings({
      HOOKS_HTTP_HOST: '::',
      HOOKS_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8, 192.168.1.1',
      HOOKS_NATS_PREFIX: 'team-a.hooks',
      HOOKS_KEY_PREFIX: 'team-a:hy',
      HOOKS_TOOLS_ALLOW: '*,!local_shell',
    });
    expect(s).toMatchObject({ httpHost: '::', natsPrefix: 'team-a.hooks', keyPrefix: 'team-a:hy', toolsAllow: ['*', '!local_shell'] });
    expect(s.trustedProxies).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.1.1']);
    expect(loadSettings({ HOOKS_HTTP_HOST: 'ingress.internal' }).httpHost).toBe('ingress.internal');
    expect(loadSettings({}).toolsAllow).toEqual(['*']);
    expect(loadSettings({}).natsStorage).toBe('file');
    expect(loadSettings({ HOOKS_NATS_STORAGE: ' Memory ' }).natsStorage).toBe('memory');
  });
});

describe('the agent door OAuth settings (HOOKS_OIDC_*)', () => {
  it('are refused at start with a sentence when inconsistent; the audience defaults to the /mcp URL under HOOKS_PUBLIC_URL', () => {
    expect(refusal({ HOOKS_OIDC_ISSUER: 'https://idp.example.com' }).message).toBe(
      "HOOKS_OIDC_ISSUER: is set but neither HOOKS_PUBLIC_URL nor HOOKS_OIDC_AGENT_AUDIENCE is: access tokens need this resource's URL as their audience; set HOOKS_PUBLIC_URL (the audience is then its /mcp URL)",
    );
    expect(refusal({ HOOKS_OIDC_AGENT_AUDIENCE: 'https://hooks.example.com/mcp' }).variable).toBe('HOOKS_OIDC_AGENT_AUDIENCE');
    expect(refusal({ HOOKS_OIDC_ISSUER: 'http://idp.example.com' }).message).toBe(
      'HOOKS_OIDC_ISSUER: an issuer must be https (plain http only on loopback), got "http://idp.example.com": its keys are fetched from it',
    );
    expect(refusal({ HOOKS_OIDC_ISSUER: 'https://idp.example.com', HOOKS_OIDC_AGENT_AUDIENCE: 'api://hookyard' }).variable).toBe('HOOKS_OIDC_AGENT_AUDIENCE');
    const s = loadSettings({ HOOKS_OIDC_ISSUER: 'https://a.example.com/, http://127.0.0.1:9000', HOOKS_PUBLIC_URL: 'https://hooks.example.com' });
    expect(s.oidcIssuers).toEqual(['https://a.example.com/', 'http://127.0.0.1:9000']);
    expect(s.oidcAgentAudience).toBeUndefined();
    expect(loadSettings({}).oidcIssuers).toEqual([]);
  });

  it('for people: the API audience needs an issuer and differs from the agent door; the console client, claim and map need the API audience', () => {
    const base = { HOOKS_OIDC_ISSUER: 'https://idp.example.com', HOOKS_PUBLIC_URL: 'https://hooks.example.com' };
    expect(refusal({ HOOKS_OIDC_API_AUDIENCE: 'https://hooks.example.com/api' }).message).toBe(
      'HOOKS_OIDC_API_AUDIENCE: is set without HOOKS_OIDC_ISSUER: no token could be checked against it; set the issuer or unset the audience',
    );
    expect(refusal({ ...base, HOOKS_OIDC_API_AUDIENCE: 'https://hooks.example.com/mcp' }).message).toBe(
      "HOOKS_OIDC_API_AUDIENCE: is the agent door's audience too (https://hooks.example.com/mcp): a token for one door would open the other; give the API its own audience (e.g. HOOKS_PUBLIC_URL + /api)",
    );
    expect(refusal({ ...base, HOOKS_OIDC_CONSOLE_CLIENT_ID: 'console' }).message).toBe(
      'HOOKS_OIDC_CONSOLE_CLIENT_ID: is set without HOOKS_OIDC_API_AUDIENCE: people sign in only with tokens for the API; set the API audience or unset it',
    );
    expect(refusal({ ...base, HOOKS_OIDC_ROLE_MAP: 'hy-ops=operator' }).variable).toBe('HOOKS_OIDC_ROLE_MAP');
    expect(refusal({ ...base, HOOKS_OIDC_API_AUDIENCE: 'https://hooks.example.com/api', HOOKS_OIDC_ROLE_MAP: 'hy-ops=root' }).message).toBe(
      'HOOKS_OIDC_ROLE_MAP: expected value=role pairs with role reader, operator or admin (e.g. hy-admins=admin,hy-ops=operator), got "hy-ops=root"',
    );
    const s = loadSettings({
      ...base,
      HOOKS_OIDC_API_AUDIENCE: 'https://hooks.example.com/api',
      HOOKS_OIDC_ROLE_MAP: 'hy-admins=admin, hy-ops=operator',
      HOOKS_OIDC_CONSOLE_CLIENT_ID: 'hookyard-console',
    });
    expect([s.oidcApiAudience, s.oidcRolesClaim, s.oidcRoleMap, s.oidcConsoleClientId]).toEqual([
      'https://hooks.example.com/api',
      'roles',
      { 'hy-admins': 'admin', 'hy-ops': 'operator' },
      'hookyard-console',
    ]);
  });
});

describe('unknown HOOKS_* variables', () => {
  it('are named with the nearest known setting; secrets and unrelated variables are not settings', () => {
    const found = unknownSettings({
      HOOKS_RUN_MAX_ATTEMPT: '3',
      HOOKS_MAX_WORKER: '4',
      HOOKS_ZZZ_QQQ: '1',
      HOOKS_SECRET_GITHUB: 's',
      HOOKS_RUN_MAX_ATTEMPTS: '3',
      PATH: '/bin',
    });
    expect(found).toEqual([
      { variable: 'HOOKS_MAX_WORKER', suggestion: 'HOOKS_MAX_WORKERS' },
      { variable: 'HOOKS_RUN_MAX_ATTEMPT', suggestion: 'HOOKS_RUN_MAX_ATTEMPTS' },
      { variable: 'HOOKS_ZZZ_QQQ', suggestion: null },
    ]);
    expect(unknownSettingMessage(found[1]!)).toBe('HOOKS_RUN_MAX_ATTEMPT is not a Hookyard setting and is ignored; did you mean HOOKS_RUN_MAX_ATTEMPTS?');
    expect(unknownSettingMessage(found[2]!)).toBe('HOOKS_ZZZ_QQQ is not a Hookyard setting and is ignored (see `hookyard settings`)');
    expect(unknownSettings({ HOOKS_TEAM_KEY: 'x' }, 'HOOKS_TEAM_')).toEqual([]);
  });
});

describe('checkSettingsAtBoot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hy-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('HOOKS_LOCAL_FS_ROOT must be an existing directory', () => {
    expect(() => checkSettingsAtBoot({ localFsRoot: undefined })).not.toThrow();
    expect(() => checkSettingsAtBoot({ localFsRoot: dir })).not.toThrow();
    const missing = join(dir, 'nope');
    expect(() => checkSettingsAtBoot({ localFsRoot: missing })).toThrow(
      new SettingsError('HOOKS_LOCAL_FS_ROOT', `${missing} does not exist or cannot be read (ENOENT)`),
    );
    const file = join(dir, 'f');
    writeFileSync(file, 'x');
    expect(() => checkSettingsAtBoot({ localFsRoot: file })).toThrow(new SettingsError('HOOKS_LOCAL_FS_ROOT', `${file} is not a directory`));
  });
});
