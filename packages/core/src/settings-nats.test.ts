import { SettingsError, loadSettings } from './settings';

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

const URL = { HOOKS_NATS_URL: 'nats://127.0.0.1:4222' };

describe('NATS credential settings', () => {
  it('load as secret references and paths', () => {
    const s = loadSettings({ ...URL, HOOKS_NATS_USER: 'ingress', HOOKS_NATS_PASSWORD: 'env:HOOKS_SECRET_NATS', HOOKS_NATS_TLS_CA: '/etc/nats/ca.pem' });
    expect(s).toMatchObject({ natsUser: 'ingress', natsPassword: 'env:HOOKS_SECRET_NATS', natsTlsCa: '/etc/nats/ca.pem', natsToken: undefined });
    expect(loadSettings({ ...URL, HOOKS_NATS_CREDS: 'file:/var/run/secrets/hookyard/nats.creds' }).natsCreds).toBe('file:/var/run/secrets/hookyard/nats.creds');
  });

  it.each([
    [{ HOOKS_NATS_TOKEN: 's3cr3t-token' }, 'HOOKS_NATS_TOKEN', 'looks like a literal secret'],
    [{ HOOKS_NATS_USER: 'ingress' }, 'HOOKS_NATS_PASSWORD', 'must be set with HOOKS_NATS_USER'],
    [{ HOOKS_NATS_PASSWORD: 'env:HOOKS_SECRET_P' }, 'HOOKS_NATS_USER', 'must be set with HOOKS_NATS_PASSWORD'],
    [
      { HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_T', HOOKS_NATS_CREDS: 'file:/run/nats.creds' },
      'HOOKS_NATS_CREDS',
      'NATS takes one way to authenticate, got HOOKS_NATS_TOKEN and HOOKS_NATS_CREDS; set only one of them',
    ],
    [
      { HOOKS_NATS_USER: 'u', HOOKS_NATS_PASSWORD: 'env:HOOKS_SECRET_P', HOOKS_NATS_NKEY_SEED: 'env:HOOKS_SECRET_S' },
      'HOOKS_NATS_NKEY_SEED',
      'got HOOKS_NATS_USER/HOOKS_NATS_PASSWORD and HOOKS_NATS_NKEY_SEED',
    ],
    [{ HOOKS_NATS_TLS_CERT: '/etc/nats/client.pem' }, 'HOOKS_NATS_TLS_KEY', 'must be set with HOOKS_NATS_TLS_CERT'],
    [{ HOOKS_NATS_TLS_CA: 'ca.pem' }, 'HOOKS_NATS_TLS_CA', 'must be an absolute path to a PEM file, got "ca.pem"'],
    [{ HOOKS_NATS_URL: 'nats://u:p@127.0.0.1:4222', HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_T' }, 'HOOKS_NATS_URL', 'carries credentials'],
  ])('%j is refused naming %s', (env, variable, message) => {
    const e = refusal({ ...URL, ...env });
    expect(e.variable).toBe(variable);
    expect(e.message).toContain(message);
    expect(e.message).not.toContain('s3cr3t');
  });

  it('credentials without HOOKS_NATS_URL are refused: there is nothing to connect to', () => {
    const e = refusal({ HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_T' });
    expect(e.message).toBe('HOOKS_NATS_TOKEN: HOOKS_NATS_TOKEN set without HOOKS_NATS_URL: there is no NATS to connect to; set HOOKS_NATS_URL or unset them');
  });
});
