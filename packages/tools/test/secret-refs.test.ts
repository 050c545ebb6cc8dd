/**
 * Secrets in tool records are referenced, never stored: a literal under a
 * credential-looking name is refused on write with one line naming the field
 * (never quoting the value), references are kept as they are, resolved at
 * call time, and a record shown by the API never carries a literal credential.
 */
import { HookyardError, createSecretResolver, silentLogger, type RemoteToolRecord } from '@hookyard/core';
import { ProviderRepo } from '../src/provider/provider-repo';
import type { ToolProvider } from '../src/provider/types';
import { RemoteRepo } from '../src/remote/remote-repo';
import { validateToolRecord } from '../src/remote/validate';
import { REDACTED, isCredentialName, redactToolRecord, resolveHeaders } from '../src/secret-values';
import { testContext } from './support/context';
import { startMockServer, type MockServer } from './support/mock-server';
import { memoryToolStore } from './support/tool-store';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const LITERAL = 'sk-live-0123456789abcdef';
const HINT = 'looks like a credential and is never stored as a literal; use {"secret":"env:NAME"} (or {"secret":"file:/path"})';

const HTTP = { name: 'tickets', endpoint: 'https://tickets.example/call', protocol: 'openai-object' };
const OPENAPI = { name: 'pets', kind: 'openapi', endpoint: 'https://pets.example/api' };
const MCP_HTTP = { name: 'search', kind: 'mcp', transport: 'streamable-http', endpoint: 'https://mcp.example/mcp' };
const MCP_STDIO = { name: 'files', kind: 'mcp', transport: 'stdio', command: '/usr/local/bin/mcp-files' };
const GRPC = { name: 'shop', kind: 'grpc', endpoint: 'grpc://127.0.0.1:50051' };

function errorsOf(input: Record<string, unknown>): string[] {
  const r = validateToolRecord(input, NOW);
  if (r.ok) throw new Error(`expected refusal, got ${JSON.stringify(r.record)}`);
  return r.errors;
}

describe('credential-looking names', () => {
  it.each([
    'Authorization',
    'proxy-authorization',
    'Cookie',
    'X-Api-Key',
    'api_key',
    'apikey',
    'X-Auth-Token',
    'client_secret',
    'password',
    'x-session-token',
    'X-Amz-Security-Token',
  ])('%s is one', (name) => expect(isCredentialName(name)).toBe(true));
  it.each(['Accept', 'X-Client', 'tenant', 'x-team', 'Content-Type', 'region'])('%s is not', (name) => expect(isCredentialName(name)).toBe(false));
});

describe('a literal credential is refused on write, one line naming the field, the value never quoted', () => {
  it.each([
    ['http headers', { ...HTTP, headers: { 'X-Api-Key': LITERAL } }, `headers.X-Api-Key ${HINT}`],
    ['http headers (Authorization)', { ...HTTP, headers: { Authorization: `Bearer ${LITERAL}` } }, `headers.Authorization ${HINT}`],
    ['http headers (Cookie)', { ...HTTP, headers: { Cookie: `sid=${LITERAL}` } }, `headers.Cookie ${HINT}`],
    ['openapi headers', { ...OPENAPI, headers: { 'Proxy-Authorization': `Basic ${LITERAL}` } }, `headers.Proxy-Authorization ${HINT}`],
    ['openapi injected', { ...OPENAPI, injected: { 'X-Api-Key': LITERAL } }, `injected.X-Api-Key ${HINT}`],
    ['openapi injected (an object)', { ...OPENAPI, injected: { auth: { user: 'u', pass: LITERAL } } }, `injected.auth ${HINT}`],
    ['mcp headers', { ...MCP_HTTP, headers: { Authorization: `Bearer ${LITERAL}` } }, `headers.Authorization ${HINT}`],
    ['mcp injected', { ...MCP_STDIO, injected: { api_token: LITERAL } }, `injected.api_token ${HINT}`],
    ['grpc metadata', { ...GRPC, metadata: { authorization: `Bearer ${LITERAL}` } }, `metadata.authorization ${HINT}`],
    ['grpc metadata (key)', { ...GRPC, metadata: { 'x-api-key': LITERAL } }, `metadata.x-api-key ${HINT}`],
  ])('%s', (_what, input, line) => {
    const errors = errorsOf(input);
    expect(errors).toEqual([line]);
    expect(JSON.stringify(errors)).not.toContain(LITERAL);
  });

  it('a credential value of the wrong type is not quoted either', () => {
    const errors = errorsOf({ ...HTTP, headers: { 'X-Api-Key': 123456789 } });
    expect(errors).toEqual(['headers.X-Api-Key must be a string or {"secret":"env:NAME"}, got number']);
  });

  it.each([
    [{ ...HTTP, headers: { 'X-Api-Key': { secret: LITERAL } } }, 'headers.X-Api-Key.secret looks like a literal secret, which is never stored'],
    [{ ...HTTP, headers: { 'X-Api-Key': { secret: 'env:1BAD' } } }, 'headers.X-Api-Key.secret must name an environment variable matching'],
    [{ ...HTTP, headers: { 'X-Api-Key': { secret: 'file:relative/path' } } }, 'headers.X-Api-Key.secret must be file: followed by an absolute path'],
    [
      { ...HTTP, headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_K', value: LITERAL } } },
      'headers.X-Api-Key: a secret reference is {"secret":"env:NAME"} with no other field, got field(s) "value"',
    ],
    [{ ...OPENAPI, injected: { 'X-Api-Key': { secret: 7 } } }, 'injected.X-Api-Key.secret must be a string reference env:NAME or file:/path'],
    [{ ...GRPC, metadata: { 'x-api-key': { secret: LITERAL } } }, 'metadata.x-api-key.secret looks like a literal secret'],
  ])('a bad reference is refused: %j', (input, line) => {
    const errors = errorsOf(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
    expect(errors[0]).not.toContain(LITERAL);
  });

  it('every field of every kind takes references, and literals for other names; the record keeps the references', () => {
    const cases: [Record<string, unknown>, Partial<RemoteToolRecord>][] = [
      [
        {
          ...HTTP,
          headers: {
            'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' },
            'X-Client': 'hookyard',
            'X-Trace': { secret: 'file:/var/run/secrets/hookyard/trace' },
          },
        },
        {
          headers: {
            'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' },
            'X-Client': 'hookyard',
            'X-Trace': { secret: 'file:/var/run/secrets/hookyard/trace' },
          },
        },
      ],
      [
        {
          ...OPENAPI,
          headers: { Authorization: { secret: 'env:HOOKS_SECRET_PETS_TOKEN' } },
          injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' }, tenant: 'acme', limits: { max: 3 } },
        },
        {
          headers: { Authorization: { secret: 'env:HOOKS_SECRET_PETS_TOKEN' } },
          injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' }, tenant: 'acme', limits: { max: 3 } },
        },
      ],
      [
        { ...MCP_HTTP, headers: { Authorization: { secret: 'env:HOOKS_SECRET_SEARCH_TOKEN' } } },
        { headers: { Authorization: { secret: 'env:HOOKS_SECRET_SEARCH_TOKEN' } } },
      ],
      [
        { ...MCP_STDIO, injected: { api_key: { secret: 'file:/var/run/secrets/hookyard/files' } } },
        { injected: { api_key: { secret: 'file:/var/run/secrets/hookyard/files' } } },
      ],
      [
        { ...GRPC, metadata: { authorization: { secret: 'env:HOOKS_SECRET_SHOP_TOKEN' }, 'x-team': 'hooks' } },
        { metadata: { authorization: { secret: 'env:HOOKS_SECRET_SHOP_TOKEN' }, 'x-team': 'hooks' } },
      ],
    ];
    for (const [input, want] of cases) {
      const r = validateToolRecord(input, NOW);
      expect(r.ok && r.record).toMatchObject(want);
    }
  });
});

describe('redactToolRecord (what the API shows)', () => {
  it('shows references as they are and never a literal credential kept from before references were required', () => {
    const legacy = {
      name: 'legacy',
      kind: 'openapi',
      endpoint: 'https://x.example/',
      timeout_ms: 1000,
      headers: { Authorization: `Bearer ${LITERAL}`, Accept: 'application/json', 'X-Api-Key': { secret: 'env:HOOKS_SECRET_K' } },
      injected: { api_key: LITERAL, tenant: 'acme' },
      metadata: { 'x-token': LITERAL },
      created_at: 'a',
      updated_at: 'b',
    } as RemoteToolRecord;
    const shown = redactToolRecord(legacy);
    expect(shown.headers).toEqual({ Authorization: REDACTED, Accept: 'application/json', 'X-Api-Key': { secret: 'env:HOOKS_SECRET_K' } });
    expect(shown.injected).toEqual({ api_key: REDACTED, tenant: 'acme' });
    expect(shown.metadata).toEqual({ 'x-token': REDACTED });
    expect(JSON.stringify(shown)).not.toContain(LITERAL);
    // The stored record is not touched.
    expect(legacy.headers.Authorization).toBe(`Bearer ${LITERAL}`);
    // Posting a shown record back is refused with the line that says what to do.
    expect(errorsOf({ ...shown, kind: 'http', protocol: 'openai', injected: undefined, metadata: undefined })).toContain(`headers.Authorization ${HINT}`);
  });
});

describe('resolution at call time', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer();
    mock.respond = () => ({ status: 200, body: '{"ok":true}' });
  });
  afterAll(() => mock.close());
  beforeEach(() => {
    mock.seen.length = 0;
  });

  it('an HTTP tool sends the resolved value; a rotated value is used by the next call; the record keeps the reference', async () => {
    const env: NodeJS.ProcessEnv = { HOOKS_SECRET_TICKETS_API_KEY: 'first-secret' };
    const { store, register } = memoryToolStore();
    const repo = new RemoteRepo({ toolStore: store, logger: silentLogger(), secrets: createSecretResolver({ env }) });
    await register({
      name: 'tickets',
      endpoint: `${mock.url}/call`,
      protocol: 'openai-object',
      headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' } },
    });
    await repo.exec('tickets', {}, testContext());
    env.HOOKS_SECRET_TICKETS_API_KEY = 'second-secret';
    await repo.exec('tickets', {}, testContext());
    const calls = mock.seen.filter((s) => s.url === '/call');
    expect(calls.map((c) => c.headers['x-api-key'])).toEqual(['first-secret', 'second-secret']);
    expect((await store.getTool('tickets'))?.headers).toEqual({ 'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' } });
  });

  it('an HTTP tool tells each call the secrets it sends: a resolved reference, a rotated one, a literal credential kept before references', async () => {
    const env: NodeJS.ProcessEnv = { HOOKS_SECRET_TICKETS_API_KEY: 'first-secret' };
    const { store, register } = memoryToolStore();
    const repo = new RemoteRepo({ toolStore: store, logger: silentLogger(), secrets: createSecretResolver({ env }) });
    await register({
      name: 'tickets',
      endpoint: `${mock.url}/call`,
      protocol: 'openai',
      headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' } },
    });
    const told: string[] = [];
    const ctx = testContext({ onSecret: (v) => told.push(v) });
    await repo.exec('tickets', {}, ctx);
    env.HOOKS_SECRET_TICKETS_API_KEY = 'second-secret';
    await repo.exec('tickets', {}, ctx);
    const record = await store.getTool('tickets');
    await store.putTool({ ...record!, name: 'legacy', headers: { Authorization: `Bearer ${LITERAL}`, 'X-Client': 'hookyard' } });
    await repo.exec('legacy', {}, ctx);
    expect(told).toEqual(['first-secret', 'second-secret', `Bearer ${LITERAL}`]);
  });

  it('a file reference is read (trailing newline dropped)', async () => {
    const resolver = createSecretResolver({ readFile: async () => Buffer.from('from-file\n') });
    expect(await resolveHeaders(resolver, "tool 't'", { Authorization: { secret: 'file:/var/run/secrets/hookyard/t' }, Accept: 'text/plain' })).toEqual({
      Authorization: 'from-file',
      Accept: 'text/plain',
    });
  });

  it('a reference that is not set fails internal quoting the reference; a value that cannot be a header fails without quoting it', async () => {
    const { store, register } = memoryToolStore();
    const repo = new RemoteRepo({ toolStore: store, logger: silentLogger(), secrets: createSecretResolver({ env: { HOOKS_SECRET_MULTI: 'a\nb-secret' } }) });
    await register({ name: 'unset', endpoint: `${mock.url}/call`, protocol: 'openai', headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_TICKETS_UNSET' } } });
    await register({ name: 'multi', endpoint: `${mock.url}/call`, protocol: 'openai', headers: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_MULTI' } } });
    const unset = await repo.exec('unset', {}, testContext()).catch((e: unknown) => e as HookyardError);
    expect(unset).toMatchObject({ kind: 'internal', message: "tool 'unset': headers.X-Api-Key: secret reference env:HOOKS_SECRET_TICKETS_UNSET is not set" });
    const multi = await repo.exec('multi', {}, testContext()).catch((e: unknown) => e as HookyardError);
    expect(multi).toMatchObject({
      kind: 'internal',
      message: "tool 'multi': headers.X-Api-Key: secret reference env:HOOKS_SECRET_MULTI holds a value that cannot be sent there",
    });
    expect(mock.seen.filter((s) => s.url === '/call')).toHaveLength(0);
  });

  it('an injected reference is resolved only for a tool that declares the argument', async () => {
    const got: Record<string, unknown>[] = [];
    const provider: ToolProvider = {
      kind: 'openapi',
      discover: async () => [
        { key: 'withKey', description: '', parameters: { type: 'object', properties: { api_key: { type: 'string' }, q: { type: 'string' } } } },
        { key: 'plain', description: '', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      ],
      call: async (_r, _k, args) => {
        got.push(args);
        return 'ok';
      },
      close: async () => undefined,
    };
    const { store, register } = memoryToolStore();
    const env: NodeJS.ProcessEnv = {};
    const repo = new ProviderRepo({ toolStore: store, logger: silentLogger(), providers: [provider], secrets: createSecretResolver({ env }) });
    await register({ ...OPENAPI, injected: { api_key: { secret: 'env:HOOKS_SECRET_INJ_KEY' } } });
    // Not set: the tool that takes it fails, the one that does not is called.
    await expect(repo.exec('pets__with_key', { q: 'x' }, testContext())).rejects.toMatchObject({
      kind: 'internal',
      message: "tool 'pets__with_key': injected.api_key: secret reference env:HOOKS_SECRET_INJ_KEY is not set",
    });
    expect(await repo.exec('pets__plain', { q: 'x' }, testContext())).toBe('ok');
    env.HOOKS_SECRET_INJ_KEY = 'injected-secret';
    expect(await repo.exec('pets__with_key', { q: 'x', api_key: 'forged' }, testContext())).toBe('ok');
    expect(got).toEqual([{ q: 'x' }, { q: 'x', api_key: 'injected-secret' }]);
  });
});
