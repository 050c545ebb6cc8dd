import {
  ERROR_KINDS,
  FINGERPRINT_PATTERN,
  RUN_STATUSES,
  agentHookName,
  agentOfHook,
  badInput,
  isErrorKind,
  isRetryableKind,
  isValidName,
  parseTraceparent,
  type Run,
  type RunStatus,
} from '@hookyard/core';
import type { RunFilter } from '@hookyard/store';
import { listQueryReader } from './list-query';
import { SEARCH_EXPR_MAX_LENGTH, SEARCH_SCAN_MAX } from './run-search';

/**
 * A run on the wire: every core Run field (payload included, in lists too, so
 * a failed run is explainable from one page: status, attempts, error, acted,
 * acted_ids, claim_intent, result, input, history, timestamps). The lease shows
 * its owner, until (ISO) and fencing token. The error says whether its kind
 * is one a later attempt can get past (`retryable`, the kind's own rule). A
 * history line that ended an HTTP tool's attempt carries its reply (`http`).
 * A traced run's history entries each name its trace id: every attempt of
 * the run joins that one trace.
 */
export function runToWire(run: Run): Record<string, unknown> {
  const lease = run.lease ? { owner: run.lease.owner, until: new Date(run.lease.until).toISOString(), token: run.lease.token } : null;
  // An agent's call names its agent (its hook slot is `agent:<name>`); a hook's run: null.
  const agent = run.door === 'agent' ? agentOfHook(run.hook) : null;
  const error = run.error ? { ...run.error, retryable: isErrorKind(run.error.kind) && isRetryableKind(run.error.kind) } : null;
  const traceId = parseTraceparent(run.traceparent)?.traceId;
  // The event every run of one delivery shares: the first 24 chars of its id (the door's `event_id`).
  const eventId = run.id.slice(0, 24);
  if (!traceId) return { ...run, event_id: eventId, agent, error, lease };
  return { ...run, event_id: eventId, agent, error, lease, history: run.history.map((h) => ({ ...h, trace_id: traceId })) };
}

export const RUN_LIST_DEFAULT_LIMIT = 50;
export const RUN_LIST_MAX_LIMIT = 500;
const QUERY_KEYS = new Set(['status', 'hook', 'agent', 'topic', 'delivery_id', 'since', 'until', 'kind', 'fingerprint', 'limit', 'cursor', 'where', 'scan']);

export interface RunListQuery {
  filter: RunFilter;
  limit: number;
  cursor: string | null;
  /** A jq filter over each run's searchInput (see run-search.ts); absent: no search. */
  where?: string;
  /** With `where`: the most runs this request reads (1 to SEARCH_SCAN_MAX). */
  scan: number;
}

/** Reads `GET /api/hook-runs` query parameters; every bad value is one line of a 400. */
export function parseRunListQuery(query: Record<string, unknown>): RunListQuery {
  const { one, limit: readLimit, errors } = listQueryReader(query, QUERY_KEYS);

  const filter: RunFilter = {};
  const status = one('status');
  if (status !== undefined) {
    if ((RUN_STATUSES as readonly string[]).includes(status)) filter.status = status as RunStatus;
    else errors.push(`status must be one of ${RUN_STATUSES.join('|')}, got ${JSON.stringify(status)}`);
  }
  for (const key of ['hook', 'topic'] as const) {
    const v = one(key);
    if (v === undefined) continue;
    if (isValidName(v)) filter[key] = v;
    else errors.push(`${key} must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(v)}`);
  }
  const agent = one('agent');
  if (agent !== undefined) {
    if (!isValidName(agent)) errors.push(`agent must match ^[a-z0-9][a-z0-9_-]*$, got ${JSON.stringify(agent)}`);
    else if (filter.hook !== undefined) errors.push('give hook or agent, not both: an agent call is not a hook run');
    // An agent's runs are indexed under their hook slot, agent:<name>.
    else filter.hook = agentHookName(agent);
  }
  const deliveryId = one('delivery_id');
  if (deliveryId !== undefined) {
    if (deliveryId.length >= 1 && deliveryId.length <= 512) filter.deliveryId = deliveryId;
    else errors.push(`delivery_id must be 1 to 512 characters, got ${deliveryId.length}`);
  }
  for (const key of ['since', 'until'] as const) {
    const v = one(key);
    if (v === undefined) continue;
    const ms = parseInstant(v);
    if (ms === null) errors.push(`${key} must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(v)}`);
    else filter[key] = ms;
  }
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    errors.push(`since must not be after until, got since=${new Date(filter.since).toISOString()} until=${new Date(filter.until).toISOString()}`);
  }
  readErrorFilter(one, errors, filter);
  const limit = readLimit(RUN_LIST_DEFAULT_LIMIT, RUN_LIST_MAX_LIMIT);
  const cursor = one('cursor') ?? null;
  if (cursor !== null && (cursor === '' || cursor.length > 512)) errors.push('cursor must be the next_cursor of a previous page');
  const where = one('where');
  if (where !== undefined) {
    if (where.trim() === '') errors.push('where must be a jq expression, got ""');
    else if (where.length > SEARCH_EXPR_MAX_LENGTH) errors.push(`where is ${where.length} characters, more than ${SEARCH_EXPR_MAX_LENGTH}`);
  }
  let scan = SEARCH_SCAN_MAX;
  const rawScan = one('scan');
  if (rawScan !== undefined) {
    const n = /^\d{1,5}$/.test(rawScan) ? Number(rawScan) : NaN;
    if (where === undefined) errors.push('scan bounds a where search: give where with it');
    else if (n >= 1 && n <= SEARCH_SCAN_MAX) scan = n;
    else errors.push(`scan must be a whole number from 1 to ${SEARCH_SCAN_MAX}, got ${JSON.stringify(rawScan)}`);
  }
  if (errors.length) throw badInput('bad run list query', errors);
  return { filter, limit, cursor, ...(where !== undefined ? { where } : {}), scan };
}

/** `kind` (an error kind) and `fingerprint` (a failure group's, `failureFingerprint`) into the filter; a bad value is one line of `errors`. */
export function readErrorFilter(one: (key: string) => string | undefined, errors: string[], filter: RunFilter): void {
  const kind = one('kind');
  if (kind !== undefined) {
    if (isErrorKind(kind)) filter.errorKind = kind;
    else errors.push(`kind must be an error kind, one of ${ERROR_KINDS.join('|')}, got ${JSON.stringify(kind)}`);
  }
  const fingerprint = one('fingerprint');
  if (fingerprint !== undefined) {
    if (FINGERPRINT_PATTERN.test(fingerprint)) filter.fingerprint = fingerprint;
    else errors.push(`fingerprint must be 16 lowercase hex characters (a failure group's fingerprint), got ${JSON.stringify(fingerprint)}`);
  }
}

/** An ISO 8601 date or date-time (a time without a zone is UTC); null for anything else. */
export function parseInstant(v: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i.test(v)) return null;
  const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(v.slice(10)) || v.length === 10 ? v : `${v}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}
