import { isSecretHeaderName } from './http-exchange';

/**
 * The request headers a delivery keeps with its runs (the event view's
 * "headers kept"): what says where an event came from and what it is, never
 * a credential. Anything else a sender sends (authorization, cookies,
 * signatures, tokens, API keys, and every header not named here) is dropped
 * at the door. Names are lower case.
 */
export const KEPT_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'content-length',
  'content-encoding',
  'user-agent',
  'x-request-id',
  'x-correlation-id',
  'x-github-event',
  'x-github-delivery',
  'x-github-hook-id',
  'x-gitlab-event',
  'x-shopify-topic',
  'x-shopify-webhook-id',
  'ce-id',
  'ce-source',
  'ce-type',
  'ce-specversion',
]);
/** At most this many headers are kept per delivery. */
export const KEPT_HEADERS_MAX = 16;
/** A kept header's value is cut to this many characters. */
export const KEPT_HEADER_MAX_CHARS = 256;

const ALLOWED = new Set(KEPT_HEADERS);

/**
 * The headers of a delivery as kept: only the allowlisted names (KEPT_HEADERS),
 * in the allowlist's order, each value cut to KEPT_HEADER_MAX_CHARS (repeated
 * values joined with ", "), at most KEPT_HEADERS_MAX of them. A name that
 * reads like a secret is never kept, whatever the list says.
 */
export function keptHeaders(headers: Readonly<Record<string, string | readonly string[] | undefined>>): Record<string, string> {
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const k = name.toLowerCase();
    if (!ALLOWED.has(k) || isSecretHeaderName(k) || value === undefined) continue;
    const text = typeof value === 'string' ? value : value.join(', ');
    given.set(k, given.has(k) ? `${given.get(k)}, ${text}` : text);
  }
  const kept: Record<string, string> = {};
  let count = 0;
  for (const k of KEPT_HEADERS) {
    const v = given.get(k);
    if (v === undefined || count >= KEPT_HEADERS_MAX) continue;
    kept[k] = v.length > KEPT_HEADER_MAX_CHARS ? v.slice(0, KEPT_HEADER_MAX_CHARS) : v;
    count += 1;
  }
  return kept;
}
