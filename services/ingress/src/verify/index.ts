/**
 * Webhook verifiers for the public door. Framework-neutral: bytes and headers in, a decision out.
 *
 * How the door calls it, for `POST /universal_webhook/{topic}` on a topic with a binding:
 *
 *   const secrets = createSecretResolver();            // once, at boot
 *   const result = await verifyDelivery(binding, { method, headers: req.headers, rawBody, now: clock.now() }, secrets);
 *   // throws HookyardError 'internal' (unreadable secret, broken binding) -> 500, log it, keep nothing
 *   if (!result.ok) -> res.status(result.status).json(UNAUTHORIZED_BODY); log result.reason (never send it)
 *   ...parse, then keep the runs and claim the delivery id in one atomic write:
 *   if (result.deliveryId) {
 *     const kept = await stores.runs.keepDelivery(input, { id: result.deliveryId, ttlMs: result.claimTtlMs });
 *     if (kept.status === 'duplicate') -> 200 {"status":"duplicate"}
 *   }
 *   a keep that fails claims nothing, so the sender's retry is accepted.
 *
 * Management: `PUT /api/hooks/topics/{topic}/verifier` runs validateVerifierBinding(topic, body, now)
 * (400 with `errors`, one line each; keep the old created_at when replacing); GET shows redactBinding(binding).
 */
export { validateVerifierBinding, redactBinding, secretRefViolation, MAX_SECRETS } from './binding';
export { createSecretResolver } from './secrets';
export type { SecretResolver, SecretResolverOptions } from './secrets';
export { verifyDelivery, UNAUTHORIZED_BODY } from './verify';
export type { DeliveryRequest, VerifyResult } from './verify';
export { VERIFIER_KINDS, KIND_FIELDS, DEFAULT_TOLERANCE_SECONDS } from './settings';
export type { VerifierKind } from './settings';
