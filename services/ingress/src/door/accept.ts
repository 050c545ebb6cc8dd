import type { IncomingHttpHeaders } from 'node:http';
import { HOOKS_RUN_FAILED_TOPIC, UNROUTED_TOPIC, type Clock, type HookMetrics, type Logger } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import type { KeptRun, Stores } from '@hookyard/store';
import { parsePayload } from './payload';

/** A delivery as the door read it: the raw bytes, before anything parsed them. */
export interface Delivery {
  topic: string;
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Raw query string without `?`. */
  query: string;
}

/** What the door answers. `body` is the JSON text. */
export interface DoorAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * The verification step of a topic (wired from the verifier module): not
 * bound -> `{ok: true, deliveryId: null}`. A delivery id comes with how long
 * its claim is kept.
 */
export type VerifyStep = (
  delivery: Delivery,
  now: number,
) => Promise<{ ok: true; deliveryId: string | null; claimTtlMs: number; bound: boolean } | { ok: false; answer: DoorAnswer }>;

export interface AcceptDeps {
  stores: Stores;
  bus: RunBus;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  dispatchGraceMs: number;
  bodyMaxBytes: number;
  verify?: VerifyStep;
  /** Counts one kept run (default: metrics.accepted with its labels); see createAcceptedCounter. */
  countAccepted?: (topic: string, hook: string) => void;
}

export const ANSWERS = {
  acceptFailed: { status: 500, body: '{"error":"accept failed"}' },
  verificationError: { status: 500, body: '{"error":"webhook verification error"}' },
  duplicate: { status: 200, body: '{"status":"duplicate"}' },
  reserved: { status: 403, body: `{"error":"topic ${HOOKS_RUN_FAILED_TOPIC} is reserved for platform events; bind a verifier to accept it here"}` },
} satisfies Record<string, DoorAnswer>;

/**
 * The door's framework-neutral core, after the body was read within its caps:
 * verify the raw bytes -> claim the delivery id -> parse -> keep the runs
 * (one atomic write) -> answer. Publishing happens after the answer (see
 * `createPublishBatcher`), so a slow or failing bus never delays or fails an accepted
 * event: the scheduler's sweep dispatches whatever was not published.
 */
export async function acceptDelivery(deps: AcceptDeps, delivery: Delivery): Promise<{ answer: DoorAnswer; kept: KeptRun[] }> {
  const now = deps.clock.now();
  let deliveryId: string | null = null;
  // Only the platform fires its own events, unless an operator bound a verifier to the topic.
  let bound = false;
  if (deps.verify) {
    const verdict = await deps.verify(delivery, now);
    if (!verdict.ok) return { answer: verdict.answer, kept: [] };
    bound = verdict.bound;
    deliveryId = verdict.deliveryId;
    if (deliveryId !== null) {
      let first: boolean;
      try {
        first = await deps.stores.hooks.claimDelivery(delivery.topic, deliveryId, verdict.claimTtlMs);
      } catch (err) {
        deps.logger.error({ err, topic: delivery.topic, deliveryId }, 'delivery id could not be claimed; nothing kept');
        return { answer: ANSWERS.verificationError, kept: [] };
      }
      if (!first) return { answer: ANSWERS.duplicate, kept: [] };
    }
  }

  if (delivery.topic === HOOKS_RUN_FAILED_TOPIC && !bound) return { answer: ANSWERS.reserved, kept: [] };

  const parsed = await parsePayload({
    contentType: delivery.headers['content-type'],
    rawBody: delivery.rawBody,
    query: delivery.query,
    maxFieldBytes: deps.bodyMaxBytes,
    keepJsonText: true,
  });
  if (!parsed.ok) {
    // A refused body keeps nothing; give the claim back so a corrected resend is not "duplicate".
    if (deliveryId !== null) await release(deps, delivery.topic, deliveryId);
    return { answer: { status: parsed.status, body: JSON.stringify(parsed.body) }, kept: [] };
  }

  let kept: KeptRun[];
  try {
    const json = parsed.json;
    kept = await deps.stores.runs.keepEvent(
      json === undefined
        ? { topic: delivery.topic, payload: parsed.payload, deliveryId, now, dispatchGraceMs: deps.dispatchGraceMs }
        : {
            topic: delivery.topic,
            // Read only by a store that does not keep the JSON text (the text parses to the same value).
            get payload() {
              return parsed.payload;
            },
            payloadJson: json,
            deliveryId,
            now,
            dispatchGraceMs: deps.dispatchGraceMs,
          },
    );
  } catch (err) {
    deps.logger.error({ err, topic: delivery.topic, deliveryId }, 'door could not keep the event; nothing kept');
    if (deliveryId === null) return { answer: ANSWERS.acceptFailed, kept: [] };
    await release(deps, delivery.topic, deliveryId);
    return { answer: ANSWERS.verificationError, kept: [] };
  }

  if (kept.length === 0) deps.metrics.accepted.inc({ topic: UNROUTED_TOPIC, hook: '' });
  else for (const run of kept) (deps.countAccepted ?? ((topic, hook) => deps.metrics.accepted.inc({ topic, hook })))(delivery.topic, run.hook);
  return { answer: { status: 200, body: `{"status":"accepted","runs":${kept.length}}` }, kept };
}

/**
 * Counts a kept run under accepted{topic,hook}, keeping the label children
 * (bounded by registered hooks) so the hot path does not hash labels per run.
 */
export function createAcceptedCounter(metrics: HookMetrics): (topic: string, hook: string) => void {
  const byKey = new Map<string, { inc(): void }>();
  return (topic, hook) => {
    const key = `${topic}\u0000${hook}`;
    let child = byKey.get(key);
    if (!child) {
      if (byKey.size >= 10_000) byKey.clear();
      byKey.set(key, (child = metrics.accepted.labels(topic, hook)));
    }
    child.inc();
  };
}

async function release(deps: AcceptDeps, topic: string, deliveryId: string): Promise<void> {
  try {
    await deps.stores.hooks.releaseDelivery(topic, deliveryId);
  } catch (err) {
    // The sender's retry will be answered "duplicate" until the claim's TTL passes; say so loudly.
    deps.logger.error({ err, topic, deliveryId }, 'could not release the delivery claim after a refused keep');
  }
}
