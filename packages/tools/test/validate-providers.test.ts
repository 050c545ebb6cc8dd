import { validateToolRecord } from '../src/remote/validate';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const STAMPS = { created_at: '2025-06-01T12:00:00.000Z', updated_at: '2025-06-01T12:00:00.000Z' };
const OPENAPI = { name: 'petstore', kind: 'openapi', endpoint: 'https://pets.example.com/api' };
const STDIO = { name: 'files', kind: 'mcp', transport: 'stdio', command: 'mcp-files' };
const HTTP_MCP = { name: 'search', kind: 'mcp', transport: 'streamable-http', endpoint: 'https://mcp.example.com/mcp' };

function errorsOf(input: unknown, options = {}): string[] {
  const r = validateToolRecord(input, NOW, options);
  if (r.ok) throw new Error(`expected refusal, got ${JSON.stringify(r.record)}`);
  return r.errors;
}

describe('validateToolRecord: kind openapi', () => {
  it('accepts a registration with injected parameters and an operations list; no http-only fields are stored', () => {
    const r = validateToolRecord(
      {
        ...OPENAPI,
        headers: { Accept: 'application/json' },
        injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' }, region: 'eu' },
        operations: ['getPet', '!deletePet'],
      },
      NOW,
    );
    expect(r).toEqual({
      ok: true,
      record: {
        name: 'petstore',
        kind: 'openapi',
        endpoint: 'https://pets.example.com/api',
        timeout_ms: 30000,
        headers: { Accept: 'application/json' },
        injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' }, region: 'eu' },
        operations: ['getPet', '!deletePet'],
        ...STAMPS,
      },
    });
  });

  it.each([
    [{ ...OPENAPI, protocol: 'openai' }, "field 'protocol' applies only to kind http, not openapi"],
    [{ ...OPENAPI, transport: 'stdio' }, "field 'transport' applies only to kind mcp, not openapi"],
    [{ ...OPENAPI, name: 'pet__store' }, "name must not contain '__'"],
    [{ ...OPENAPI, endpoint: 'ftp://x/' }, 'endpoint scheme must be http or https'],
    [{ ...OPENAPI, injected: ['k'] }, 'injected must be an object of argument names to values, got a list'],
    [{ ...OPENAPI, injected: { k: null } }, 'injected.k must have a value, got null'],
    [{ ...OPENAPI, operations: [] }, 'operations must be a non-empty list'],
    [{ ...OPENAPI, operations: ['ok', 3] }, 'operations[1] 3 must be *, an operation name or !name'],
    [{ ...OPENAPI, timeout_ms: 0 }, 'timeout_ms must be a whole number of milliseconds > 0, got 0'],
  ])('refuses %j', (input, line) => {
    const errors = errorsOf(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });
});

describe('validateToolRecord: kind mcp', () => {
  it('stdio: stores the command and args, an empty endpoint, and no headers', () => {
    const r = validateToolRecord({ ...STDIO, args: ['--root', '/srv'], injected: { tenant: 't-1' } }, NOW);
    expect(r).toEqual({
      ok: true,
      record: {
        name: 'files',
        kind: 'mcp',
        endpoint: '',
        timeout_ms: 30000,
        headers: {},
        transport: 'stdio',
        command: 'mcp-files',
        args: ['--root', '/srv'],
        injected: { tenant: 't-1' },
        ...STAMPS,
      },
    });
  });

  it('streamable-http and sse: store the endpoint and headers', () => {
    for (const transport of ['streamable-http', 'sse']) {
      const r = validateToolRecord(
        { ...HTTP_MCP, transport, headers: { Authorization: { secret: 'file:/var/run/secrets/hookyard/search' } }, timeout_ms: 5000 },
        NOW,
      );
      expect(r.ok && r.record).toMatchObject({
        kind: 'mcp',
        transport,
        endpoint: HTTP_MCP.endpoint,
        headers: { Authorization: { secret: 'file:/var/run/secrets/hookyard/search' } },
        timeout_ms: 5000,
      });
    }
  });

  it('with the stdio allowlist given, refuses a command outside it on write', () => {
    expect(errorsOf(STDIO, { mcpStdioAllow: ['node'] })).toEqual(['command "mcp-files" is not in HOOKS_MCP_STDIO_ALLOW']);
    expect(validateToolRecord(STDIO, NOW, { mcpStdioAllow: ['mcp-files'] }).ok).toBe(true);
  });

  it.each([
    [{ ...STDIO, transport: 'websocket' }, 'transport must be one of stdio, sse, streamable-http, got "websocket"'],
    [{ name: 'x', kind: 'mcp', endpoint: 'http://h/' }, 'transport must be one of stdio, sse, streamable-http, got undefined'],
    [{ ...STDIO, command: '' }, 'command must be the command to spawn'],
    [{ ...STDIO, endpoint: 'http://h/' }, 'endpoint does not apply to transport stdio'],
    [{ ...STDIO, headers: { A: 'b' } }, 'headers do not apply to transport stdio'],
    [{ ...STDIO, args: 'x' }, 'args must be a list of strings, got "x"'],
    [{ ...STDIO, args: ['ok', 1] }, 'args[1] must be a string without NUL, got 1'],
    [{ ...HTTP_MCP, command: 'x' }, 'command applies only to transport stdio, not streamable-http'],
    [{ ...HTTP_MCP, endpoint: undefined }, 'endpoint must be an http(s) URL string, got undefined'],
    [{ ...HTTP_MCP, method: 'GET' }, "field 'method' applies only to kind http, not mcp"],
    [{ ...HTTP_MCP, name: 'a__b' }, "name must not contain '__'"],
  ])('refuses %j', (input, line) => {
    const errors = errorsOf(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });
});

describe('validateToolRecord: kind grpc', () => {
  const GRPC = { name: 'lamp', kind: 'grpc', endpoint: 'grpc://127.0.0.1:50051' };

  it('accepts a registration and keeps services and metadata; no http-only fields are stored', () => {
    const r = validateToolRecord({ ...GRPC, services: ['pkg.Lamp'], metadata: { 'x-team': 'a' }, timeout_ms: 2000 }, NOW);
    expect(r).toEqual({
      ok: true,
      record: {
        name: 'lamp',
        kind: 'grpc',
        endpoint: 'grpc://127.0.0.1:50051',
        timeout_ms: 2000,
        headers: {},
        services: ['pkg.Lamp'],
        metadata: { 'x-team': 'a' },
        ...STAMPS,
      },
    });
  });

  it('keeps injected values and the operations filter, as for openapi and mcp', () => {
    const r = validateToolRecord(
      { ...GRPC, injected: { tenant: 'acme', token: { secret: 'env:HOOKS_SECRET_LAMP' } }, operations: ['pkg.Lamp.TurnOn', '!turn_off'] },
      NOW,
    );
    expect(r.ok && r.record).toMatchObject({
      injected: { tenant: 'acme', token: { secret: 'env:HOOKS_SECRET_LAMP' } },
      operations: ['pkg.Lamp.TurnOn', '!turn_off'],
    });
  });

  it.each([
    [{ ...GRPC, endpoint: '127.0.0.1:50051' }, 'endpoint must be grpc://host:port'],
    [{ ...GRPC, headers: { A: 'b' } }, 'headers do not apply to kind grpc; use metadata'],
    [{ ...GRPC, services: [] }, 'services must be a non-empty list'],
    [{ ...GRPC, injected: { apiKey: 'literal' } }, 'injected.apiKey'],
    [{ ...GRPC, operations: [] }, 'operations must be a non-empty list'],
    [{ ...GRPC, method: 'GET' }, "field 'method' applies only to kind http, not grpc"],
    [{ ...GRPC, name: 'a__b' }, "name must not contain '__'"],
  ])('refuses %j', (input, line) => {
    const errors = errorsOf(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });
});

describe('validateToolRecord: name lengths the model APIs take', () => {
  it('a provider registration is at most 40 characters (its tools are <name>__<operation>, at most 64)', () => {
    expect(validateToolRecord({ ...OPENAPI, name: 'p'.repeat(40) }, NOW).ok).toBe(true);
    expect(errorsOf({ ...OPENAPI, name: 'p'.repeat(41) })).toEqual([
      'name of a registration of kind openapi must be at most 40 characters (its tools are named <name>__<operation>, at most 64 in all)',
    ]);
    expect(errorsOf({ ...STDIO, name: 'm'.repeat(41) }, { mcpStdioAllow: ['mcp-files'] })).toEqual([
      'name of a registration of kind mcp must be at most 40 characters (its tools are named <name>__<operation>, at most 64 in all)',
    ]);
  });

  it('an http tool is its own tool name: at most 64 characters', () => {
    const http = { endpoint: 'https://tools.example.com/call', protocol: 'openai' };
    expect(validateToolRecord({ ...http, name: 't'.repeat(64) }, NOW).ok).toBe(true);
    expect(errorsOf({ ...http, name: 't'.repeat(65) })).toEqual(['name of a tool must be at most 64 characters (the limit of model function-calling APIs)']);
  });
});
