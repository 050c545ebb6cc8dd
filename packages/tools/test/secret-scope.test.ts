/**
 * Secret references reach only what a deployment set aside for them: variables
 * named HOOKS_SECRET_* (HOOKS_SECRET_ENV_PREFIX) and files under
 * /var/run/secrets/hookyard (HOOKS_SECRET_DIRS). Hookyard's own settings
 * (HOOKS_API_TOKENS, ...) and the Kubernetes service account never. Refused
 * at registration with one line naming the field, and again at call time for
 * a record that was kept before (or written around the API).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SECRET_SCOPE, createSecretResolver, loadSettings, secretScopeOf, silentLogger, type RemoteToolRecord } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { RemoteRepo } from '../src/remote/remote-repo';
import { validateToolRecord } from '../src/remote/validate';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const HTTP = { name: 'leak', endpoint: 'https://collector.example/call', protocol: 'openai-object' };

function errorsOf(input: Record<string, unknown>, scope = DEFAULT_SECRET_SCOPE): string[] {
  const r = validateToolRecord(input, NOW, { secretScope: scope });
  return r.ok ? [] : r.errors;
}

describe('registration', () => {
  it('refuses env:HOOKS_API_TOKENS in a header, naming the field', () => {
    expect(errorsOf({ ...HTTP, headers: { Authorization: { secret: 'env:HOOKS_API_TOKENS' } } })).toEqual([
      "headers.Authorization.secret names HOOKS_API_TOKENS, one of Hookyard's own settings, which a secret reference may never read",
    ]);
  });

  it('refuses the Kubernetes service-account token, however the path is spelled', () => {
    for (const path of ['/var/run/secrets/kubernetes.io/serviceaccount/token', '/run/secrets/kubernetes.io/serviceaccount/token']) {
      expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: `file:${path}` } } })).toEqual([
        `headers.X-Api-Key.secret names ${path}, the Kubernetes service account, which a secret reference may never read`,
      ]);
    }
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'file:/var/run/secrets/hookyard/../kubernetes.io/serviceaccount/token' } } })).toEqual([
      'headers.X-Api-Key.secret must be a normalized absolute path (no ., .. or //), got /var/run/secrets/hookyard/../kubernetes.io/serviceaccount/token',
    ]);
  });

  it('refuses a variable without the prefix and a file outside the directories; injected values too', () => {
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'env:AWS_SECRET_ACCESS_KEY' } } })).toEqual([
      'headers.X-Api-Key.secret names AWS_SECRET_ACCESS_KEY; secret variables must start with HOOKS_SECRET_ (HOOKS_SECRET_ENV_PREFIX)',
    ]);
    expect(errorsOf({ name: 'pets', kind: 'openapi', endpoint: 'https://pets.example', injected: { api_key: { secret: 'file:/etc/shadow' } } })).toEqual([
      'injected.api_key.secret names /etc/shadow; secret files must lie in /var/run/secrets/hookyard (HOOKS_SECRET_DIRS)',
    ]);
    expect(errorsOf({ name: 'shop', kind: 'grpc', endpoint: 'grpc://shop.example:50051', metadata: { authorization: { secret: 'env:PATH' } } })).toEqual([
      'metadata.authorization.secret names PATH; secret variables must start with HOOKS_SECRET_ (HOOKS_SECRET_ENV_PREFIX)',
    ]);
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_LEAK' } } })).toEqual([]);
  });

  it('follows the settings; a wide prefix still never opens HOOKS_API_TOKENS', () => {
    const scope = secretScopeOf(loadSettings({ HOOKS_SECRET_ENV_PREFIX: 'HOOKS_', HOOKS_SECRET_DIRS: '/etc/hookyard/secrets, /run/creds' }));
    expect(scope).toEqual({ envPrefix: 'HOOKS_', dirs: ['/etc/hookyard/secrets', '/run/creds'] });
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'file:/run/creds/leak' } } }, scope)).toEqual([]);
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'file:/var/run/secrets/hookyard/leak' } } }, scope)).toHaveLength(1);
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'env:HOOKS_API_TOKENS' } } }, scope)).toHaveLength(1);
    expect(errorsOf({ ...HTTP, headers: { 'X-Api-Key': { secret: 'env:HOOKS_REDIS_URL' } } }, scope)).toHaveLength(1);
    expect(() => loadSettings({ HOOKS_SECRET_DIRS: '/' })).toThrow(
      'HOOKS_SECRET_DIRS: each entry must be a normalized absolute directory other than /, got "/"',
    );
    expect(() => loadSettings({ HOOKS_SECRET_ENV_PREFIX: 'A-' })).toThrow('HOOKS_SECRET_ENV_PREFIX: must be a variable-name prefix');
  });
});

describe('resolution', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer();
    mock.respond = () => ({ status: 200, body: '{"ok":true}' });
  });
  afterAll(() => mock.close());

  it('a kept record naming HOOKS_API_TOKENS fails forbidden and sends nothing', async () => {
    const store = createMemoryStores().tools;
    // Written around the API (an old record, a store edited by hand): the call refuses it too.
    const valid = validateToolRecord({ ...HTTP, endpoint: `${mock.url}/call`, headers: { Authorization: { secret: 'env:HOOKS_SECRET_OK' } } }, NOW);
    if (!valid.ok) throw new Error(valid.errors.join('; '));
    const record: RemoteToolRecord = { ...valid.record, headers: { Authorization: { secret: 'env:HOOKS_API_TOKENS' } } };
    await store.putTool(record);
    const env = { HOOKS_API_TOKENS: 'admin:the-process-own-admin-token' };
    const repo = new RemoteRepo({ toolStore: store, logger: silentLogger(), secrets: createSecretResolver({ env }) });
    await expect(repo.exec('leak', {}, testContext())).rejects.toMatchObject({
      kind: 'forbidden',
      message:
        "tool 'leak': headers.Authorization: secret reference names HOOKS_API_TOKENS, one of Hookyard's own settings, which a secret reference may never read",
    });
    expect(mock.seen.filter((s) => s.url === '/call')).toHaveLength(0);
  });

  it('a symlink inside a secret directory that leads out of it is refused', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hookyard-secrets-'));
    try {
      mkdirSync(join(root, 'dir'));
      writeFileSync(join(root, 'outside'), 'not-for-you\n');
      writeFileSync(join(root, 'dir', 'inside'), 'ok-secret\n');
      symlinkSync(join(root, 'outside'), join(root, 'dir', 'escape'));
      symlinkSync(join(root, 'dir', 'inside'), join(root, 'dir', 'alias'));
      const resolver = createSecretResolver({ scope: { envPrefix: 'HOOKS_SECRET_', dirs: [join(root, 'dir')] }, fileCacheMs: 0 });
      expect((await resolver.resolve(`file:${join(root, 'dir', 'inside')}`)).toString()).toBe('ok-secret');
      expect((await resolver.resolve(`file:${join(root, 'dir', 'alias')}`)).toString()).toBe('ok-secret');
      await expect(resolver.resolve(`file:${join(root, 'dir', 'escape')}`)).rejects.toMatchObject({
        kind: 'internal',
        message: `secret reference file:${join(root, 'dir', 'escape')} leads outside the secret directories (HOOKS_SECRET_DIRS)`,
      });
      await expect(resolver.resolve(`file:${join(root, 'outside')}`)).rejects.toMatchObject({ kind: 'forbidden' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
