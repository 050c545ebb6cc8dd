import { silentLogger, type RemoteToolRecord } from '@hookyard/core';
import type { ProviderRepo } from '../../src/provider/provider-repo';
import { testContext } from '../support/context';
import { grpcRecord, grpcRepo } from './records';
import { CATALOG_PROTO_TEXT, startCatalogServer, type TestServer } from './server';

let server: TestServer;
let plain: TestServer;
const repos: ProviderRepo[] = [];

beforeAll(async () => {
  [server, plain] = await Promise.all([startCatalogServer(), startCatalogServer({ reflection: false })]);
});
afterAll(async () => {
  await Promise.all(repos.map((r) => r.close()));
  await Promise.all([server.close(), plain.close()]);
});

function repo(records: RemoteToolRecord[], logger = silentLogger()): ProviderRepo {
  const r = grpcRepo(records, { logger });
  repos.push(r);
  return r;
}

describe('discovery through server reflection', () => {
  test('lists one tool per unary method; streaming methods are skipped and logged', async () => {
    const logged: [unknown, string | undefined][] = [];
    const logger = silentLogger();
    logger.info = (obj: unknown, msg?: string) => void logged.push([obj, msg]);
    const r = repo([grpcRecord('shop', server.endpoint)], logger);
    expect((await r.names()).sort()).toEqual(['shop__check', 'shop__create_item', 'shop__fail', 'shop__hang']);
    const skipped = logged.map(([obj]) => (obj as { method?: string }).method).sort();
    expect(skipped).toEqual(['hookyard.test.Catalog.UploadItems', 'hookyard.test.Catalog.WatchItems']);
  });

  test('the services allowlist narrows the tools', async () => {
    const r = repo([grpcRecord('shop', server.endpoint, { services: ['hookyard.test.Health'] })]);
    expect(await r.names()).toEqual(['shop__check']);
  });

  test('tools(record) lists all its tools; tools(tool) that one, with its description and provider', async () => {
    const r = repo([grpcRecord('shop', server.endpoint, {}, { retry: { max_attempts: 2, base_ms: 1, cap_ms: 1, kinds: ['unavailable'] } })]);
    expect((await r.tools('shop')).map((t) => t.name).sort()).toEqual(['shop__check', 'shop__create_item', 'shop__fail', 'shop__hang']);
    const [info] = await r.tools('shop__create_item');
    expect(info).toMatchObject({ name: 'shop__create_item', description: 'hookyard.test.Catalog.CreateItem', provider: 'grpc', crashResumable: false });
    expect(info?.retry).toEqual({ max_attempts: 2, base_ms: 1, cap_ms: 1, kinds: ['unavailable'] });
    expect(await r.tools('other')).toEqual([]);
    expect(await r.schema('shop__nope')).toBeUndefined();
  });

  test('the JSON Schema of a nested request', async () => {
    const r = repo([grpcRecord('shop', server.endpoint)]);
    const address = {
      type: 'object',
      properties: { street: { type: 'string' }, postalCode: { type: 'string' } },
      additionalProperties: false,
    };
    const int32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
    expect(await r.schema('shop__create_item')).toEqual({
      type: 'object',
      description: 'hookyard.test.CreateItemRequest',
      additionalProperties: false,
      properties: {
        dryRun: { type: 'boolean' },
        item: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string' },
            color: { type: 'string', enum: ['COLOR_UNSPECIFIED', 'RED', 'GREEN'] },
            tags: { type: 'array', items: { type: 'string' } },
            bigCount: { type: 'string', pattern: '^-?[0-9]+$', description: 'int64 as a decimal string' },
            address,
            scores: { type: 'object', additionalProperties: int32 },
            bigUnsigned: { type: 'string', pattern: '^[0-9]+$', description: 'uint64 as a decimal string' },
            blob: { type: 'string', contentEncoding: 'base64' },
            seenAt: { type: 'string', format: 'date-time' },
            note: { type: 'string', description: 'oneof pick: set at most one of "note", "code"' },
            code: { ...int32, description: 'oneof pick: set at most one of "note", "code"' },
            history: { type: 'array', items: address },
            weight: { type: 'number' },
          },
        },
      },
    });
  });
});

describe('discovery from a registered .proto (no reflection)', () => {
  test('the server has no reflection: a reflecting record lists nothing, a .proto record works', async () => {
    const r = repo([
      grpcRecord('reflecting', plain.endpoint),
      grpcRecord('texted', plain.endpoint, { proto: CATALOG_PROTO_TEXT, services: ['hookyard.test.Catalog'] }),
    ]);
    expect((await r.names()).sort()).toEqual(['texted__create_item', 'texted__fail', 'texted__hang']);
    const out = await r.exec('texted__create_item', { item: { name: 'lamp', color: 'GREEN', bigCount: '9007199254740993' } }, testContext());
    expect(out).toMatchObject({ id: 'item-lamp', item: { name: 'lamp', color: 'GREEN', bigCount: '9007199254740993' } });
    await expect(r.exec('reflecting__create_item', {}, testContext())).rejects.toMatchObject({
      kind: 'internal',
      message: expect.stringContaining('UNIMPLEMENTED'),
    });
  });
});

describe('tool names', () => {
  test('method names map to the tool-name pattern', () => {
    const { snakeName } = jest.requireActual<typeof import('../../src/grpc/methods')>('../../src/grpc/methods');
    expect(['GetUser', 'HTTPStatus', 'getV2', 'list', 'Do_It', 'ABC'].map(snakeName)).toEqual(['get_user', 'http_status', 'get_v2', 'list', 'do_it', 'abc']);
  });

  test('two services with the same method name both get the service-qualified name', async () => {
    const proto =
      'syntax = "proto3"; package p.v1; message M {} service A { rpc Get(M) returns (M); rpc Only(M) returns (M); } service B { rpc Get(M) returns (M); }';
    const r = repo([grpcRecord('dup', 'grpc://127.0.0.1:1', { proto })]);
    expect((await r.names()).sort()).toEqual(['dup__only', 'dup__p_v1_a_get', 'dup__p_v1_b_get']);
  });
});
