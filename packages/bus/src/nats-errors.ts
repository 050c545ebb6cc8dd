import { HookyardError, toHookyardError } from '@hookyard/core';

/** NATS client codes that mean "the server is not there (now)": a later try may pass. */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DRAINING',
  'CONNECTION_REFUSED',
  'DISCONNECT',
  // No responders: JetStream is not enabled, or the stream is gone.
  '503',
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set(['TIMEOUT', 'CONNECTION_TIMEOUT']);

/**
 * The one place a NATS failure becomes a HookyardError: connection refused or
 * closed is `unavailable`, a timeout is `timeout`, anything else `internal`.
 * `doing` says what was attempted ("publish run ids to 'hooks.runs.ready.ids'").
 */
export function toBusError(err: unknown, doing: string): HookyardError {
  if (err instanceof HookyardError) return err;
  const code = typeof (err as { code?: unknown } | null)?.code === 'string' ? (err as { code: string }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  let text = `${doing}: ${message}${code ? ` (code ${JSON.stringify(code)})` : ''}`;
  const inbox = code === 'PERMISSIONS_VIOLATION' ? /Subscription to "([^".]+)\./.exec(message) : null;
  if (inbox) {
    // A server config that allows only `_INBOX.>` (before roles had inboxes of their own) ends up here.
    text +=
      `; this role's replies arrive under the inbox prefix ${JSON.stringify(inbox[1])} (HOOKS_NATS_INBOX_PREFIX, default _INBOX_<role>):` +
      ` allow its NATS user to subscribe to "${inbox[1]}.>", or set HOOKS_NATS_INBOX_PREFIX to a prefix it may subscribe to`;
  }
  if (code && UNAVAILABLE_CODES.has(code)) return new HookyardError('unavailable', text, { cause: err });
  if (code && TIMEOUT_CODES.has(code)) return new HookyardError('timeout', text, { cause: err });
  // Node socket errors (ECONNREFUSED, ...) keep the kind core gives them.
  const kind = toHookyardError(err).kind;
  return new HookyardError(kind === 'unavailable' || kind === 'timeout' ? kind : 'internal', text, { cause: err });
}

/** True when a JetStream API error says the stream or consumer does not exist. */
export function isNotFound(err: unknown): boolean {
  const api = (err as { api_error?: { code?: number; err_code?: number } } | null)?.api_error;
  // 10059 stream not found, 10014 consumer not found.
  return api?.err_code === 10059 || api?.err_code === 10014 || api?.code === 404;
}

/** True when a create raced another replica's create of the same stream or consumer. */
export function isAlreadyExists(err: unknown): boolean {
  const api = (err as { api_error?: { err_code?: number } } | null)?.api_error;
  // 10058 stream name in use, 10013 consumer name in use, 10148 consumer already exists.
  return api?.err_code === 10058 || api?.err_code === 10013 || api?.err_code === 10148;
}

/** Rejects with a `timeout` error when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, doing: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookyardError('timeout', `${doing}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
