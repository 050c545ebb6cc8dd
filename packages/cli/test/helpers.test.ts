import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, CliError, EXIT, apiPath, oneLine, readRecord } from '../src/client';
import { parseSettings } from '../src/commands/verifier';
import { cell } from '../src/output';

describe('apiPath', () => {
  it('encodes each segment and the query', () => {
    expect(apiPath(['hooks', 'a/b c'])).toBe('api/hooks/a%2Fb%20c');
    expect(apiPath(['hook-runs'], new URLSearchParams({ status: 'failed', hook: 'h1' }))).toBe('api/hook-runs?status=failed&hook=h1');
    expect(apiPath(['hook-runs'], new URLSearchParams())).toBe('api/hook-runs');
  });
});

describe('parseSettings (--setting key=value)', () => {
  it('types numbers and booleans, keeps the rest (and any later =) as text', () => {
    expect(parseSettings(['header=X-Sig', 'tolerance_seconds=300', 'allow_get=true', 'prefix=sha256='])).toEqual({
      header: 'X-Sig',
      tolerance_seconds: 300,
      allow_get: true,
      prefix: 'sha256=',
    });
  });

  it.each(['novalue', '=x'])('%j is a usage error', (kv) => {
    expect(() => parseSettings([kv])).toThrow(expect.objectContaining({ exitCode: EXIT.usage }));
  });
});

describe('readRecord (--params / --file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookyard-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads either --params or a file', () => {
    const file = join(dir, 'hook.json');
    writeFileSync(file, '{"name":"h1"}');
    expect(readRecord('hook record', { params: '{"name":"h0"}' })).toEqual({ name: 'h0' });
    expect(readRecord('hook record', { file })).toEqual({ name: 'h1' });
  });

  it.each([
    [{}, /the hook record is required/],
    [{ params: '{}', file: 'x' }, /either --params or --file/],
    [{ params: '{' }, /--params is not valid JSON/],
    [{ file: 'no-such-file.json' }, /cannot read --file no-such-file.json/],
  ])('%j is a usage error', (opts, message) => {
    let caught: unknown;
    try {
      readRecord('hook record', opts);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect((caught as CliError).exitCode).toBe(EXIT.usage);
    expect((caught as CliError).message).toMatch(message);
  });
});

describe('ApiClient', () => {
  it('refuses a URL that is not http(s) as usage', () => {
    expect(() => new ApiClient({ url: 'ftp://x', token: 't' })).toThrow(/must be an http/);
    expect(() => new ApiClient({ url: 'nope', token: 't' })).toThrow(/is not a URL/);
  });

  it('asks for a token before calling anything', async () => {
    await expect(new ApiClient({ url: 'http://127.0.0.1:1', token: ' ' }).get('api/hooks')).rejects.toMatchObject({ exitCode: EXIT.usage });
  });
});

describe('one-line output', () => {
  it('collapses newlines in cells and messages', () => {
    expect(oneLine('a\n  b\nc ')).toBe('a b c');
    expect(cell({ a: 1 })).toBe('{"a":1}');
    expect(cell(null)).toBe('');
    expect(cell('x\ny')).toBe('x y');
  });
});
