/**
 * Plan hints: what a run's dispatch carries so the executor can plan the run
 * (condition, arguments, approval) before it claims it, and claim and act in
 * one store step. A hint is an optimisation, never the truth: a message
 * without one (an older publisher, a sweep's re-dispatch, a payload past the
 * bound) is planned after the claim from the stored run, and the claim only
 * applies a plan made on the hook revision the store still holds.
 */

/**
 * The hint a publisher attaches to one run id and a handler receives: its
 * hook, topic, and the payload's JSON text exactly as the store keeps it.
 * Anyone who may publish on the run subject can write a hint, so it is
 * never trusted: the claim applies a plan only when the kept payload is this
 * very text (the store compares digests in the claim's step).
 */
export interface RunPlanHint {
  hook: string;
  topic: string;
  payloadJson: string;
}

/** A payload larger than this (UTF-8 bytes) travels without a hint: the executor reads it from the store. */
export const HINT_MAX_PAYLOAD_BYTES = 64 * 1024;
/** The hints of one message stop at this many bytes (a NATS message is 1 MiB at most by default). */
export const HINT_MAX_MESSAGE_BYTES = 512 * 1024;

/** The message header carrying the hints of a JetStream dispatch message (its body stays the JSON array of ids). */
export const PLAN_HEADER = 'Hookyard-Plan';

/** Bytes of `s` in UTF-8, computed only when the length alone cannot decide against `limit`. */
function fitsIn(s: string, limit: number): boolean {
  if (s.length * 3 <= limit) return true;
  if (s.length > limit) return false;
  return Buffer.byteLength(s) <= limit;
}

/**
 * The header value of the hints aligned with `ids`: a JSON array whose item i
 * is `[hook, topic, payload text]` or 0 (no hint). The text travels as a JSON
 * string, so it arrives byte for byte (the claim compares it with the kept
 * payload) and the value holds no CR or LF. Null when no id has a hint that fits.
 */
export function encodeHints(hints: ReadonlyArray<RunPlanHint | undefined>): string | null {
  let budget = HINT_MAX_MESSAGE_BYTES;
  let any = false;
  const parts = new Array<string>(hints.length);
  for (let i = 0; i < hints.length; i += 1) {
    const h = hints[i];
    if (!h || !fitsIn(h.payloadJson, Math.min(HINT_MAX_PAYLOAD_BYTES, budget))) {
      parts[i] = '0';
      continue;
    }
    const part = JSON.stringify([h.hook, h.topic, h.payloadJson]);
    budget -= part.length * 3 <= budget ? part.length : Buffer.byteLength(part);
    parts[i] = part;
    any = true;
  }
  return any ? `[${parts.join(',')}]` : null;
}

/**
 * The hints of a message carrying `count` ids, from its header value; ids
 * without a usable hint get undefined. A malformed value yields no hints
 * (the runs are planned after their claims), never an error.
 */
export function decodeHints(value: string | undefined, count: number): Array<RunPlanHint | undefined> | null {
  if (!value) return null;
  let items: unknown;
  try {
    items = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(items) || items.length !== count) return null;
  return items.map((item: unknown) => {
    if (!Array.isArray(item) || item.length !== 3) return undefined;
    const [hook, topic, payloadJson] = item as unknown[];
    return typeof hook === 'string' && typeof topic === 'string' && typeof payloadJson === 'string' ? { hook, topic, payloadJson } : undefined;
  });
}
