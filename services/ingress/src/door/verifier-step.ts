import type { HookMetrics, Logger, VerifierBinding } from '@hookyard/core';
import type { HookStore } from '@hookyard/store';
import { UNAUTHORIZED_BODY, verifyDelivery, type SecretResolver } from '../verify';
import { ANSWERS, type VerifyStep } from './accept';
import { createTopicCache } from './topic-cache';

export interface VerifierStepDeps {
  hooks: HookStore;
  secrets: SecretResolver;
  metrics: HookMetrics;
  logger: Logger;
  /**
   * How long a topic's binding (or its absence) is reused before the store is
   * asked again (default 1000 ms). This process drops its entry at once when
   * the binding changes through its own API; other replicas within this time.
   */
  cacheMs?: number;
  now?: () => number;
}

const UNAUTHORIZED = JSON.stringify(UNAUTHORIZED_BODY);

/**
 * The door's verification: look the topic's binding up (briefly cached, so the
 * hot path does not pay a store round trip per delivery), verify the raw
 * bytes, count and log refusals (the reason goes to the log, never to the
 * sender). A binding that cannot be read or a secret that cannot be resolved
 * is a 500 that keeps nothing.
 */
export function createVerifierStep(deps: VerifierStepDeps): {
  step: VerifyStep;
  allowsGet(topic: string): Promise<boolean>;
  invalidate(topic: string): void;
} {
  const bindings = createTopicCache((topic) => deps.hooks.getVerifier(topic), deps);
  const lookup = bindings.get;

  const step: VerifyStep = async (delivery, at) => {
    const { topic } = delivery;
    let binding: VerifierBinding | null;
    try {
      binding = await lookup(topic);
    } catch (err) {
      // The store is out of reach: the same refusal as a failed keep, since nothing can be kept either.
      deps.logger.error({ err, topic }, 'verifier binding could not be read; nothing kept');
      return { ok: false, answer: ANSWERS.acceptFailed };
    }
    if (!binding) return { ok: true, deliveryId: null, claimTtlMs: 0, bound: false };
    try {
      const result = await verifyDelivery(binding, { method: delivery.method, headers: delivery.headers, rawBody: delivery.rawBody, now: at }, deps.secrets);
      if (result.ok) {
        // The sender's handshake (Slack's url_verification, GitHub's ping): answered, kept nowhere.
        if (result.reply) return { ok: false, answer: result.reply };
        return { ok: true, deliveryId: result.deliveryId, claimTtlMs: result.claimTtlMs, bound: true, kind: binding.kind };
      }
      deps.metrics.verificationFailures.inc({ topic });
      deps.logger.warn({ topic, kind: binding.kind, reason: result.reason, status: result.status }, 'delivery refused by the topic verifier');
      const headers = result.status === 405 ? { Allow: 'POST' } : undefined;
      return { ok: false, answer: { status: result.status, body: result.body ?? UNAUTHORIZED, ...(headers ? { headers } : {}) } };
    } catch (err) {
      deps.logger.error({ err, topic }, 'delivery could not be verified (secret unreadable or binding broken); nothing kept');
      return { ok: false, answer: ANSWERS.verificationError };
    }
  };

  return {
    step,
    async allowsGet(topic) {
      try {
        const binding = await lookup(topic);
        return binding?.kind === 'shared_secret' && binding.settings.allow_get === true;
      } catch {
        return false;
      }
    },
    invalidate: bindings.invalidate,
  };
}
