import { HookyardError, createSecretResolver, type RemoteToolRecord } from '@hookyard/core';
import { status } from '@grpc/grpc-js';
import type { ProviderRepo } from '../../src/provider/provider-repo';
import { kindOfGrpcStatus } from '../../src/grpc/status';
import { SecretCut } from '../../src/secret-cut';
import { testContext } from '../support/context';
import { grpcRecord, grpcRepo } from './records';
import { CATALOG_PROTO_TEXT, deadEndpoint, startCatalogServer, startRelay, type TestServer } from './server';

let server: TestServer;
const repos: ProviderRepo[] = [];

beforeAll(async () => {
  server = await startCatalogServer();
});
afterAll(async () => {
  await Promise.all(repos.map((r) => r.close()));
  await server.close();
});

function repo(records: RemoteToolRecord[]): ProviderRepo {
  const r = grpcRepo(records);
  repos.push(r);
  return r;
}

describe('a call', () => {
  test('round-trips an enum, repeated fields, 64-bit ints, a map, bytes, a timestamp and a oneof (proto3 JSON)', async () => {
    const r = repo([grpcRecord('shop', server.endpoint, { metadata: { 'x-tenant': 'acme' } })]);
    const out = await r.exec(
      'shop__create_item',
      {
        item: {
          name: 'lamp',
          color: 'RED',
          tags: ['a', 'b'],
          bigCount: '9223372036854775807',
          address: { street: 'Main', postal_code: '0150' },
          scores: { x: 1, y: -2 },
          bigUnsigned: '18446744073709551615',
          blob: Buffer.from('hi!').toString('base64'),
          seenAt: '2024-01-02T03:04:05.250Z',
          code: 7,
          history: [{ street: 'Old' }],
          weight: 0.1,
        },
        dry_run: true,
      },
      testContext(),
    );
    expect(out).toEqual({
      id: 'item-lamp',
      // The record's metadata and the run's idempotency key reach the server.
      seenMetadata: 'x-tenant=acme;idempotency-key=idem-123',
      // An unset message field is null in the reply.
      previous: null,
      item: {
        name: 'lamp',
        color: 'RED',
        tags: ['a', 'b'],
        bigCount: '9223372036854775807',
        address: { street: 'Main', postalCode: '0150' },
        scores: { x: 1, y: -2 },
        bigUnsigned: '18446744073709551615',
        blob: 'aGkh',
        seenAt: '2024-01-02T03:04:05.250Z',
        code: 7,
        history: [{ street: 'Old', postalCode: '' }],
        weight: 0.1,
      },
    });
  });

  test('defaults are included: an empty item comes back with every scalar at its zero value', async () => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    const out = (await r.exec('shop__create_item', { item: {} }, testContext())) as { item: Record<string, unknown> };
    expect(out.item).toEqual({
      name: '',
      color: 'COLOR_UNSPECIFIED',
      tags: [],
      bigCount: '0',
      address: null,
      scores: {},
      bigUnsigned: '0',
      blob: '',
      seenAt: null,
      history: [],
      weight: 0,
    });
  });

  test('arguments that do not fit the request are bad_input naming the path, before anything is sent', async () => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    const bad = async (args: Record<string, unknown>) =>
      r.exec('shop__create_item', args, testContext()).then(
        () => 'resolved',
        (e: unknown) => e,
      );
    await expect(bad({ item: { colour: 'RED' } })).resolves.toMatchObject({ kind: 'bad_input', message: expect.stringContaining('unknown field "colour"') });
    await expect(bad({ item: { color: 'BLUE' } })).resolves.toMatchObject({
      kind: 'bad_input',
      message: expect.stringContaining("argument 'item.color' must be one of COLOR_UNSPECIFIED, RED, GREEN"),
    });
    await expect(bad({ item: { bigCount: '9223372036854775808' } })).resolves.toMatchObject({
      kind: 'bad_input',
      message: expect.stringContaining("argument 'item.bigCount'"),
    });
    await expect(bad({ item: { tags: 'a' } })).resolves.toMatchObject({
      kind: 'bad_input',
      message: expect.stringContaining("argument 'item.tags' must be an array"),
    });
    await expect(bad({ item: { note: 'x', code: 1 } })).resolves.toMatchObject({ kind: 'bad_input', message: expect.stringContaining('oneof "pick"') });
  });

  test('a name the repo does not serve is not_found', async () => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    await expect(r.exec('shop__nope', {}, testContext())).rejects.toMatchObject({ kind: 'not_found' });
    await expect(r.exec('elsewhere__create_item', {}, testContext())).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('failures', () => {
  const table: [keyof typeof status, string][] = [
    ['UNAVAILABLE', 'unavailable'],
    ['DEADLINE_EXCEEDED', 'timeout'],
    ['INVALID_ARGUMENT', 'bad_input'],
    ['FAILED_PRECONDITION', 'bad_input'],
    ['OUT_OF_RANGE', 'bad_input'],
    ['NOT_FOUND', 'not_found'],
    ['ALREADY_EXISTS', 'conflict'],
    ['ABORTED', 'conflict'],
    ['PERMISSION_DENIED', 'unauthorized'],
    ['UNAUTHENTICATED', 'unauthorized'],
    ['CANCELLED', 'cancelled'],
    ['UNKNOWN', 'internal'],
    ['INTERNAL', 'internal'],
    ['UNIMPLEMENTED', 'internal'],
    ['RESOURCE_EXHAUSTED', 'internal'],
    ['DATA_LOSS', 'internal'],
  ];

  test.each(table)('a handler failing with %s is %s, the details quoted', async (name, kind) => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    const err = await r.exec('shop__fail', { code: status[name], message: `boom ${name}` }, testContext()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind, message: expect.stringContaining(`gRPC status ${name} (${status[name]}): "boom ${name}"`) });
    expect(kindOfGrpcStatus(status[name])).toBe(kind);
  });

  test('a deadline from timeout_ms is a timeout', async () => {
    const r = repo([grpcRecord('shop', server.endpoint, {}, { timeout_ms: 200 })]);
    await expect(r.exec('shop__hang', {}, testContext())).rejects.toMatchObject({ kind: 'timeout', message: expect.stringContaining('DEADLINE_EXCEEDED') });
  });

  test("the caller's abort cancels the call and keeps its reason", async () => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    const ac = new AbortController();
    const pending = r.exec('shop__hang', {}, testContext({ signal: ac.signal }));
    // Abort once the server holds the call: the only way to end it is our cancel.
    await new Promise((res) => setImmediate(res));
    ac.abort(new Error('shutting down'));
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled', message: expect.stringContaining('shutting down') });
  });

  test('an unreachable server is unavailable, through reflection and through a call', async () => {
    const dead = await deadEndpoint();
    const r = repo([grpcRecord('gone', dead), grpcRecord('gonetext', dead, { proto: CATALOG_PROTO_TEXT })]);
    expect(await r.names()).toEqual(['gonetext__check', 'gonetext__create_item', 'gonetext__fail', 'gonetext__hang']);
    await expect(r.exec('gone__create_item', {}, testContext())).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(r.exec('gonetext__create_item', {}, testContext())).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('UNAVAILABLE'),
    });
  });
});

describe('discovery cache', () => {
  test('refreshes after the TTL and keeps the last good list when the server is gone', async () => {
    const own = await startCatalogServer();
    let now = 1_000;
    const records = [grpcRecord('shop', own.endpoint)];
    const r = grpcRepo(records, { discoveryTtlMs: 100, now: () => now });
    repos.push(r);
    expect(await r.names()).toContain('shop__create_item');
    await own.close();
    now += 1_000;
    expect(await r.names()).toContain('shop__create_item');
    // The call itself still fails honestly.
    await expect(r.exec('shop__create_item', {}, testContext())).rejects.toMatchObject({ kind: 'unavailable' });
  });

  test("a removed registration's channel is closed by the next listing; the others keep theirs", async () => {
    const relay = await startRelay(server.port);
    try {
      const records = [grpcRecord('gone', `grpc://127.0.0.1:${relay.port}`), grpcRecord('kept', server.endpoint)];
      const r = repo(records);
      await r.exec('gone__create_item', { item: { name: 'lamp' } }, testContext());
      expect(relay.open.size).toBeGreaterThan(0);
      records.splice(0, 1);
      expect(await r.names()).toEqual(['kept__check', 'kept__create_item', 'kept__fail', 'kept__hang']);
      const end = Date.now() + 10_000;
      while (relay.open.size > 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 10));
      expect(relay.open.size).toBe(0);
      await expect(r.exec('kept__create_item', { item: { name: 'desk' } }, testContext())).resolves.toMatchObject({ id: 'item-desk' });
    } finally {
      await relay.close();
    }
  });

  test('close() closes the channels; a closed repo refuses new discovery', async () => {
    const r = grpcRepo([grpcRecord('shop', server.endpoint)]);
    expect(await r.names()).toContain('shop__check');
    await r.close();
    await expect(r.exec('shop__check', {}, testContext())).rejects.toMatchObject({ kind: 'internal', message: expect.stringContaining('closed') });
  });
});

describe('metadata secret references', () => {
  test('a reference is resolved per call and sent as metadata (reflection included); the record keeps the reference', async () => {
    const env: NodeJS.ProcessEnv = { HOOKS_SECRET_GRPC_TENANT: 'acme-from-env' };
    const record = grpcRecord('shopref', server.endpoint, { metadata: { 'x-tenant': { secret: 'env:HOOKS_SECRET_GRPC_TENANT' } } });
    const r = grpcRepo([record], { secrets: createSecretResolver({ env, fileCacheMs: 0 }) });
    repos.push(r);
    const out = (await r.exec('shopref__create_item', { item: { name: 'lamp' } }, testContext())) as { seenMetadata: string };
    expect(out.seenMetadata).toBe('x-tenant=acme-from-env;idempotency-key=idem-123');
    // A rotated value is used by the next call, without a new registration.
    env.HOOKS_SECRET_GRPC_TENANT = 'acme-rotated';
    expect(((await r.exec('shopref__create_item', { item: { name: 'lamp' } }, testContext())) as { seenMetadata: string }).seenMetadata).toBe(
      'x-tenant=acme-rotated;idempotency-key=idem-123',
    );
    expect(record.metadata).toEqual({ 'x-tenant': { secret: 'env:HOOKS_SECRET_GRPC_TENANT' } });
  });

  test('a call tells its context the metadata secret it sends; the cut of the reply that reflects it holds none', async () => {
    const env: NodeJS.ProcessEnv = { HOOKS_SECRET_GRPC_TENANT: 'acme-from-env' };
    const r = grpcRepo([grpcRecord('shoptold', server.endpoint, { metadata: { 'x-tenant': { secret: 'env:HOOKS_SECRET_GRPC_TENANT' } } })], {
      secrets: createSecretResolver({ env, fileCacheMs: 0 }),
    });
    repos.push(r);
    const cut = new SecretCut();
    const out = await r.exec('shoptold__create_item', { item: { name: 'lamp' } }, testContext({ onSecret: cut.add }));
    expect(cut.value(out)).toEqual({ ...(out as object), seenMetadata: 'x-tenant=[redacted];idempotency-key=idem-123' });
  });

  test('a reference that is not set fails the call internal, quoting the reference', async () => {
    const r = grpcRepo(
      [grpcRecord('shopnone', server.endpoint, { proto: CATALOG_PROTO_TEXT, metadata: { authorization: { secret: 'env:HOOKS_SECRET_GRPC_UNSET' } } })],
      { secrets: createSecretResolver({ env: {} }) },
    );
    repos.push(r);
    const err = await r.exec('shopnone__create_item', { item: {} }, testContext()).then(
      () => undefined,
      (e: unknown) => e as HookyardError,
    );
    expect(err).toBeInstanceOf(HookyardError);
    expect(err?.kind).toBe('internal');
    expect(err?.message).toBe("tool 'shopnone__create_item': metadata.authorization: secret reference env:HOOKS_SECRET_GRPC_UNSET is not set");
  });
});
