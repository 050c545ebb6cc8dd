import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type Headers = Record<string, string | string[] | undefined>;

/**
 * Constant-time equality of two byte strings of any length: both are hashed to
 * fixed-length digests first, so neither the content nor the length of the
 * expected value leaks through timing.
 */
export function safeEqual(a: Buffer, b: Buffer): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/**
 * True when any candidate equals any expected value. Every pair is compared
 * (no early exit), so which secret matched does not show in the timing.
 */
export function anyEqual(candidates: readonly Buffer[], expected: readonly Buffer[]): boolean {
  let ok = false;
  for (const c of candidates) for (const e of expected) ok = safeEqual(c, e) || ok;
  return ok;
}

/**
 * True when any candidate equals any expected digest, for expected values
 * whose length is public (HMAC outputs: the algorithm fixes it): a candidate
 * of another length is unequal at once, the rest are compared in constant
 * time, with no hashing first. Every pair is compared (no early exit), so
 * which secret matched does not show in the timing. Secrets of unknown length
 * (a shared secret) go through anyEqual.
 */
export function anyDigestEqual(candidates: readonly Buffer[], expected: readonly Buffer[]): boolean {
  let ok = false;
  for (const c of candidates) for (const e of expected) ok = (c.length === e.length && timingSafeEqual(c, e)) || ok;
  return ok;
}

/** HMAC over the parts in order; parts are fed as bytes, so the raw body is never re-encoded. */
export function hmac(algorithm: string, key: Buffer, parts: ReadonlyArray<string | Buffer>): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/**
 * Strict decoding: Buffer.from is lenient (it stops at the first bad character),
 * which would let differently-spelled signatures pass as the same one.
 */
export function decodeSignature(text: string, encoding: 'hex' | 'base64'): Buffer | null {
  if (text.length === 0 || text.length > 1024) return null;
  if (encoding === 'hex') return HEX.test(text) ? Buffer.from(text, 'hex') : null;
  return BASE64.test(text) ? Buffer.from(text, 'base64') : null;
}

/** Case-insensitive header lookup. A header sent twice is ambiguous and counts as missing. */
export function header(headers: Headers, name: string): string | undefined {
  const lower = name.toLowerCase();
  let value = headers[lower];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === lower) {
        value = headers[key];
        break;
      }
    }
  }
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
  return value;
}

/**
 * Checks a signed Unix timestamp (seconds) against now (ms), both ways: a
 * timestamp far in the future is as suspect as a stale one.
 */
export function timestampMiss(raw: string | undefined, nowMs: number, toleranceSeconds: number): string | undefined {
  if (raw === undefined) return 'missing timestamp';
  if (!/^\d{1,12}$/.test(raw)) return `timestamp ${JSON.stringify(raw.slice(0, 40))} is not a whole number of seconds`;
  const skewSeconds = Number(raw) - nowMs / 1000;
  if (skewSeconds < -toleranceSeconds) return `timestamp is stale by ${Math.round(-skewSeconds)} s (tolerance ${toleranceSeconds} s)`;
  if (skewSeconds > toleranceSeconds) return `timestamp is ${Math.round(skewSeconds)} s in the future (tolerance ${toleranceSeconds} s)`;
  return undefined;
}
