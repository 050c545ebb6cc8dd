import type { VerifierBinding } from '@hookyard/core';
import { createSecretResolver, validateVerifierBinding } from '../../src/verify';
import type { DeliveryRequest } from '../../src/verify';

/** Secrets the tests bind by reference; the resolver reads them from this map, not the process env. */
export const ENV = {
  HOOKS_SECRET_OLD_SECRET: 'old-secret-value',
  HOOKS_SECRET_NEW_SECRET: 'new-secret-value',
  HOOKS_SECRET_WRONG_SECRET: 'not-the-secret',
  HOOKS_SECRET_SW_OLD: `whsec_${Buffer.from('standard-old-key-0123456789').toString('base64')}`,
  HOOKS_SECRET_SW_NEW: `whsec_${Buffer.from('standard-new-key-9876543210').toString('base64')}`,
  HOOKS_SECRET_STRIPE_OLD: 'whsec_stripe_old',
  HOOKS_SECRET_STRIPE_NEW: 'whsec_stripe_new',
};

export const secrets = createSecretResolver({ env: ENV });

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
export const NOW_S = Math.floor(NOW / 1000);

/** A binding built through the real validator, so tests bind exactly what the API would keep. */
export function bind(input: Record<string, unknown>, topic = 'orders'): VerifierBinding {
  const result = validateVerifierBinding(topic, input, new Date(NOW));
  if (!result.ok) throw new Error(`test binding refused: ${result.errors.join('; ')}`);
  return result.binding;
}

export function post(headers: DeliveryRequest['headers'], body: string | Buffer, now = NOW): DeliveryRequest {
  return { method: 'POST', headers, rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), now };
}

/** The body with one byte changed. */
export function tamper(body: string): Buffer {
  const buf = Buffer.from(body, 'utf8');
  buf[buf.length - 2] = (buf[buf.length - 2] ?? 0) ^ 0x01;
  return buf;
}
