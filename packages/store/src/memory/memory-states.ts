import { STATE_HISTORY_MAX } from '@hookyard/core';
import type { StateOp, StatePage, StateRecord, StateStore, StateSummary, StateWriteInput, SubjectKey } from '@hookyard/core';
import { checkDocument, decodeCursor, encodeCursor, expectedVersion, mergeWithCas, versionConflict } from '../state-rules';

interface Kept {
  text: string;
  version: number;
  created_at: string;
  updated_at: string;
  history: StateRecord['history'];
}

/** Subject state in this process: each write is one synchronous step, as one script is in Redis. */
export class MemoryStateStore implements StateStore {
  /** `scope\0kind` -> key -> kept state. */
  private readonly byKind = new Map<string, Map<string, Kept>>();

  constructor(private readonly maxBytes: number) {}

  private kind(s: SubjectKey, create: boolean): Map<string, Kept> | undefined {
    const k = `${s.scope}\0${s.kind}`;
    let m = this.byKind.get(k);
    if (!m && create) this.byKind.set(k, (m = new Map<string, Kept>()));
    return m;
  }

  async get(subject: SubjectKey): Promise<StateRecord | null> {
    const kept = this.kind(subject, false)?.get(subject.key);
    return kept ? record(subject, kept) : null;
  }

  async set(subject: SubjectKey, document: Record<string, unknown>, write: StateWriteInput, op: StateOp = 'set'): Promise<StateRecord> {
    const text = checkDocument(subject, document, this.maxBytes);
    const expected = expectedVersion(write);
    const m = this.kind(subject, true)!;
    const kept = m.get(subject.key);
    const version = kept?.version ?? 0;
    if (expected !== null && expected !== version) throw versionConflict(subject, version, expected);
    const at = new Date(write.now).toISOString();
    const history = [...(kept?.history ?? []), { version: version + 1, op, door: write.door, actor: write.actor, hook: write.hook, at }];
    if (history.length > STATE_HISTORY_MAX) history.splice(0, history.length - STATE_HISTORY_MAX);
    const next: Kept = { text, version: version + 1, created_at: kept?.created_at ?? at, updated_at: at, history };
    m.set(subject.key, next);
    return record(subject, next);
  }

  merge(subject: SubjectKey, patch: Record<string, unknown>, write: StateWriteInput): Promise<StateRecord> {
    return mergeWithCas(this, subject, patch, write);
  }

  async remove(subject: SubjectKey, write: StateWriteInput): Promise<{ version: number } | null> {
    const expected = expectedVersion(write);
    const m = this.kind(subject, false);
    const kept = m?.get(subject.key);
    const version = kept?.version ?? 0;
    if (expected !== null && expected !== version) throw versionConflict(subject, version, expected);
    if (!kept) return null;
    m!.delete(subject.key);
    return { version };
  }

  /** How many subjects hold a state (what a stop of the embedded default drops). */
  size(): number {
    let n = 0;
    for (const m of this.byKind.values()) n += m.size;
    return n;
  }

  async kinds(): Promise<Array<{ scope: string; kind: string }>> {
    return [...this.byKind.entries()].filter(([, m]) => m.size > 0).map(([k]) => ({ scope: k.split('\0')[0]!, kind: k.split('\0')[1]! }));
  }

  async list(scope: string, kind: string, limit: number, cursor?: string | null): Promise<StatePage> {
    const after = decodeCursor(cursor);
    const m = this.kind({ scope, kind, key: '' }, false);
    const keys = [...(m?.keys() ?? [])].filter((k) => after === null || k > after).sort();
    const page = keys.slice(0, limit);
    const states: StateSummary[] = page.map((key) => {
      const kept = m!.get(key)!;
      const last = kept.history[kept.history.length - 1]!;
      return { scope, kind, key, version: kept.version, updated_at: kept.updated_at, updated_by: { door: last.door, actor: last.actor, hook: last.hook } };
    });
    return { states, nextCursor: keys.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }
}

/** A copy of what is kept: changing it changes nothing kept. */
function record(s: SubjectKey, kept: Kept): StateRecord {
  return {
    scope: s.scope,
    kind: s.kind,
    key: s.key,
    document: JSON.parse(kept.text) as Record<string, unknown>,
    version: kept.version,
    created_at: kept.created_at,
    updated_at: kept.updated_at,
    history: kept.history.map((h) => ({ ...h })),
  };
}
