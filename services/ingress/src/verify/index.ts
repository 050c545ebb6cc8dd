/**
 * Webhook verifiers for the public door. Framework-neutral: bytes and headers in, a decision out.
 *
 * How the door calls it, for `POST /universal_webhook/{topic}` on a topic with a binding:
 *
 *   const secrets = createSecretResolver();            // once, at boot
 *   const result = await verifyDelivery(binding, { method, headers: req.headers, rawBody, now: clock.now() }, secrets);
 *   // throws HookyardError 'internal' (unreadable secret, broken binding) -> 500, log it, keep nothing
 *   if (!result.ok) -> res.status(result.status).json(UNAUTHORIZED_BODY); log result.reason (never send it)
 *   if (result.deliveryId) {
 *     if (!(await stores.hooks.claimDelivery(topic, result.deliveryId, result.claimTtlMs))) -> 200 {"status":"duplicate"}
 *   }
 *   ...parse and keep the runs; if keeping fails and a delivery id was claimed:
 *     await stores.hooks.releaseDelivery(topic, result.deliveryId) so the sender's retry is accepted.
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
