import type { Role } from '@hookyard/core';

/** Who made a change: an API token (its role and label), an agent, or the holder of a signed approval link. */
export interface AuditActor {
  kind: 'token' | 'agent' | 'link' | 'person';
  /** The token's role (a person's: from the IdP's roles claim); null for an agent or a link. */
  role: Role | null;
  /**
   * What tells the principal apart without showing a secret: `<role>:<first 8 hex of the
   * token's SHA-256>` for a token, `agent:<name>` for an agent, `link:<interaction id>` for a link,
   * `person:<preferred_username or email> (sub <IdP subject>)` for a person signed in through the IdP.
   */
  label: string;
}

/** One recorded change (or attempt at one: `status` says how it ended). Never holds a secret. */
export interface AuditEntry {
  /** Time-sortable (as run ids are): newest first is descending id order. */
  id: string;
  /** ISO time of the answer. */
  at: string;
  actor: AuditActor;
  /** What was done, e.g. `hook.register`, `policy.update`, `interaction.approve`. */
  action: string;
  /** What it was done to (a hook name, a run id, a topic…), or null. */
  target: string | null;
  /** The client's address as the ingress reads it (HOOKS_TRUSTED_PROXIES). */
  client: string;
  /** The HTTP status the request was answered with. */
  status: number;
  /** The request, as routed: method and path (no query string). */
  request: { method: string; path: string };
  /** The record before the change, where one applies (null: there was none). */
  before?: unknown;
  /** The record after the change, where one applies (null: it is gone). */
  after?: unknown;
}

/** Filters of `AuditStore.list`; every one given must match. */
export interface AuditFilter {
  /** Exact action, or a family ending in `.*` (`hook.*`). */
  action?: string;
  /** The actor's label (`operator:1a2b3c4d`, `agent:ci-bot`, `link:<id>`), role (`admin`) or kind (`link`). */
  actor?: string;
  /** Exact target. */
  target?: string;
  /** Entries at or after this time (ms). */
  since?: number;
  /** Entries at or before this time (ms). */
  until?: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  next_cursor: string | null;
}

/**
 * How much the trail keeps: HOOKS_AUDIT_RETENTION_DAYS for every entry, and
 * two count bounds, one per list: HOOKS_AUDIT_MAX_ENTRIES for changes and
 * HOOKS_AUDIT_MAX_REFUSED for refused attempts. Refusals fill only their own
 * list, so however many a reader makes, no change is pushed out by them.
 */
export interface AuditBounds {
  retentionMs: number;
  /** Most changes (answers below 400, and 5xx: an outcome not known) kept. */
  maxEntries: number;
  /** Most refused attempts (4xx answers) kept. */
  maxRefused: number;
}

/** The two lists of the trail, each with its own count bound. */
export type AuditList = 'changes' | 'refused';

/** What `record` did beyond keeping the entry: the list it went to and how many of that list's oldest it dropped for space. */
export interface AuditRecorded {
  list: AuditList;
  /** Entries of `list` dropped because the list was past its count bound (not those past the retention). */
  dropped: number;
}

/** The list an entry belongs to: a refused attempt (4xx) changed nothing and is bounded apart from the changes. */
export function auditListOf(entry: Pick<AuditEntry, 'status'>): AuditList {
  return entry.status >= 400 && entry.status < 500 ? 'refused' : 'changes';
}

/** The count bound of `list`. */
export function auditBoundOf(bounds: AuditBounds, list: AuditList): number {
  return list === 'refused' ? bounds.maxRefused : bounds.maxEntries;
}

/** Largest kept entry (its compact JSON); a larger one keeps its before/after as a note of their size. */
export const AUDIT_ENTRY_MAX_BYTES = 16 * 1024;

/** Entries dropped past the retention per record, so one write never does unbounded work (the rest go on later writes). */
export const AUDIT_EXPIRE_PER_RECORD = 100;

/** The id prefix of time `ms` (ids begin with 10 base36 chars of their ms): every id at or after `ms` sorts at or after it. */
export function auditIdBound(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(36).padStart(10, '0');
}

/** The compact JSON kept for an entry, within AUDIT_ENTRY_MAX_BYTES. */
export function auditEntryJson(entry: AuditEntry): string {
  const json = JSON.stringify(entry);
  if (Buffer.byteLength(json, 'utf8') <= AUDIT_ENTRY_MAX_BYTES) return json;
  const note = (v: unknown) => (v === undefined ? undefined : { truncated: true, bytes: Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8') });
  const { before, after, ...rest } = entry;
  return JSON.stringify({ ...rest, ...(before !== undefined ? { before: note(before) } : {}), ...(after !== undefined ? { after: note(after) } : {}) });
}

export function matchesAudit(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.action !== undefined) {
    const a = filter.action;
    if (a.endsWith('.*') ? !entry.action.startsWith(a.slice(0, -1)) : entry.action !== a) return false;
  }
  if (filter.actor !== undefined) {
    const who = filter.actor;
    if (entry.actor.label !== who && entry.actor.role !== who && entry.actor.kind !== who) return false;
  }
  if (filter.target !== undefined && entry.target !== filter.target) return false;
  const at = Date.parse(entry.at);
  if (filter.since !== undefined && at < filter.since) return false;
  if (filter.until !== undefined && at > filter.until) return false;
  return true;
}

/**
 * The id range a listing scans, newest first: from `low` (inclusive) up to
 * `high` (exclusive; null: no bound). `cursor` is the last id of the page
 * before, so the next page starts below it.
 */
export function auditScanRange(filter: AuditFilter, notBefore: number, cursor: string | null): { low: string; high: string | null } {
  const low = auditIdBound(Math.max(notBefore, filter.since ?? 0));
  const until = filter.until === undefined ? null : auditIdBound(filter.until + 1);
  const high = until === null ? cursor : cursor === null ? until : cursor < until ? cursor : until;
  return { low, high };
}

/** The page of a listing that read up to `limit + 1` matching entries, newest first: one more than `limit` means there is a next page. */
export function auditPage(found: AuditEntry[], limit: number): AuditPage {
  const entries = found.slice(0, limit);
  return { entries, next_cursor: found.length > limit ? entries[entries.length - 1]!.id : null };
}
