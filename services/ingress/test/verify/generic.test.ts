import { createHmac } from 'node:crypto';
import { HookyardError } from '@hookyard/core';
import { UNAUTHORIZED_BODY, createSecretResolver, verifyDelivery } from '../../src/verify';
import { anyDigestEqual } from '../../src/verify/crypto';
import { ENV, NOW, NOW_S, bind, post, secrets, tamper } from './support';

const body = '{"order":17,"items":["a","b"]}';

describe('hmac (generic)', () => {
  it('checks sha512 in base64 with a prefix; the delivery id header is optional', async () => {
    const binding = bind({
      kind: 'hmac',
      secret: 'env:HOOKS_SECRET_NEW_SECRET',
      settings: { header: 'X-Signature', algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=', delivery_id_header: 'X-Request-Id' },
    });
    const signature = `sha512=${createHmac('sha512', ENV.HOOKS_SECRET_NEW_SECRET).update(body).digest('base64')}`;
    expect(await verifyDelivery(binding, post({ 'x-signature': signature, 'x-request-id': 'r-9' }, body), secrets)).toEqual({
      ok: true,
      deliveryId: 'r-9',
      claimTtlMs: 86_400_000,
    });
    expect(await verifyDelivery(binding, post({ 'x-signature': signature }, body), secrets)).toMatchObject({ ok: true, deliveryId: null });
    const noPrefix = signature.slice('sha512='.length);
    expect(await verifyDelivery(binding, post({ 'x-signature': noPrefix }, body), secrets)).toMatchObject({ ok: false, status: 401 });
    expect(await verifyDelivery(binding, post({ 'x-signature': signature }, tamper(body)), secrets)).toMatchObject({ ok: false, status: 401 });
  });

  it('signs "{ts}.{body}" when a timestamp header is set, within the tolerance both ways', async () => {
    const binding = bind({
      kind: 'hmac',
      secrets: ['env:HOOKS_SECRET_OLD_SECRET', 'env:HOOKS_SECRET_NEW_SECRET'],
      settings: { header: 'x-sig', algorithm: 'sha1', timestamp_header: 'x-ts', tolerance_seconds: 60 },
    });
    const headers = (secret: string, ts: number) => ({ 'x-sig': createHmac('sha1', secret).update(`${ts}.${body}`).digest('hex'), 'x-ts': String(ts) });
    expect(await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S), body), secrets)).toMatchObject({ ok: true, claimTtlMs: 120_000 });
    expect(await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_NEW_SECRET, NOW_S + 59), body), secrets)).toMatchObject({ ok: true });
    const stale = await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S - 61), body), secrets);
    const future = await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S + 61), body), secrets);
    expect(stale).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/stale/) });
    expect(future).toMatchObject({ ok: false, status: 401, reason: expect.stringMatching(/future/) });
    // The same signature without its timestamp header proves nothing.
    const { 'x-ts': _ts, ...noTs } = headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S);
    expect(await verifyDelivery(binding, post(noTs, body), secrets)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a signature that is not strictly hex (no lenient decoding)', async () => {
    const binding = bind({ kind: 'hmac', secret: 'env:HOOKS_SECRET_OLD_SECRET', settings: { header: 'x-sig' } });
    const good = createHmac('sha256', ENV.HOOKS_SECRET_OLD_SECRET).update(body).digest('hex');
    expect(await verifyDelivery(binding, post({ 'x-sig': good }, body), secrets)).toMatchObject({ ok: true });
    expect(await verifyDelivery(binding, post({ 'x-sig': `${good}zz` }, body), secrets)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a digest cut short, one too long, and the right one of another secret, however often the binding is asked', async () => {
    const binding = bind({ kind: 'hmac', secret: 'env:HOOKS_SECRET_OLD_SECRET', settings: { header: 'x-sig' } });
    const good = createHmac('sha256', ENV.HOOKS_SECRET_OLD_SECRET).update(body).digest('hex');
    const other = createHmac('sha256', ENV.HOOKS_SECRET_NEW_SECRET).update(body).digest('hex');
    for (let i = 0; i < 2; i += 1) {
      expect(await verifyDelivery(binding, post({ 'x-sig': good }, body), secrets)).toMatchObject({ ok: true });
      expect(await verifyDelivery(binding, post({ 'x-sig': good.slice(0, -2) }, body), secrets)).toMatchObject({ ok: false, status: 401 });
      expect(await verifyDelivery(binding, post({ 'x-sig': `${good}00` }, body), secrets)).toMatchObject({ ok: false, status: 401 });
      expect(await verifyDelivery(binding, post({ 'x-sig': other }, body), secrets)).toMatchObject({ ok: false, status: 401 });
    }
  });
});

describe('anyDigestEqual', () => {
  it('is true when any candidate equals any expected digest, false for another length or other bytes', () => {
    const a = Buffer.from('00112233', 'hex');
    const b = Buffer.from('44556677', 'hex');
    expect(anyDigestEqual([a], [b, a])).toBe(true);
    expect(anyDigestEqual([b, a], [a])).toBe(true);
    expect(anyDigestEqual([a], [b])).toBe(false);
    expect(anyDigestEqual([a.subarray(0, 3)], [a])).toBe(false);
    expect(anyDigestEqual([Buffer.concat([a, a])], [a])).toBe(false);
    expect(anyDigestEqual([], [a])).toBe(false);
  });
});

describe('shared_secret', () => {
  const binding = bind({
    kind: 'shared_secret',
    secrets: ['env:HOOKS_SECRET_OLD_SECRET', 'env:HOOKS_SECRET_NEW_SECRET'],
    settings: { header: 'X-Token', allow_get: true },
  });

  it('accepts a header equal to either secret, on POST and (allow_get) GET', async () => {
    expect(await verifyDelivery(binding, post({ 'x-token': ENV.HOOKS_SECRET_NEW_SECRET }, body), secrets)).toEqual({
      ok: true,
      deliveryId: null,
      claimTtlMs: 86_400_000,
    });
    const get = { method: 'GET', headers: { 'X-Token': ENV.HOOKS_SECRET_OLD_SECRET }, rawBody: Buffer.alloc(0), now: NOW };
    expect(await verifyDelivery(binding, get, secrets)).toMatchObject({ ok: true });
  });

  it('refuses a prefix of the secret, the secret plus more, a missing header, and GET without allow_get', async () => {
    for (const value of [ENV.HOOKS_SECRET_OLD_SECRET.slice(0, -1), `${ENV.HOOKS_SECRET_OLD_SECRET}x`, '']) {
      expect(await verifyDelivery(binding, post({ 'x-token': value }, body), secrets)).toMatchObject({ ok: false, status: 401 });
    }
    expect(await verifyDelivery(binding, post({}, body), secrets)).toEqual({ ok: false, status: 401, reason: 'missing header x-token' });
    const postOnly = bind({ kind: 'shared_secret', secret: 'env:HOOKS_SECRET_OLD_SECRET' });
    const get = { method: 'GET', headers: { 'x-webhook-secret': ENV.HOOKS_SECRET_OLD_SECRET }, rawBody: Buffer.alloc(0), now: NOW };
    expect(await verifyDelivery(postOnly, get, secrets)).toMatchObject({ ok: false, status: 405 });
  });

  it('refuses a header sent twice (ambiguous)', async () => {
    expect(await verifyDelivery(binding, post({ 'x-token': [ENV.HOOKS_SECRET_OLD_SECRET, 'evil'] }, body), secrets)).toMatchObject({ ok: false, status: 401 });
  });
});

describe('secrets and the 401 body', () => {
  it('an unset env reference is an internal error naming the reference, not a 401', async () => {
    const binding = bind({ kind: 'github', secret: 'env:HOOKS_SECRET_GONE_SECRET' });
    const err = await verifyDelivery(binding, post({ 'x-hub-signature-256': 'sha256=00' }, body), secrets).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookyardError);
    expect(err).toMatchObject({ kind: 'internal', message: 'secret reference env:HOOKS_SECRET_GONE_SECRET is not set' });
  });

  it('an unreadable file is internal; a readable one is trimmed of its trailing newline and cached', async () => {
    let reads = 0;
    let clock = 0;
    const resolver = createSecretResolver({
      env: {},
      now: () => clock,
      readFile: async (path) => {
        reads += 1;
        if (path === '/var/run/secrets/hookyard/hook') return Buffer.from('file-secret\n');
        throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      },
    });
    await expect(resolver.resolve('file:/var/run/secrets/hookyard/missing')).rejects.toMatchObject({
      kind: 'internal',
      message: 'secret reference file:/var/run/secrets/hookyard/missing cannot be read (ENOENT)',
    });
    expect((await resolver.resolve('file:/var/run/secrets/hookyard/hook')).toString()).toBe('file-secret');
    await resolver.resolve('file:/var/run/secrets/hookyard/hook');
    expect(reads).toBe(2);
    clock = 6000; // past the 5 s cache: a rotated file is picked up
    await resolver.resolve('file:/var/run/secrets/hookyard/hook');
    expect(reads).toBe(3);
    await expect(createSecretResolver({ env: { HOOKS_SECRET_E: '' } }).resolve('env:HOOKS_SECRET_E')).rejects.toMatchObject({
      kind: 'internal',
      message: 'secret reference env:HOOKS_SECRET_E is empty',
    });
    await expect(resolver.resolve('plain-literal')).rejects.toMatchObject({ kind: 'internal' });
  });

  it('a reference outside the scope is refused on every use, not only the first', async () => {
    const resolver = createSecretResolver({ env: { HOOKS_SECRET_A: 'a', OTHER: 'x' } });
    for (let i = 0; i < 3; i += 1) {
      await expect(resolver.resolve('env:OTHER')).rejects.toMatchObject({ kind: 'forbidden', message: expect.stringMatching(/must start with HOOKS_SECRET_/) });
      await expect(resolver.resolve('plain-literal')).rejects.toMatchObject({ kind: 'internal' });
      await expect(resolver.resolve('env:HOOKS_SECRET_A')).resolves.toEqual(Buffer.from('a'));
    }
  });

  it('the door body for every 401 is one constant that names no check', () => {
    expect(JSON.stringify(UNAUTHORIZED_BODY)).toBe('{"error":"webhook verification failed"}');
    expect(Object.isFrozen(UNAUTHORIZED_BODY)).toBe(true);
  });
});
