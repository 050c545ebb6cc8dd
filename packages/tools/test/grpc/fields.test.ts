import { validateGrpcFields } from '../../src/grpc';
import { CATALOG_PROTO_TEXT } from './server';

describe('validateGrpcFields', () => {
  test('accepts plaintext and TLS endpoints with the optional fields', () => {
    expect(validateGrpcFields({ endpoint: 'grpc://127.0.0.1:50051' })).toEqual([]);
    expect(validateGrpcFields({ endpoint: 'grpcs://api.example.com:443/', timeout_ms: 5000 })).toEqual([]);
    expect(
      validateGrpcFields({
        endpoint: 'grpc://[::1]:9000',
        metadata: { 'x-team': 'hooks', 'x-api-key': { secret: 'env:HOOKS_SECRET_K' }, Authorization: { secret: 'file:/var/run/secrets/hookyard/t' } },
      }),
    ).toEqual([]);
    expect(validateGrpcFields({ endpoint: 'grpc://svc:1', proto: CATALOG_PROTO_TEXT, services: ['hookyard.test.Catalog'] })).toEqual([]);
  });

  test('one line per problem, naming the field', () => {
    expect(
      validateGrpcFields({
        endpoint: 'localhost:50051',
        timeout_ms: 0,
        services: ['ok.Service', 'not a name', 'ok.Service'],
        metadata: {
          'grpc-timeout': '1',
          'bad name': 'v',
          'token-bin': { secret: 'env:HOOKS_SECRET_T' },
          'x-n': 5,
          'x-crlf': 'a\r\nb',
          'x-api-key': 'k-literal',
          'x-token': { secret: 'k-literal' },
        },
      }),
    ).toEqual([
      'endpoint must be grpc://host:port (plaintext) or grpcs://host:port (TLS), got "localhost:50051"',
      'timeout_ms must be a whole number of milliseconds > 0, got 0',
      'services: "not a name" is not a fully-qualified service name (e.g. "pkg.Service")',
      'services: "ok.Service" is listed twice',
      'metadata: "grpc-timeout" is reserved (grpc- prefix)',
      'metadata: "bad name" is not a valid metadata key ([0-9a-z_.-])',
      'metadata: "token-bin" is a binary key (-bin); only text metadata is supported',
      'metadata.x-n must be a string or {"secret":"env:NAME"}, got 5',
      'metadata.x-crlf must be printable ASCII',
      'metadata.x-api-key looks like a credential and is never stored as a literal; use {"secret":"env:NAME"} (or {"secret":"file:/path"})',
      'metadata.x-token.secret looks like a literal secret, which is never stored; put it in an environment variable or a mounted file and reference it as env:NAME or file:/path',
    ]);
  });

  test('endpoint shapes', () => {
    const line = (endpoint: unknown) => validateGrpcFields({ endpoint });
    expect(line(undefined)).toEqual(['endpoint must be grpc://host:port (plaintext) or grpcs://host:port (TLS), got undefined']);
    expect(line('http://h:1')).toEqual(['endpoint must be grpc://host:port (plaintext) or grpcs://host:port (TLS), got "http://h:1"']);
    expect(line('grpc://h')[0]).toMatch(/^endpoint must name a host and a port from 1 to 65535/);
    expect(line('grpc://h:70000')[0]).toMatch(/^endpoint must name a host and a port/);
    expect(line('grpc://user:pw@h:1')[0]).toMatch(/^endpoint must be .* with no credentials, path or query/);
    expect(line('grpc://h:1/pkg')[0]).toMatch(/no credentials, path or query/);
  });

  test('proto text: parse errors, foreign imports, no service, a services entry it does not declare', () => {
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', proto: 'syntax = "proto3"; message {' })[0]).toMatch(/^proto: /);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', proto: 'syntax = "proto3"; import "other/thing.proto"; service S { }' })).toEqual([
      'proto: imports "other/thing.proto"; only the google/protobuf well-known types can be imported (register one self-contained file)',
    ]);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', proto: 'syntax = "proto3"; message M {}' })).toEqual(['proto: declares no service']);
    expect(
      validateGrpcFields({ endpoint: 'grpc://h:1', proto: 'syntax = "proto3"; message M { Missing m = 1; } service S { rpc A(M) returns (M); }' })[0],
    ).toMatch(/^proto: .*Missing/);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', proto: CATALOG_PROTO_TEXT, services: ['hookyard.test.Nope'] })).toEqual([
      'services: "hookyard.test.Nope" is not declared in proto (it declares hookyard.test.Catalog, hookyard.test.Health)',
    ]);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', proto: 42 })).toEqual(['proto must be the text of a .proto file, got 42']);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', services: [] })[0]).toMatch(/^services must be a non-empty list/);
    expect(validateGrpcFields({ endpoint: 'grpc://h:1', metadata: 'x' })).toEqual([
      'metadata must be an object of strings or {"secret":"env:NAME"}, got string',
    ]);
  });
});
