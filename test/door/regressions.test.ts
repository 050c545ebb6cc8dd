import { randomBytes } from 'node:crypto';
import { requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { SECURITY, rawRequest, startDoorApp, type DoorApp } from './support';

/**
 * Regressions: bugs the door suites found, each stated as the documented
 * behaviour it now has.
 */

describe('node-level refusals of a served ingress carry the security headers', () => {
  let proc: RoleProcess;
  let port: number;
  beforeAll(async () => {
    requireBuiltCli();
    proc = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${randomBytes(16).toString('hex')}`, HOOKS_LOG_LEVEL: 'info' });
    port = Number(new URL(await proc.waitListening()).port);
  }, 30_000);
  afterAll(async () => {
    await proc?.stop('SIGKILL');
  });

  it('a header flood is 431 with X-Content-Type-Options: nosniff and Cache-Control: no-store', async () => {
    const lines = ['POST /universal_webhook/demo HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 2'];
    for (let i = 0; i < 400; i++) lines.push(`X-Flood-${i}: ${'v'.repeat(100)}`);
    const r = await rawRequest(port, [lines.join('\r\n') + '\r\n\r\n{}']);
    expect(r.status).toBe(431);
    expect({ nosniff: r.headers['x-content-type-options'], cache: r.headers['cache-control'] }).toEqual(SECURITY);
  });

  it('a malformed request is 400 with the security headers', async () => {
    const r = await rawRequest(port, ['POST /universal_webhook/demo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: nope\r\n\r\n']);
    expect(r.status).toBe(400);
    expect({ nosniff: r.headers['x-content-type-options'], cache: r.headers['cache-control'] }).toEqual(SECURITY);
  });
});

describe('multipart text fields are held to UTF-8 like every other form', () => {
  let app: DoorApp;
  beforeAll(async () => {
    app = await startDoorApp({ deps: { limiter: null } });
    await app.putHook('mp-hook', 'mp');
  });
  afterAll(() => app.close());

  const multipart = (partHeaders: string[], value: Buffer) =>
    Buffer.concat([
      Buffer.from(['--B0UND', 'Content-Disposition: form-data; name="f"', ...partHeaders, '', ''].join('\r\n')),
      value,
      Buffer.from('\r\n--B0UND--\r\n'),
    ]);
  const post = (body: Buffer) =>
    rawRequest(app.port, [
      Buffer.concat([
        Buffer.from(
          `POST /universal_webhook/mp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=B0UND\r\nContent-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]),
    ]);

  it('invalid UTF-8 in a multipart text field is 400 rejected (README: invalid UTF-8 in forms is 400), not kept with U+FFFD', async () => {
    const keeps = app.keeps.length;
    const r = await post(multipart([], Buffer.from([0x61, 0xff, 0xfe, 0x62])));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).status).toBe('rejected');
    expect(app.keeps.length).toBe(keeps);
  });

  it('a text field in a charset busboy cannot decode is not dropped silently (kept as its bytes, or refused)', async () => {
    const keeps = app.keeps.length;
    const r = await post(multipart(['Content-Type: text/plain; charset=koi8-r'], Buffer.from([0xf0, 0xd2, 0xc9])));
    if (r.status === 200) {
      const kept = app.keeps[keeps]!;
      const run = await app.inner.runs.get(kept.kept![0]!.id);
      // Whatever form it takes, the field must still be there.
      expect(Object.keys(run!.payload as object)).toContain('f');
      expect((run!.payload as Record<string, unknown>).f).not.toBeUndefined();
    } else {
      expect(r.status).toBe(400);
    }
  });

  it('a percent-encoded invalid UTF-8 sequence in an urlencoded form is 400 rejected, not kept as U+FFFD', async () => {
    const keeps = app.keeps.length;
    const body = Buffer.from('a=%FF%FE&b=ok');
    const r = await rawRequest(app.port, [
      Buffer.concat([
        Buffer.from(
          `POST /universal_webhook/mp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]),
    ]);
    expect(r.status).toBe(400);
    expect(app.keeps.length).toBe(keeps);
  });
});

describe('the platform event topic cannot be forged through the door', () => {
  let app: DoorApp;
  beforeAll(async () => {
    app = await startDoorApp({ deps: { limiter: null } });
    await app.putHook('alerts', 'hooks_run_failed');
  });
  afterAll(async () => {
    delete process.env.HOOKS_SECRET_HOOKYARD_DOOR_PLATFORM_SECRET;
    await app.close();
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/universal_webhook/hooks_run_failed`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('an unauthenticated delivery on hooks_run_failed is 403 and keeps nothing', async () => {
    const keeps = app.keeps.length;
    const r = await post(JSON.stringify({ run_id: 'forged', hook: 'x', error: { kind: 'internal', message: 'page me' } }));
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toMatch(/reserved for platform events/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(app.keeps.length).toBe(keeps);
  });

  it('hooks_approval_requested is reserved the same way: nobody outside can forge an approval request', async () => {
    const keeps = app.keeps.length;
    const r = await fetch(`${app.url}/universal_webhook/hooks_approval_requested`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"interaction":"forged"}',
    });
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toBe(
      'topic hooks_approval_requested is reserved for platform events; bind a verifier to accept it here',
    );
    expect(app.keeps.length).toBe(keeps);
  });

  it('with a verifier bound by an operator, a verified delivery on it is kept', async () => {
    process.env.HOOKS_SECRET_HOOKYARD_DOOR_PLATFORM_SECRET = 'platform-secret-0123456789';
    await app.putVerifier('hooks_run_failed', {
      kind: 'shared_secret',
      secret: 'env:HOOKS_SECRET_HOOKYARD_DOOR_PLATFORM_SECRET',
      settings: { header: 'x-token' },
    });
    const r = await post('{"run_id":"relayed"}', { 'x-token': 'platform-secret-0123456789' });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
  });
});
