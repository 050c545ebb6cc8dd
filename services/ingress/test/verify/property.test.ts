import fc from 'fast-check';
import { verifyDelivery } from '../../src/verify';
import type { VerifierBinding } from '@hookyard/core';
import { NOW, NOW_S, bind, secrets } from './support';

const bindings: VerifierBinding[] = [
  bind({ kind: 'shared_secret', secret: 'env:HOOKS_SECRET_OLD_SECRET', settings: { allow_get: true } }),
  bind({ kind: 'hmac', secret: 'env:HOOKS_SECRET_OLD_SECRET', settings: { header: 'x-sig', encoding: 'base64', timestamp_header: 'x-ts' } }),
  bind({ kind: 'github', secrets: ['env:HOOKS_SECRET_OLD_SECRET', 'env:HOOKS_SECRET_NEW_SECRET'] }),
  bind({ kind: 'stripe', secret: 'env:HOOKS_SECRET_STRIPE_OLD' }),
  bind({ kind: 'slack', secret: 'env:HOOKS_SECRET_OLD_SECRET' }),
  bind({ kind: 'standard-webhooks', secrets: ['env:HOOKS_SECRET_SW_OLD', 'env:HOOKS_SECRET_SW_NEW'] }),
];

/** Header values shaped like the real ones (right prefixes, fresh timestamps), with random content. */
const hex = fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => Buffer.from(b).toString('hex'));
const b64 = fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64'));
const value = fc.oneof(
  fc.string({ maxLength: 80 }),
  hex,
  b64,
  hex.map((h) => `sha256=${h}`),
  hex.map((h) => `v0=${h}`),
  b64.map((s) => `v1,${s}`),
);
const ts = fc.integer({ min: -400, max: 400 }).map((d) => String(NOW_S + d));
const headers = fc.record(
  {
    'x-webhook-secret': value,
    'x-sig': value,
    'x-ts': fc.oneof(ts, fc.string({ maxLength: 20 })),
    'x-hub-signature-256': value,
    'stripe-signature': fc.tuple(ts, hex, hex).map(([t, a, b]) => `t=${t},v1=${a},v0=${b}`),
    'x-slack-signature': value,
    'x-slack-request-timestamp': ts,
    'webhook-id': fc.string({ maxLength: 40 }),
    'webhook-timestamp': ts,
    'webhook-signature': fc.array(value, { maxLength: 3 }).map((l) => l.join(' ')),
    'X-Random': fc.string(),
  },
  { requiredKeys: [] },
);

describe('random deliveries', () => {
  it('never verify and never throw, for any kind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bindings),
        headers,
        fc.uint8Array({ maxLength: 512 }),
        fc.constantFrom('POST', 'GET', 'PUT'),
        async (binding, h, body, method) => {
          const result = await verifyDelivery(binding, { method, headers: h, rawBody: Buffer.from(body), now: NOW }, secrets);
          expect(result.ok).toBe(false);
          if (!result.ok) expect([401, 405]).toContain(result.status);
        },
      ),
      { numRuns: 600 },
    );
  });
});
