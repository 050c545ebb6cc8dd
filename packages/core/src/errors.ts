/**
 * Every failure in Hookyard has a kind. The kind decides the HTTP status (in
 * `httpStatusOf`, the one place that maps it) and whether a retry can help.
 */
export const ERROR_KINDS = [
  'bad_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'cancelled',
  'unavailable',
  'timeout',
  'internal',
  'outcome_unknown',
  'operator_failed',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * Kinds a later attempt may get past: the cause can pass (a store out of reach, a slow peer).
 * Not `outcome_unknown` (the tool may have acted: a second call could act twice; an operator
 * checks and resolves it) nor `operator_failed` (the operator's verdict on such a call).
 */
const RETRYABLE: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['unavailable', 'timeout', 'internal']);

const HTTP_STATUS: Record<ErrorKind, number> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  cancelled: 409,
  unavailable: 503,
  timeout: 504,
  internal: 500,
  // A tool call that may have acted with no answer kept: the upstream's outcome is what is missing.
  outcome_unknown: 502,
  // An operator checked a tool call whose outcome was unknown and recorded that it failed.
  operator_failed: 502,
};

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}

/** True when a retry of the same work can succeed where this attempt failed. */
export function isRetryableKind(kind: ErrorKind): boolean {
  return RETRYABLE.has(kind);
}

/** The HTTP status a management or door response uses for an error of this kind. */
export function httpStatusOf(kind: ErrorKind): number {
  return HTTP_STATUS[kind];
}

export interface ErrorInfo {
  kind: ErrorKind;
  message: string;
}

export interface HookyardErrorOptions {
  cause?: unknown;
  details?: readonly string[];
  /** The request provably never left: no byte of it was sent (see `HookyardError.notSent`). */
  notSent?: boolean;
  /** The write was sent and no answer came: it may or may not have taken effect. */
  outcomeUnknown?: boolean;
}

/**
 * The one error class of Hookyard. `details` carries extra lines (e.g. one per
 * validation miss). Two facts about what the failed call did travel with the
 * error, for the caller to decide on (both false unless the raiser knows):
 * `notSent` (nothing of the request left: the callee cannot have acted) and
 * `outcomeUnknown` (the request left and its outcome is not known).
 */
export class HookyardError extends Error {
  readonly kind: ErrorKind;
  readonly details: readonly string[];
  readonly notSent: boolean;
  readonly outcomeUnknown: boolean;

  constructor(kind: ErrorKind, message: string, options: HookyardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HookyardError';
    this.kind = kind;
    this.details = options.details ?? [];
    this.notSent = options.notSent ?? false;
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }

  get retryable(): boolean {
    return isRetryableKind(this.kind);
  }

  toInfo(): ErrorInfo {
    return { kind: this.kind, message: this.message };
  }
}

export const badInput = (message: string, details?: readonly string[]) => new HookyardError('bad_input', message, { details });
export const notFound = (message: string) => new HookyardError('not_found', message);
export const conflict = (message: string) => new HookyardError('conflict', message);
export const unavailable = (message: string, cause?: unknown) => new HookyardError('unavailable', message, { cause });
export const timeoutError = (message: string) => new HookyardError('timeout', message);
export const internal = (message: string, cause?: unknown) => new HookyardError('internal', message, { cause });
export const unauthorized = (message: string) => new HookyardError('unauthorized', message);
export const forbidden = (message: string) => new HookyardError('forbidden', message);
export const cancelled = (message: string) => new HookyardError('cancelled', message);

/**
 * Socket error codes that can only arise before any byte of a request was
 * written: the connection was never made (refused, no route, DNS gave no
 * address), it timed out while connecting, or its TLS handshake failed (the
 * request is written only after the handshake). An error with one of these
 * codes means the callee cannot have acted on the request. ECONNRESET, EPIPE
 * and ETIMEDOUT are not here: they also happen after bytes were sent.
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
]);

/** The same error, marked as one whose request provably never left (`notSent`). */
export function markNotSent(e: HookyardError): HookyardError {
  if (e.notSent) return e;
  const copy = new HookyardError(e.kind, e.message, { cause: e.cause, details: e.details, notSent: true });
  copy.stack = e.stack;
  return copy;
}

/** The same error with `notSent` cleared (an earlier try of the same call may have left). */
export function clearNotSent(e: HookyardError): HookyardError {
  if (!e.notSent) return e;
  const copy = new HookyardError(e.kind, e.message, { cause: e.cause, details: e.details, outcomeUnknown: e.outcomeUnknown });
  copy.stack = e.stack;
  return copy;
}

const NODE_NET_CODES: Record<string, ErrorKind> = {
  ECONNREFUSED: 'unavailable',
  ECONNRESET: 'unavailable',
  EPIPE: 'unavailable',
  ENOTFOUND: 'unavailable',
  EAI_AGAIN: 'unavailable',
  EHOSTUNREACH: 'unavailable',
  ENETUNREACH: 'unavailable',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ABORT_ERR: 'cancelled',
};

/**
 * Turns anything thrown into a HookyardError. Errors that are already ours keep
 * their kind; network errors map by their code; everything else is `internal`.
 */
export function toHookyardError(err: unknown): HookyardError {
  if (err instanceof HookyardError) return err;
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const kindFromCode = typeof code === 'string' ? (NODE_NET_CODES[code] ?? (NOT_SENT_CODES.has(code) ? 'unavailable' : undefined)) : undefined;
    if (err.name === 'TimeoutError') return new HookyardError('timeout', err.message, { cause: err });
    if (err.name === 'AbortError') return new HookyardError('cancelled', err.message, { cause: err });
    const cause = (err as { cause?: unknown }).cause;
    if (!kindFromCode && cause instanceof Error) {
      const inner = toHookyardError(cause);
      // The wrapper (fetch's "fetch failed") keeps what its cause proves: a connection never made was not sent.
      if (inner.kind !== 'internal') return new HookyardError(inner.kind, `${err.message}: ${inner.message}`, { cause: err, notSent: inner.notSent });
    }
    const notSent = typeof code === 'string' && NOT_SENT_CODES.has(code);
    return new HookyardError(kindFromCode ?? 'internal', err.message, { cause: err, notSent });
  }
  return new HookyardError('internal', typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err)));
}

/** Quote at most `max` characters of a body for an error message ("quoting the body"). */
export function quote(body: string, max = 200): string {
  const s = body.length > max ? `${body.slice(0, max)}…(${body.length - max} more chars)` : body;
  return JSON.stringify(s);
}
