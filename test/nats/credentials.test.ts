/**
 * Every NATS connection takes its credentials from settings, by secret
 * reference: a token, a user and password, an NKey seed (and TLS with a CA,
 * below). Against throwaway nats-servers that require them: the settings load,
 * the references resolve, a run bus and a discovery round trip connect; a
 * wrong password is one clear `unauthorized` error naming the settings used,
 * never the password.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { createSecretResolver, loadSettings } from '@hookyard/core';

type Env = Record<string, string | undefined>;
import { createDiscoveryRequester, createDiscoveryResponder, createJetStreamBus, natsCredentials } from '@hookyard/bus';
import { startNats, type ServerProcess } from '../support/servers';

let dir: string;
const servers: ServerProcess[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookyard-nats-creds-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

async function server(name: string, args: string[]): Promise<string> {
  const s = await startNats(join(dir, name), args);
  servers.push(s);
  return `nats://127.0.0.1:${s.port}`;
}

/** Settings from `env` and the secrets they reference, resolved as a role resolves them at start. */
async function credentialsOf(env: Env, secrets: Env) {
  const settings = loadSettings(env);
  return { settings, credentials: await natsCredentials(settings, createSecretResolver({ env: secrets, scope: { envPrefix: 'HOOKS_SECRET_', dirs: [dir] } })) };
}

/** A run bus and a discovery round trip over the connection these settings make. */
async function roundTrip(env: Env, secrets: Env): Promise<unknown> {
  const { settings, credentials } = await credentialsOf(env, secrets);
  const opts = { url: settings.natsUrl!, prefix: `c${Math.random().toString(16).slice(2, 8)}`, credentials };
  const bus = await createJetStreamBus(opts);
  const responder = await createDiscoveryResponder(opts, async () => ({ ok: true, tools: [] }));
  const requester = await createDiscoveryRequester(opts);
  try {
    await bus.publish(['r1']);
    return await requester.ask({ op: 'catalogue' }, 10_000);
  } finally {
    await requester.close();
    await responder.close();
    await bus.close();
  }
}

describe('NATS credentials from settings', () => {
  it('a token (HOOKS_NATS_TOKEN) connects', async () => {
    const url = await server('token', ['--auth', 'tok-3f9a7c1e5b']);
    expect(await roundTrip({ HOOKS_NATS_URL: url, HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_NATS_TOKEN' }, { HOOKS_SECRET_NATS_TOKEN: 'tok-3f9a7c1e5b' })).toEqual({
      ok: true,
      tools: [],
    });
  });

  it('a user and password (HOOKS_NATS_USER, HOOKS_NATS_PASSWORD from a file) connect; a wrong password is a clear error', async () => {
    const url = await server('user', ['--user', 'hookyard', '--pass', 'right-horse-battery']);
    writeFileSync(join(dir, 'nats-password'), 'right-horse-battery\n');
    const env = { HOOKS_NATS_URL: url, HOOKS_NATS_USER: 'hookyard', HOOKS_NATS_PASSWORD: `file:${join(dir, 'nats-password')}` };
    expect(await roundTrip(env, {})).toEqual({ ok: true, tools: [] });

    const { settings, credentials } = await credentialsOf(
      { ...env, HOOKS_NATS_PASSWORD: 'env:HOOKS_SECRET_NATS_PASSWORD' },
      { HOOKS_SECRET_NATS_PASSWORD: 'wrong-staple' },
    );
    const err = await createJetStreamBus({ url: settings.natsUrl!, prefix: 'cwrong', credentials }).then(
      () => new Error('connected with a wrong password'),
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      kind: 'unauthorized',
      message: `the NATS server at "${url}" refused the connection (authorization violation) with HOOKS_NATS_USER and HOOKS_NATS_PASSWORD; check the credentials and the user's permissions on the server`,
    });
    expect(String((err as Error).message)).not.toContain('wrong-staple');
  });

  it('an NKey seed (HOOKS_NATS_NKEY_SEED) connects', async () => {
    const user = nkeys.createUser();
    const conf = join(dir, 'nkey.conf');
    writeFileSync(conf, `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }\n`);
    const url = await server('nkey', ['-c', conf]);
    const seed = new TextDecoder().decode(user.getSeed());
    expect(await roundTrip({ HOOKS_NATS_URL: url, HOOKS_NATS_NKEY_SEED: 'env:HOOKS_SECRET_NATS_SEED' }, { HOOKS_SECRET_NATS_SEED: seed })).toEqual({
      ok: true,
      tools: [],
    });
  });

  it('TLS with a CA file (HOOKS_NATS_TLS_CA) connects to a server whose certificate it signed', async () => {
    const f = (n: string) => join(dir, n);
    const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1', '-subj', '/CN=hookyard-test-ca');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
    writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    ssl(
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('server.pem'),
      '-days',
      '1',
      '-extfile',
      f('san.ext'),
    );
    const url = await server('tls', ['--tls', '--tlscert', f('server.pem'), '--tlskey', f('server.key'), '--auth', 'tls-token-8d2e']);
    const env = { HOOKS_NATS_URL: url, HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_T', HOOKS_NATS_TLS_CA: f('ca.pem') };
    expect(await roundTrip(env, { HOOKS_SECRET_T: 'tls-token-8d2e' })).toEqual({ ok: true, tools: [] });
    // Without the CA the server's certificate is not trusted: no connection.
    const { credentials } = await credentialsOf({ HOOKS_NATS_URL: url, HOOKS_NATS_TOKEN: 'env:HOOKS_SECRET_T' }, { HOOKS_SECRET_T: 'tls-token-8d2e' });
    await expect(createJetStreamBus({ url, prefix: 'cnoca', credentials })).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('failed the TLS check against the system CAs (set HOOKS_NATS_TLS_CA to name another)'),
    });
  });

  it("a role's replies arrive on its own inbox prefix (_INBOX_<role>) unless HOOKS_NATS_INBOX_PREFIX names another; a wildcard is refused", async () => {
    const resolver = createSecretResolver({ env: {}, scope: { envPrefix: 'HOOKS_SECRET_', dirs: [dir] } });
    const plain = loadSettings({ HOOKS_NATS_URL: 'nats://127.0.0.1:4222' });
    expect((await natsCredentials(plain, resolver, 'executor')).inboxPrefix).toBe('_INBOX_executor');
    expect((await natsCredentials(plain, resolver, 'all')).inboxPrefix).toBe('_INBOX_all');
    const named = loadSettings({ HOOKS_NATS_URL: 'nats://127.0.0.1:4222', HOOKS_NATS_INBOX_PREFIX: '_INBOX' });
    expect((await natsCredentials(named, resolver, 'executor')).inboxPrefix).toBe('_INBOX');
    expect(() => loadSettings({ HOOKS_NATS_INBOX_PREFIX: '_INBOX.>' })).toThrow(
      'HOOKS_NATS_INBOX_PREFIX: must be NATS subject tokens (letters, digits, _ and -) joined by dots, got "_INBOX.>"',
    );
  });
});
