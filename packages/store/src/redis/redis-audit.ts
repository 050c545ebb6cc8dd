import type { AuditStore } from '../types';
import {
  AUDIT_EXPIRE_PER_RECORD,
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
  type AuditPage,
  type AuditRecorded,
} from '../audit-rules';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { storeError } from './replies';
import type { Scripts } from './scripts';

/** Ids read per round trip while a filtered listing scans. */
const SCAN_BATCH = 200;

/**
 * The audit trail on Redis, in a hash tag of its own: `{P:audit}:ix` (zset of
 * every id, the listing), `{P:audit}:entries` (hash), and the ids of each list
 * (`:changes`, `:refused`) for their count bounds.
 */
export class RedisAuditStore implements AuditStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
  ) {}

  async record(entry: AuditEntry, bounds: AuditBounds): Promise<AuditRecorded> {
    const list = auditListOf(entry);
    const oldest = auditIdBound(Date.parse(entry.at) - bounds.retentionMs);
    const args = [this.keys.auditTag, entry.id, auditEntryJson(entry), oldest, auditBoundOf(bounds, list), AUDIT_EXPIRE_PER_RECORD, list];
    try {
      const dropped = await this.scripts.run('record_audit', this.keys.auditKeys(), args);
      return { list, dropped: Number(dropped) };
    } catch (err) {
      throw storeError('record_audit', err);
    }
  }

  async list(filter: AuditFilter, limit: number, notBefore: number, cursor: string | null = null): Promise<AuditPage> {
    const [ix, data] = this.keys.auditKeys() as [string, string];
    const { low, high } = auditScanRange(filter, notBefore, cursor);
    const out: AuditEntry[] = [];
    try {
      let max = high === null ? '+' : `(${high}`;
      while (out.length <= limit) {
        const ids = await this.client.zrevrangebylex(ix, max, `[${low}`, 'LIMIT', 0, SCAN_BATCH);
        if (ids.length === 0) break;
        const texts = await this.client.hmget(data, ...ids);
        for (const text of texts) {
          // Dropped between the two reads: skipped.
          if (!text) continue;
          const entry = JSON.parse(text) as AuditEntry;
          if (matchesAudit(entry, filter)) out.push(entry);
          if (out.length > limit) break;
        }
        if (ids.length < SCAN_BATCH) break;
        max = `(${ids[ids.length - 1]!}`;
      }
    } catch (err) {
      throw storeError('list audit', err);
    }
    return auditPage(out, limit);
  }
}
