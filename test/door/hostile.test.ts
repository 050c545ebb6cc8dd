import { SECURITY, rawRequest, startDoorApp, type DoorApp, type RawResponse } from './support';

/**
 * Hostile inputs at the public door, each answered with a clear 4xx that keeps
 * nothing (or, where the README says so, kept as raw text), every answer with
 * the two security headers. Requests go over raw sockets so the bytes on the
 * wire are exactly the ones written here.
 */
describe('the door against hostile input', () => {
  let app: DoorApp;
  const TOPIC = 'hostile';
  const READ_TIMEOUT_MS = 400;

  beforeAll(async () => {
    // Short read timeout for the slow client; the limiter out of the way (it has its own suites).
    app = await startDoorApp({ deps: { doorReadTimeoutMs: READ_TIMEOUT_MS, limiter: null } });
    await app.putHook('hostile-hook', TOPIC);
  });
  afterAll(() => app.close());

  /** A full request over a raw socket. */
  function post(path: string, body: Buffer | string, headers: Record<string, string> = {}, method = 'POST'): Promise<RawResponse> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Length: ${bytes.length}`, 'Connection: close'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    return rawRequest(app.port, [Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), bytes])]);
  }

  /** Asserts the answer and that the store saw no keep and holds no new run. */
  async function expectRefusedKeepingNothing(send: () => Promise<RawResponse>, status: number, body?: unknown): Promise<RawResponse> {
    const keepsBefore = app.keeps.length;
    const runsBefore = (await app.allRuns()).length;
    const r = await send();
    expect(r.status).toBe(status);
    if (body !== undefined) expect(JSON.parse(r.body)).toEqual(body);
    expect({ nosniff: r.headers['x-content-type-options'], cache: r.headers['cache-control'] }).toEqual(SECURITY);
    expect(app.keeps.length).toBe(keepsBefore);
    expect((await app.allRuns()).length).toBe(runsBefore);
    return r;
  }

  /** Sends, expects 200 accepted with one run, and returns the kept payload. */
  async function expectKeptOnce(send: () => Promise<RawResponse>): Promise<unknown> {
    const runsBefore = (await app.allRuns()).length;
    const r = await send();
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
    expect({ nosniff: r.headers['x-content-type-options'], cache: r.headers['cache-control'] }).toEqual(SECURITY);
    const runs = await app.allRuns();
    expect(runs.length).toBe(runsBefore + 1);
    const last = app.keeps[app.keeps.length - 1]!;
    expect(last.kept).toHaveLength(1);
    return (await app.inner.runs.get(last.kept![0]!.id))!.payload;
  }

  it('an oversized query string is 414', async () => {
    const q = 'a=' + 'x'.repeat(app.settings.queryMaxBytes);
    await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}?${q}`, '{"a":1}', { 'Content-Type': 'application/json' }), 414, {
      error: `query string too long: the limit is ${app.settings.queryMaxBytes} bytes (HOOKS_QUERY_MAX_BYTES)`,
    });
  });

  it('a query string exactly at the cap is accepted (the cap is not off by one)', async () => {
    const q = 'a=' + 'x'.repeat(app.settings.queryMaxBytes - 2);
    await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}?${q}`, '{"b":1}', { 'Content-Type': 'application/json' }));
  });

  it("a header flood over node's limit is refused by node with 431, keeping nothing", async () => {
    const keepsBefore = app.keeps.length;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    for (let i = 0; i < 400; i++) headers[`X-Flood-${i}`] = 'v'.repeat(100);
    const r = await post(`/universal_webhook/${TOPIC}`, '{"a":1}', headers);
    expect(r.status).toBe(431);
    expect(app.keeps.length).toBe(keepsBefore);
    // node's own parser answers before the app sees the request: see found-bugs.test.ts for its headers.
  });

  it('one header value over the limit is 431 too, keeping nothing', async () => {
    const keepsBefore = app.keeps.length;
    const r = await post(`/universal_webhook/${TOPIC}`, '{"a":1}', {
      'Content-Type': 'application/json',
      'X-Hub-Signature-256': 'sha256=' + 'a'.repeat(20_000),
    });
    expect(r.status).toBe(431);
    expect(app.keeps.length).toBe(keepsBefore);
  });

  it('hundreds of headers under the size limit reach the door and are accepted once', async () => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    for (let i = 0; i < 300; i++) headers[`X-H${i}`] = String(i);
    await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, '{"many":"headers"}', headers));
  });

  it('invalid UTF-8 in a JSON body is 400 rejected', async () => {
    const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, body, { 'Content-Type': 'application/json' }), 400);
    expect(JSON.parse(r.body)).toEqual({ status: 'rejected', error: 'body is not valid UTF-8' });
  });

  it('invalid UTF-8 in a text body is 400 rejected', async () => {
    const body = Buffer.concat([Buffer.from('hello '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' world')]); // an encoded surrogate
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, body, { 'Content-Type': 'text/plain; charset=utf-8' }), 400);
    expect(JSON.parse(r.body)).toEqual({ status: 'rejected', error: 'body is not valid UTF-8' });
  });

  it('JSON nested deeper than the bound is 400 rejected; at the bound it is accepted', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, deep(65), { 'Content-Type': 'application/json' }), 400);
    expect(JSON.parse(r.body)).toEqual({ status: 'rejected', error: 'JSON nests deeper than 64 levels' });
    // A hundred thousand levels: refused by the scan, never built.
    await expectRefusedKeepingNothing(
      () => post(`/universal_webhook/${TOPIC}`, '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000), { 'Content-Type': 'application/json' }),
      400,
    );
    // Brackets inside strings do not count.
    await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, JSON.stringify({ s: '['.repeat(500) }), { 'Content-Type': 'application/json' }));
    await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, deep(64), { 'Content-Type': 'application/json' }));
  });

  it('a JSON body declared text/plain is kept as raw text (not parsed)', async () => {
    const json = '{"action":"opened","n":1}';
    const payload = await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, json, { 'Content-Type': 'text/plain' }));
    expect(payload).toEqual({ raw_body: json });
  });

  it('a non-JSON body declared application/json is 400 rejected, quoting the parser', async () => {
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, 'action=opened&n=1', { 'Content-Type': 'application/json' }), 400);
    const body = JSON.parse(r.body);
    expect(body.status).toBe('rejected');
    expect(body.error).toMatch(/^body is not valid JSON: /);
  });

  it('a multipart form with a file part is 400 rejected', async () => {
    const b = 'XyZbOuNdArY';
    const body = [
      `--${b}`,
      'Content-Disposition: form-data; name="field"',
      '',
      'value',
      `--${b}`,
      'Content-Disposition: form-data; name="upload"; filename="evil.sh"',
      'Content-Type: application/octet-stream',
      '',
      '#!/bin/sh\nrm -rf /',
      `--${b}--`,
      '',
    ].join('\r\n');
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, body, { 'Content-Type': `multipart/form-data; boundary=${b}` }), 400);
    const answer = JSON.parse(r.body);
    expect(answer.status).toBe('rejected');
    expect(answer.error).toContain("'upload'");
    expect(answer.error).toContain('file');
  });

  it('a multipart form of text fields only is accepted as its fields', async () => {
    const b = 'bnd42';
    const body = [
      `--${b}`,
      'Content-Disposition: form-data; name="a"',
      '',
      '1',
      `--${b}`,
      'Content-Disposition: form-data; name="a"',
      '',
      '2',
      `--${b}--`,
      '',
    ].join('\r\n');
    const payload = await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, body, { 'Content-Type': `multipart/form-data; boundary=${b}` }));
    expect(payload).toEqual({ a: ['1', '2'] });
  });

  it('XML with an entity bomb is kept as raw text, byte for byte, entities never expanded', async () => {
    const lol = ['<?xml version="1.0"?>', '<!DOCTYPE lolz [', ' <!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) lol.push(` <!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    lol.push(']>', '<lolz>&lol9;</lolz>', '<ext><!ENTITY xxe SYSTEM "file:///etc/passwd">&xxe;</ext>');
    const xml = lol.join('\n');
    const bytes = Buffer.from(xml, 'utf8');
    const payload = (await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, bytes, { 'Content-Type': 'application/xml' }))) as { raw_body: string };
    expect(Object.keys(payload)).toEqual(['raw_body']);
    expect(Buffer.from(payload.raw_body, 'utf8').equals(bytes)).toBe(true);
    // The same under an +xml type.
    const again = (await expectKeptOnce(() => post(`/universal_webhook/${TOPIC}`, bytes, { 'Content-Type': 'application/soap+xml; charset=utf-8' }))) as {
      raw_body: string;
    };
    expect(again.raw_body).toBe(xml);
  });

  it('a slow client that drips its body is answered 408 after the read timeout, keeping nothing', async () => {
    const body = '{"drip":"' + 'x'.repeat(40) + '"}';
    const head = `POST /universal_webhook/${TOPIC} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One byte every 50 ms: the whole body would take ~2.5 s, far past the 400 ms read timeout.
    const pieces = [head, ...body.split('')];
    const r = await expectRefusedKeepingNothing(() => rawRequest(app.port, pieces, { gapMs: 50, timeoutMs: 10_000 }), 408, {
      error: 'request body not received in time',
    });
    expect(r.headers.connection).toBe('close');
  });

  it.each([
    ['upper case', 'Hostile'],
    ['a leading dash', '-hostile'],
    ['a dot', 'host.ile'],
    ['an encoded slash', 'a%2Fb'],
    ['unicode', encodeURIComponent('hööks')],
    ['129 characters', 'a'.repeat(129)],
    ['an encoded NUL', 'a%00'],
  ])('a topic with %s fails the pattern: 400 naming it', async (_what, topic) => {
    await expectRefusedKeepingNothing(() => post(`/universal_webhook/${topic}`, '{"a":1}', { 'Content-Type': 'application/json' }), 400, {
      status: 'rejected',
      error: 'topic must match ^[a-z0-9][a-z0-9_-]*$ (at most 128 characters)',
    });
  });

  it('GET on the door is 405 with Allow: POST', async () => {
    const keepsBefore = app.keeps.length;
    const r = await rawRequest(app.port, [`GET /universal_webhook/${TOPIC} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`]);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('POST');
    expect(JSON.parse(r.body)).toEqual({ error: 'method not allowed' });
    expect({ nosniff: r.headers['x-content-type-options'], cache: r.headers['cache-control'] }).toEqual(SECURITY);
    expect(app.keeps.length).toBe(keepsBefore);
  });

  it.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS'])('%s on the door with a body is 405, keeping nothing', async (method) => {
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, '{"a":1}', { 'Content-Type': 'application/json' }, method), 405);
    expect(r.headers.allow).toBe('POST');
  });

  it('a body over the cap is 413 and the connection is closed', async () => {
    const big = Buffer.alloc(app.settings.bodyMaxBytes + 1, 0x61);
    const r = await expectRefusedKeepingNothing(() => post(`/universal_webhook/${TOPIC}`, big, { 'Content-Type': 'text/plain' }), 413, {
      error: `body too large: the limit is ${app.settings.bodyMaxBytes} bytes (HOOKS_BODY_MAX_BYTES)`,
    });
    expect(r.headers.connection).toBe('close');
  });

  it('the app still answers after all of it', async () => {
    const r = await post(`/universal_webhook/${TOPIC}`, '{"still":"here"}', { 'Content-Type': 'application/json' });
    expect(r.status).toBe(200);
    expect(app.logs.filter((l) => l.msg === 'door failed unexpectedly')).toEqual([]);
  });
});
