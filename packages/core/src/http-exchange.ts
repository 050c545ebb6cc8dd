/**
 * What an HTTP-based tool's reply looked like, kept with the attempt's history
 * line so an operator can see why a call failed (or what a success answered):
 * the status, the reply headers with secrets redacted, and a bounded excerpt of
 * the body. Every size is bounded here, in one place.
 */
export interface HttpExchange {
  /** The reply's HTTP status. */
  status: number;
  /** Reply headers by lower-case name (at most HTTP_EXCHANGE_MAX_HEADERS); secret-like ones read `[redacted]`. */
  headers: Record<string, string>;
  /** The start of the reply body as UTF-8 (at most HTTP_EXCHANGE_BODY_BYTES bytes). */
  body: string;
  /** The whole body's size in bytes as read. */
  body_bytes: number;
  /** True when `body` is only the start of the reply body. */
  body_truncated: boolean;
}

/** The body excerpt kept per attempt. */
export const HTTP_EXCHANGE_BODY_BYTES = 2048;
/** Headers kept per attempt (the first in name order). */
export const HTTP_EXCHANGE_MAX_HEADERS = 24;
/** Longest header value kept (longer ones are cut, with `…`). */
export const HTTP_EXCHANGE_HEADER_CHARS = 256;

export const REDACTED = '[redacted]';

/**
 * Header names whose values are never kept: credentials and session cookies,
 * and anything named like a token, key, secret, password or signature.
 */
const SECRET_HEADER = /authorization|cookie|token|secret|passw|key|signature|session|credential|auth/i;

/** Hop-by-hop headers say nothing about the reply: not kept. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** Cuts UTF-8 text to at most `bytes` bytes, never inside a character. */
export function cutUtf8(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.byteLength <= bytes) return text;
  return buf
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/**
 * The exchange as kept: headers lower-cased, sorted, capped and redacted
 * (hop-by-hop ones dropped);
 * the body cut to its excerpt. Header input may be a `Headers` or a plain
 * record; `bodyBytes` defaults to the body's own size.
 */
export function httpExchange(status: number, headers: Headers | Record<string, string>, body: string, bodyBytes?: number): HttpExchange {
  const entries: [string, string][] = [];
  const add = (k: string, v: string) => entries.push([k.toLowerCase(), v]);
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') (headers as Headers).forEach((v, k) => add(k, v));
  else for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') add(k, v);
  // A repeated header (set-cookie in some runtimes) is one line; a secret-like name is redacted whatever it holds.
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  const cap = (v: string) => (v.length > HTTP_EXCHANGE_HEADER_CHARS ? `${v.slice(0, HTTP_EXCHANGE_HEADER_CHARS)}…` : v);
  for (const [k, v] of entries) {
    if (HOP_BY_HOP.has(k)) continue;
    if (!(k in kept) && Object.keys(kept).length >= HTTP_EXCHANGE_MAX_HEADERS) continue;
    kept[k] = isSecretHeaderName(k) ? REDACTED : k in kept ? cap(`${kept[k]}, ${v}`) : cap(v);
  }
  const total = bodyBytes ?? Buffer.byteLength(body, 'utf8');
  const excerpt = cutUtf8(body, HTTP_EXCHANGE_BODY_BYTES);
  return {
    status: Number.isInteger(status) ? status : 0,
    headers: { ...kept },
    body: excerpt,
    body_bytes: total,
    body_truncated: excerpt.length < body.length || total > Buffer.byteLength(excerpt, 'utf8'),
  };
}

/** True for a value shaped like a kept exchange (as read back from a store). */
export function isHttpExchange(v: unknown): v is HttpExchange {
  if (!v || typeof v !== 'object') return false;
  const x = v as Record<string, unknown>;
  return (
    typeof x.status === 'number' &&
    typeof x.body === 'string' &&
    typeof x.body_bytes === 'number' &&
    typeof x.body_truncated === 'boolean' &&
    !!x.headers &&
    typeof x.headers === 'object'
  );
}
