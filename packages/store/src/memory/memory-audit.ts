import type { AuditStore } from '../types';
import {
  auditBoundOf,
  auditEntryJson,
  auditIdBound,
  auditListOf,
  auditPage,
  auditScanRange,
  matchesAudit,
  type AuditBounds,
  type AuditEntry,
  type AuditFilter,
  type AuditList,
  type AuditPage,
  type AuditRecorded,
} from '../audit-rules';

/**
 * The audit trail in this process: entries as their kept JSON; `all` holds
 * every id ascending (the listing, as the Redis twin's lex-ordered zset) and
 * each list its own ids, so a list's count bound drops only its own oldest.
 */
export class MemoryAuditStore implements AuditStore {
  private readonly all: string[] = [];
  private readonly lists: Record<AuditList, string[]> = { changes: [], refused: [] };
  private readonly byId = new Map<string, string>();

  async record(entry: AuditEntry, bounds: AuditBounds): Promise<AuditRecorded> {
    const list = auditListOf(entry);
    const json = auditEntryJson(entry);
    if (!this.byId.has(entry.id)) {
      insert(this.all, entry.id);
      insert(this.lists[list], entry.id);
    }
    this.byId.set(entry.id, json);
    const oldest = auditIdBound(Date.parse(entry.at) - bounds.retentionMs);
    while (this.all.length > 0 && this.all[0]! < oldest) this.forget(this.all[0]!);
    const own = this.lists[list];
    const over = own.length - auditBoundOf(bounds, list);
    for (const id of over > 0 ? own.slice(0, over) : []) this.forget(id);
    return { list, dropped: Math.max(0, over) };
  }

  async list(filter: AuditFilter, limit: number, notBefore: number, cursor: string | null = null): Promise<AuditPage> {
    const { low, high } = auditScanRange(filter, notBefore, cursor);
    const out: AuditEntry[] = [];
    for (let i = (high === null ? this.all.length : insertAt(this.all, high)) - 1; i >= 0; i -= 1) {
      const id = this.all[i]!;
      if (id < low) break;
      const entry = JSON.parse(this.byId.get(id)!) as AuditEntry;
      if (!matchesAudit(entry, filter)) continue;
      out.push(entry);
      if (out.length > limit) break;
    }
    return auditPage(out, limit);
  }

  private forget(id: string): void {
    for (const ids of [this.all, this.lists.changes, this.lists.refused]) {
      const at = insertAt(ids, id);
      if (ids[at] === id) ids.splice(at, 1);
    }
    this.byId.delete(id);
  }
}

/** The index of the first id of `ids` (ascending) not below `id`. */
function insertAt(ids: string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insert(ids: string[], id: string): void {
  ids.splice(insertAt(ids, id), 0, id);
}
