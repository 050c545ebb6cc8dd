import { validateToolRecord } from '../src/remote/validate';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const GOOD = { name: 'weather', endpoint: 'https://tools.example.com/weather', protocol: 'openai' };

function errorsOf(input: unknown): string[] {
  const r = validateToolRecord(input, NOW);
  if (r.ok) throw new Error(`expected refusal, got ${JSON.stringify(r.record)}`);
  return r.errors;
}

describe('validateToolRecord', () => {
  it('accepts a minimal registration and fills the defaults', () => {
    const r = validateToolRecord(GOOD, NOW);
    expect(r).toEqual({
      ok: true,
      record: {
        name: 'weather',
        kind: 'http',
        endpoint: 'https://tools.example.com/weather',
        method: 'POST',
        timeout_ms: 30000,
        headers: {},
        body_properties: {},
        protocol: 'openai',
        created_at: '2025-06-01T12:00:00.000Z',
        updated_at: '2025-06-01T12:00:00.000Z',
      },
    });
  });

  it('keeps every optional field it is given', () => {
    const retry = { max_attempts: 3, base_ms: 100, cap_ms: 1000, kinds: ['unavailable', 'timeout'] };
    const r = validateToolRecord(
      {
        ...GOOD,
        kind: 'http',
        method: 'PUT',
        timeout_ms: 1500,
        headers: { 'X-Trace': 'v', 'X-Key': { secret: 'env:HOOKS_SECRET_WEATHER_KEY' } },
        body_properties: { a: 1 },
        description: 'd',
        retry,
        crash_resumable: true,
      },
      NOW,
    );
    expect(r.ok && r.record).toMatchObject({
      method: 'PUT',
      timeout_ms: 1500,
      headers: { 'X-Trace': 'v', 'X-Key': { secret: 'env:HOOKS_SECRET_WEATHER_KEY' } },
      body_properties: { a: 1 },
      description: 'd',
      retry,
      crash_resumable: true,
    });
  });

  it('stores the alias langserve as langserve-direct', () => {
    const r = validateToolRecord({ ...GOOD, protocol: 'langserve' }, NOW);
    expect(r.ok && r.record.protocol).toBe('langserve-direct');
  });

  it.each([
    [{ ...GOOD, name: 'Bad Name' }, 'name "Bad Name" must match ^[a-z0-9][a-z0-9_-]*$'],
    [{ ...GOOD, name: 'echo' }, "name 'echo' is reserved for a built-in tool"],
    [{ ...GOOD, endpoint: 'ftp://x/y' }, 'endpoint scheme must be http or https, got "ftp"'],
    [{ ...GOOD, endpoint: 'not a url' }, 'endpoint is not a URL: "not a url"'],
    [{ ...GOOD, endpoint: 'https://u:p@x.example/' }, 'endpoint must not carry credentials (user:password@); use headers with {"secret":"env:NAME"}'],
    [{ ...GOOD, endpoint: 7 }, 'endpoint must be an http(s) URL string, got 7'],
    [{ ...GOOD, method: 'HEAD' }, 'method must be one of GET, POST, PUT, PATCH, DELETE, got "HEAD"'],
    [{ ...GOOD, timeout_ms: 0 }, 'timeout_ms must be a whole number of milliseconds > 0, got 0'],
    [{ ...GOOD, timeout_ms: 1.5 }, 'timeout_ms must be a whole number of milliseconds > 0, got 1.5'],
    [{ ...GOOD, timeout_ms: '100' }, 'timeout_ms must be a whole number of milliseconds > 0, got "100"'],
    [{ ...GOOD, headers: { 'X-A': 1 } }, 'headers.X-A must be a string or {"secret":"env:NAME"}, got 1'],
    [{ ...GOOD, headers: ['a'] }, 'headers must be an object of strings or {"secret":"env:NAME"}, got a list'],
    [{ ...GOOD, headers: { 'Bad Header': 'v' } }, 'headers: "Bad Header" is not a valid header name'],
    [{ ...GOOD, headers: { 'X-A': 'a\r\nInjected: 1' } }, 'headers.X-A must not contain CR, LF or NUL'],
    [{ ...GOOD, body_properties: 'x' }, 'body_properties must be an object, got "x"'],
    [{ ...GOOD, protocol: 'grpc' }, 'protocol must be one of openai, openai-object, ollama, langserve-openai, langserve-direct, langserve, got "grpc"'],
    [
      { name: 'x', endpoint: 'http://h/' },
      'protocol must be one of openai, openai-object, ollama, langserve-openai, langserve-direct, langserve, got undefined',
    ],
    [{ ...GOOD, kind: 'soap' }, 'kind must be one of http, openapi, mcp, grpc, got "soap"'],
    [{ ...GOOD, timeout: 5 }, "unknown field 'timeout'"],
    [{ ...GOOD, crash_resumable: 'yes' }, 'crash_resumable must be true or false, got "yes"'],
    [{ ...GOOD, description: 3 }, 'description must be a string, got 3'],
    [{ ...GOOD, retry: 3 }, 'retry must be an object {max_attempts, base_ms, cap_ms, kinds}, got 3'],
    [{ ...GOOD, retry: { max_attempts: 0, base_ms: 1, cap_ms: 1, kinds: ['timeout'] } }, 'retry.max_attempts must be a whole number from 1 to 100, got 0'],
    [{ ...GOOD, retry: { max_attempts: 2, base_ms: 10, cap_ms: 5, kinds: ['timeout'] } }, 'retry.cap_ms must be >= retry.base_ms (10), got 5'],
    [{ ...GOOD, retry: { max_attempts: 2, base_ms: 1, cap_ms: 5, kinds: ['boom'] } }, 'retry.kinds: "boom" is not an error kind'],
    [{ ...GOOD, retry: { max_attempts: 2, base_ms: 1, cap_ms: 5, kinds: [] } }, 'retry.kinds must be a non-empty list'],
    [{ ...GOOD, retry: { max_attempts: 2, base_ms: 1, cap_ms: 5, kinds: ['timeout'], jitter: 1 } }, "unknown field 'retry.jitter'"],
  ])('refuses %j', (input, line) => {
    const errors = errorsOf(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });

  it('reports every problem at once, one line each', () => {
    const errors = errorsOf({ name: '', endpoint: 'x', method: 'GO', timeout_ms: -1, protocol: 'soap', extra: 1 });
    expect(errors).toHaveLength(6);
    for (const field of ["'extra'", 'name', 'endpoint', 'method', 'timeout_ms', 'protocol']) {
      expect(errors.some((e) => e.includes(field))).toBe(true);
    }
  });

  it('refuses what is not an object', () => {
    expect(errorsOf([GOOD])[0]).toContain('must be a JSON object');
    expect(errorsOf(null)[0]).toContain('must be a JSON object');
  });
});
