import type { listRuns, RequestOf } from '@hookyard/api';
import { agentHookName, agentOfHook, badInput, isErrorKind, isRetryableKind, parseTraceparent, type ErrorKind, type Run, type RunStatus } from '@hookyard/core';
import type { RunFilter } from '@hookyard/store';
import { SEARCH_SCAN_MAX } from './run-search';

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

export interface RunListQuery {
  filter: RunFilter;
  limit: number;
  cursor: string | null;
  /** A jq filter over each run's searchInput (see run-search.ts); absent: no search. */
  where?: string;
  /** With `where`: the most runs this request reads (1 to SEARCH_SCAN_MAX). */
  scan: number;
}

/** The fields of a run filter as a declaration checked them (the list's query, a bulk call's filter). */
export type RunFilterFields = Partial<Record<'hook' | 'agent' | 'topic' | 'delivery_id' | 'since' | 'until' | 'kind' | 'fingerprint', string>> & {
  status?: RunStatus;
};

/**
 * A run filter from fields each already checked by its declaration; what the
 * schema cannot say is checked here, every miss one line of `errors`: a time
 * that matches ISO 8601 but is no date, since after until.
 */
export function runFilterOf(f: RunFilterFields, errors: string[], at = ''): RunFilter {
  const filter: RunFilter = {};
  if (f.status !== undefined) filter.status = f.status;
  if (f.hook !== undefined) filter.hook = f.hook;
  if (f.topic !== undefined) filter.topic = f.topic;
  // An agent's runs are indexed under their hook slot, agent:<name> (the declaration refuses hook and agent together).
  if (f.agent !== undefined) filter.hook = agentHookName(f.agent);
  if (f.delivery_id !== undefined) filter.deliveryId = f.delivery_id;
  for (const key of ['since', 'until'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    const ms = parseInstant(v);
    if (ms === null) errors.push(`${at}${key} must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got ${JSON.stringify(v)}`);
    else filter[key] = ms;
  }
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    errors.push(`since must not be after until, got since=${new Date(filter.since).toISOString()} until=${new Date(filter.until).toISOString()}`);
  }
  if (f.kind !== undefined) filter.errorKind = f.kind as ErrorKind;
  if (f.fingerprint !== undefined) filter.fingerprint = f.fingerprint;
  return filter;
}

/** `GET /api/hook-runs`'s query as its declaration checked it, with the rules across fields (scan goes with where). */
export function runListQueryOf(q: RequestOf<typeof listRuns>['query']): RunListQuery {
  const errors: string[] = [];
  const filter = runFilterOf(q, errors);
  if (q.scan !== undefined && q.where === undefined) errors.push('scan bounds a where search: give where with it');
  if (errors.length) throw badInput('bad run list query', errors);
  return {
    filter,
    limit: q.limit ?? RUN_LIST_DEFAULT_LIMIT,
    cursor: q.cursor ?? null,
    ...(q.where !== undefined ? { where: q.where } : {}),
    scan: q.scan ?? SEARCH_SCAN_MAX,
  };
}

/** An ISO 8601 date or date-time (a time without a zone is UTC); null for anything else. */
export function parseInstant(v: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i.test(v)) return null;
  const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(v.slice(10)) || v.length === 10 ? v : `${v}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}
