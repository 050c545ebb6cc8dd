import type { AuditStore } from '../types';
import {
  auditEntryJson,
  auditIdBound,
  auditPage,
  auditScanRange,
  matchesAudit,
  type AuditBounds,
  type AuditEntry,
  type AuditFilter,
  type AuditPage,
} from '../audit-rules';

/** The audit trail in this process: entries as their kept JSON, ascending by id (the Redis twin's lex-ordered zset). */
export class MemoryAuditStore implements AuditStore {
  private readonly ids: string[] = [];
  private readonly byId = new Map<string, string>();

  async record(entry: AuditEntry, bounds: AuditBounds): Promise<void> {
    const json = auditEntryJson(entry);
    if (!this.byId.has(entry.id)) this.ids.splice(this.insertAt(entry.id), 0, entry.id);
    this.byId.set(entry.id, json);
    const oldest = auditIdBound(Date.parse(entry.at) - bounds.retentionMs);
    let drop = 0;
    while (drop < this.ids.length && this.ids[drop]! < oldest) drop += 1;
    drop = Math.max(drop, this.ids.length - bounds.maxEntries);
    for (const id of this.ids.splice(0, drop)) this.byId.delete(id);
  }

  async list(filter: AuditFilter, limit: number, notBefore: number, cursor: string | null = null): Promise<AuditPage> {
    const { low, high } = auditScanRange(filter, notBefore, cursor);
    const out: AuditEntry[] = [];
    for (let i = (high === null ? this.ids.length : this.insertAt(high)) - 1; i >= 0; i -= 1) {
      const id = this.ids[i]!;
      if (id < low) break;
      const entry = JSON.parse(this.byId.get(id)!) as AuditEntry;
      if (!matchesAudit(entry, filter)) continue;
      out.push(entry);
      if (out.length > limit) break;
    }
    return auditPage(out, limit);
  }

  /** The index of the first id not below `id`. */
  private insertAt(id: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
