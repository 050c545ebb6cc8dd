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
export const HINT_MAX_PAYLOAD_BYTES = 32 * 1024;
/**
 * The hints of one message stop at this many bytes of header value: NATS
 * refuses a message whose headers pass 64 KiB (the traceparent and the
 * header's framing share that limit).
 */
export const HINT_MAX_MESSAGE_BYTES = 60 * 1024;

/** The message header carrying the hints of a JetStream dispatch message (its body stays the JSON array of ids). */
export const PLAN_HEADER = 'Hookyard-Plan';

/** UTF-8 bytes of `s`, computed only when its length alone cannot tell that it fits in `limit`. */
function fitsIn(s: string, limit: number): boolean {
  if (s.length * 3 <= limit) return true;
  if (s.length > limit) return false;
  return Buffer.byteLength(s) <= limit;
}

function bytesOf(s: string): number {
  return Buffer.byteLength(s);
}

/**
 * The header value of the hints aligned with `ids`: a JSON array
 * `[payloads, items]`, where `payloads` holds each distinct payload text once
 * (the runs of one event share theirs) and item i is `[hook, topic, index
 * into payloads]` or 0 (no hint). A text travels as a JSON string, so it
 * arrives byte for byte (the claim compares it with the kept payload) and the
 * value holds no CR or LF. Ids past the budget travel bare. Null when no id
 * has a hint that fits.
 */
export function encodeHints(hints: ReadonlyArray<RunPlanHint | undefined>): string | null {
  let budget = HINT_MAX_MESSAGE_BYTES - 16;
  const payloads: string[] = [];
  const indexOf = new Map<string, number>();
  const items = new Array<string>(hints.length);
  let any = false;
  for (let i = 0; i < hints.length; i += 1) {
    const h = hints[i];
    items[i] = '0';
    if (!h) continue;
    let index = indexOf.get(h.payloadJson);
    let cost = 0;
    let text = '';
    if (index === undefined) {
      if (!fitsIn(h.payloadJson, HINT_MAX_PAYLOAD_BYTES)) continue;
      text = JSON.stringify(h.payloadJson);
      cost = bytesOf(text) + 1;
    }
    const item = `[${JSON.stringify(h.hook)},${JSON.stringify(h.topic)},${index ?? payloads.length}]`;
    cost += bytesOf(item) + 1;
    if (cost > budget) continue;
    budget -= cost;
    if (index === undefined) {
      index = payloads.length;
      indexOf.set(h.payloadJson, index);
      payloads.push(text);
    }
    items[i] = item;
    any = true;
  }
  return any ? `[[${payloads.join(',')}],[${items.join(',')}]]` : null;
}

/**
 * The hints of a message carrying `count` ids, from its header value; ids
 * without a usable hint get undefined. A malformed value yields no hints
 * (the runs are planned after their claims), never an error.
 */
export function decodeHints(value: string | undefined, count: number): Array<RunPlanHint | undefined> | null {
  if (!value) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [payloads, items] = parsed as unknown[];
  if (!Array.isArray(payloads) || !Array.isArray(items) || items.length !== count) return null;
  return items.map((item: unknown) => {
    if (!Array.isArray(item) || item.length !== 3) return undefined;
    const [hook, topic, index] = item as unknown[];
    const payloadJson: unknown = typeof index === 'number' ? payloads[index] : undefined;
    return typeof hook === 'string' && typeof topic === 'string' && typeof payloadJson === 'string' ? { hook, topic, payloadJson } : undefined;
  });
}
