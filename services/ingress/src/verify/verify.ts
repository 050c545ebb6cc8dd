import { internal } from '@hookyard/core';
import type { VerifierBinding } from '@hookyard/core';
import type { Headers } from './crypto';
import { KIND_CHECKS, type SenderReply } from './kinds';
import type { SecretResolver } from './secrets';
import { VERIFIER_KINDS, compileSettings, replayWindowMs } from './settings';

/** The door's one 401 body: it never says which check failed. */
export const UNAUTHORIZED_BODY: { readonly error: string } = Object.freeze({ error: 'webhook verification failed' });

/** What the door hands over: the bytes exactly as read, before any parsing. */
export interface DeliveryRequest {
  method: string;
  headers: Headers;
  rawBody: Buffer;
  /** Epoch ms. */
  now: number;
}

/**
 * ok: the delivery is authentic; claim `deliveryId` (when not null) for `claimTtlMs`;
 * with `reply`, it is the sender's handshake: answer that and keep nothing.
 * not ok: answer `status` (401 with UNAUTHORIZED_BODY, 405, or 400 with `body`
 * for an authentic delivery that cannot be taken); `reason` is for logs only.
 */
export type VerifyResult =
  { ok: true; deliveryId: string | null; claimTtlMs: number; reply?: SenderReply } | { ok: false; status: 400 | 401 | 405; reason: string; body?: string };

/**
 * A binding's settings as compiled, kept per binding object: the door's topic
 * cache hands out one object per topic until it reads the store again, so a
 * delivery does not compile the same settings anew. Bindings are not changed
 * in place (a write stores a new one).
 */
const compiledByBinding = new WeakMap<VerifierBinding, ReturnType<typeof compileSettings>>();

function compiledSettings(binding: VerifierBinding): ReturnType<typeof compileSettings> {
  let compiled = compiledByBinding.get(binding);
  if (!compiled) compiledByBinding.set(binding, (compiled = compileSettings(binding.kind, binding.settings)));
  return compiled;
}

/**
 * Verifies one delivery against its topic's binding. Resolves 401/405 outcomes;
 * throws HookyardError `internal` only when a secret cannot be read or the
 * stored binding is broken (the door answers 500 and keeps nothing).
 */
export async function verifyDelivery(binding: VerifierBinding, request: DeliveryRequest, secrets: SecretResolver): Promise<VerifyResult> {
  if (!VERIFIER_KINDS.includes(binding.kind)) throw internal(`verifier binding of topic ${binding.topic} has unknown kind ${JSON.stringify(binding.kind)}`);
  const compiled = compiledSettings(binding);
  if (compiled.errors.length > 0) {
    throw internal(`verifier binding of topic ${binding.topic} is invalid: ${compiled.errors.join('; ')}`);
  }
  const method = request.method.toUpperCase();
  // Only the shared-secret header can ride on a GET: everything else signs a body.
  const getAllowed = binding.kind === 'shared_secret' && compiled.values.allow_get === true;
  if (method !== 'POST' && !((method === 'GET' || method === 'HEAD') && getAllowed)) {
    return { ok: false, status: 405, reason: `method ${method} is not accepted by a ${binding.kind} verifier` };
  }
  if (binding.secrets.length === 0) throw internal(`verifier binding of topic ${binding.topic} has no secrets`);
  const keys = await Promise.all(binding.secrets.map((ref) => secrets.resolve(ref)));
  const outcome = KIND_CHECKS[binding.kind]({
    settings: compiled.values,
    secrets: keys,
    headers: request.headers,
    rawBody: request.rawBody,
    now: request.now,
  });
  if (!outcome.ok)
    return outcome.status === 400 ? { ok: false, status: 400, reason: outcome.reason, body: outcome.body } : { ok: false, status: 401, reason: outcome.reason };
  const claimTtlMs = replayWindowMs(binding.kind, compiled.values);
  return outcome.reply
    ? { ok: true, deliveryId: outcome.deliveryId, claimTtlMs, reply: outcome.reply }
    : { ok: true, deliveryId: outcome.deliveryId, claimTtlMs };
}
