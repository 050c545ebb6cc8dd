import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { verifyDelivery } from '../../src/verify';
import { ENV, NOW, NOW_S, bind, post, secrets, tamper } from './support';

const body = JSON.stringify({ id: 'evt_123', type: 'invoice.paid', data: { amount: 4200, note: 'naïve ✓' } });

describe('github', () => {
  const binding = bind({ kind: 'github', secrets: ['env:HOOKS_SECRET_OLD_SECRET', 'env:HOOKS_SECRET_NEW_SECRET'] });
  const headers = async (secret: string, payload = body) => ({
    'x-hub-signature-256': await githubSign(secret, payload),
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  });

  it('accepts a signature made by @octokit/webhooks-methods with either rotated secret', async () => {
    for (const secret of [ENV.HOOKS_SECRET_OLD_SECRET, ENV.HOOKS_SECRET_NEW_SECRET]) {
      const result = await verifyDelivery(binding, post(await headers(secret), body), secrets);
      expect(result).toEqual({ ok: true, deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958', claimTtlMs: 24 * 3600 * 1000 });
    }
  });

  it('refuses a wrong secret and a body changed by one byte', async () => {
    expect(await verifyDelivery(binding, post(await headers(ENV.HOOKS_SECRET_WRONG_SECRET), body), secrets)).toMatchObject({ ok: false, status: 401 });
    expect(await verifyDelivery(binding, post(await headers(ENV.HOOKS_SECRET_OLD_SECRET), tamper(body)), secrets)).toMatchObject({ ok: false, status: 401 });
  });

  it('looks headers up case-insensitively and refuses when the signature header is missing', async () => {
    const h = await headers(ENV.HOOKS_SECRET_NEW_SECRET);
    const upper = { 'X-Hub-Signature-256': h['x-hub-signature-256'], 'X-GitHub-Delivery': 'd-1' };
    expect(await verifyDelivery(binding, post(upper, body), secrets)).toMatchObject({ ok: true, deliveryId: 'd-1' });
    const missing = await verifyDelivery(binding, post({ 'x-github-delivery': 'd-1' }, body), secrets);
    expect(missing).toEqual({ ok: false, status: 401, reason: 'missing header x-hub-signature-256' });
  });

  it('answers 405 to a GET: the signature covers a body', async () => {
    const result = await verifyDelivery(binding, { ...post(await headers(ENV.HOOKS_SECRET_OLD_SECRET), body), method: 'GET' }, secrets);
    expect(result).toMatchObject({ ok: false, status: 405 });
  });
});

describe('stripe', () => {
  const binding = bind({ kind: 'stripe', secrets: ['env:HOOKS_SECRET_STRIPE_OLD', 'env:HOOKS_SECRET_STRIPE_NEW'] });
  const stripe = new Stripe('sk_test_x');
  const sig = (secret: string, timestamp = NOW_S, payload = body) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

  it('accepts the stripe library header with either secret; the event id is the delivery id', async () => {
    for (const secret of [ENV.HOOKS_SECRET_STRIPE_OLD, ENV.HOOKS_SECRET_STRIPE_NEW]) {
      const result = await verifyDelivery(binding, post({ 'stripe-signature': sig(secret) }, body), secrets);
      expect(result).toEqual({ ok: true, deliveryId: 'evt_123', claimTtlMs: 3 * 24 * 3600 * 1000 });
    }
  });

  it('accepts a header listing several v1 signatures when any one matches (rotation on Stripe side)', async () => {
    const good = sig(ENV.HOOKS_SECRET_STRIPE_NEW)
      .split(',')
      .find((p) => p.startsWith('v1='));
    const header = `t=${NOW_S},v1=${'0'.repeat(64)},${good}`;
    expect(await verifyDelivery(binding, post({ 'stripe-signature': header }, body), secrets)).toMatchObject({ ok: true });
  });

  it('refuses wrong secret, tampered body, stale and future timestamps', async () => {
    const cases = [
      post({ 'stripe-signature': sig('whsec_other') }, body),
      post({ 'stripe-signature': sig(ENV.HOOKS_SECRET_STRIPE_OLD) }, tamper(body)),
      post({ 'stripe-signature': sig(ENV.HOOKS_SECRET_STRIPE_OLD, NOW_S - 301) }, body),
      post({ 'stripe-signature': sig(ENV.HOOKS_SECRET_STRIPE_OLD, NOW_S + 301) }, body),
      post({}, body),
    ];
    const reasons = [];
    for (const c of cases) {
      const result = await verifyDelivery(binding, c, secrets);
      expect(result).toMatchObject({ ok: false, status: 401 });
      if (!result.ok) reasons.push(result.reason);
    }
    expect(reasons[2]).toMatch(/stale by 301 s/);
    expect(reasons[3]).toMatch(/301 s in the future/);
  });

  it('accepts within the tolerance edge (300 s old)', async () => {
    expect(await verifyDelivery(binding, post({ 'stripe-signature': sig(ENV.HOOKS_SECRET_STRIPE_OLD, NOW_S - 300) }, body), secrets)).toMatchObject({
      ok: true,
    });
  });
});

describe('slack', () => {
  const binding = bind({ kind: 'slack', secrets: ['env:HOOKS_SECRET_OLD_SECRET', 'env:HOOKS_SECRET_NEW_SECRET'] });
  const sig = (secret: string, ts: number, payload: string | Buffer = body) =>
    `v0=${createHmac('sha256', secret).update(`v0:${ts}:`).update(payload).digest('hex')}`;
  const headers = (secret: string, ts = NOW_S, retry?: string) => ({
    'x-slack-signature': sig(secret, ts),
    'x-slack-request-timestamp': String(ts),
    ...(retry ? { 'x-slack-retry-num': retry } : {}),
  });

  it('accepts either secret; a retry of the same delivery gets the same delivery id', async () => {
    const first = await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_OLD_SECRET), body), secrets);
    const retry = await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S, '1'), body), secrets);
    const upper = {
      ...headers(ENV.HOOKS_SECRET_OLD_SECRET),
      'x-slack-signature': headers(ENV.HOOKS_SECRET_OLD_SECRET)['x-slack-signature'].toUpperCase().replace('V0=', 'v0='),
    };
    const respelled = await verifyDelivery(binding, post(upper, body), secrets);
    expect(first).toMatchObject({ ok: true, claimTtlMs: 3600 * 1000 });
    expect(first.ok && retry.ok && respelled.ok).toBe(true);
    if (first.ok && retry.ok && respelled.ok) {
      expect(retry.deliveryId).toBe(first.deliveryId);
      expect(respelled.deliveryId).toBe(first.deliveryId);
    }
    expect(await verifyDelivery(binding, post(headers(ENV.HOOKS_SECRET_NEW_SECRET), body), secrets)).toMatchObject({ ok: true });
  });

  it('refuses wrong secret, tampered body, stale and future timestamps, missing timestamp', async () => {
    const stale = headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S - 301);
    const future = headers(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S + 400);
    const noTs = { 'x-slack-signature': sig(ENV.HOOKS_SECRET_OLD_SECRET, NOW_S) };
    for (const req of [
      post(headers(ENV.HOOKS_SECRET_WRONG_SECRET), body),
      post(headers(ENV.HOOKS_SECRET_OLD_SECRET), tamper(body)),
      post(stale, body),
      post(future, body),
      post(noTs, body),
    ]) {
      expect(await verifyDelivery(binding, req, secrets)).toMatchObject({ ok: false, status: 401 });
    }
  });
});

describe('standard-webhooks', () => {
  const binding = bind({ kind: 'standard-webhooks', secrets: ['env:HOOKS_SECRET_SW_OLD', 'env:HOOKS_SECRET_SW_NEW'], settings: { tolerance_seconds: 120 } });
  const headers = (secret: string, id = 'msg_2Lh9', at = new Date(NOW), payload = body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  });

  it('accepts the standardwebhooks library signature with either secret; webhook-id is the delivery id', async () => {
    for (const secret of [ENV.HOOKS_SECRET_SW_OLD, ENV.HOOKS_SECRET_SW_NEW]) {
      expect(await verifyDelivery(binding, post(headers(secret), body), secrets)).toEqual({
        ok: true,
        deliveryId: 'msg_2Lh9',
        claimTtlMs: 2 * 24 * 3600 * 1000,
      });
    }
  });

  it('accepts a space-separated list where only one entry matches', async () => {
    const h = headers(ENV.HOOKS_SECRET_SW_NEW);
    const other = new Webhook(`whsec_${Buffer.from('someone-else').toString('base64')}`).sign('msg_2Lh9', new Date(NOW), body);
    h['webhook-signature'] = `${other} v1a,ignored ${h['webhook-signature']}`;
    expect(await verifyDelivery(binding, post(h, body), secrets)).toMatchObject({ ok: true });
  });

  it('refuses a wrong secret, a tampered body, a changed id, stale and future timestamps', async () => {
    const wrong = headers(`whsec_${Buffer.from('wrong').toString('base64')}`);
    const changedId = { ...headers(ENV.HOOKS_SECRET_SW_OLD), 'webhook-id': 'msg_other' };
    const stale = headers(ENV.HOOKS_SECRET_SW_OLD, 'msg_2Lh9', new Date(NOW - 121_000));
    const future = headers(ENV.HOOKS_SECRET_SW_OLD, 'msg_2Lh9', new Date(NOW + 121_000));
    for (const req of [post(wrong, body), post(headers(ENV.HOOKS_SECRET_SW_OLD), tamper(body)), post(changedId, body), post(stale, body), post(future, body)]) {
      expect(await verifyDelivery(binding, req, secrets)).toMatchObject({ ok: false, status: 401 });
    }
  });
});
