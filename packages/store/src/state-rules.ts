import { badInput, conflict, mergePatch, subjectLabel } from '@hookyard/core';
import type { HookyardError } from '@hookyard/core';
import type { StateRecord, StateWriteInput, SubjectKey } from '@hookyard/core';

/** HOOKS_STATE_MAX_BYTES's default: 64 KiB of compact JSON per document. */
export const DEFAULT_STATE_MAX_BYTES = 65536;

/** Times a merge reads again after another write came between its read and its write. */
export const MERGE_TRIES = 5;

/** The document a write keeps, checked: a JSON object within the cap. */
export function checkDocument(subject: SubjectKey, document: unknown, maxBytes: number): string {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw badInput(
      `state ${subjectLabel(subject)}: the document must be a JSON object, got ${document === null ? 'null' : Array.isArray(document) ? 'an array' : typeof document}`,
    );
  }
  const text = JSON.stringify(document);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw badInput(`state ${subjectLabel(subject)}: the document would be ${bytes} bytes, more than ${maxBytes} (HOOKS_STATE_MAX_BYTES)`);
  }
  return text;
}

/** A compare-and-set that found another version. */
export function versionConflict(subject: SubjectKey, kept: number, expected: number): HookyardError {
  const have = kept === 0 ? 'has no document (version 0)' : `is at version ${kept}`;
  return conflict(`state ${subjectLabel(subject)} ${have}, not version ${expected} (if_version); read it again and retry`);
}

/** `ifVersion` checked: a whole number >= 0, or absent. */
export function expectedVersion(write: StateWriteInput): number | null {
  const v = write.ifVersion;
  if (v === undefined || v === null) return null;
  if (!Number.isInteger(v) || v < 0) throw badInput(`if_version must be a whole number >= 0, got ${JSON.stringify(v)}`);
  return v;
}

/**
 * The merge both stores share: read, patch, write with the read version as
 * `ifVersion`; another write in between is read again (MERGE_TRIES times),
 * unless the caller gave its own `ifVersion`.
 */
export async function mergeWithCas(
  store: {
    get(s: SubjectKey): Promise<StateRecord | null>;
    set(s: SubjectKey, d: Record<string, unknown>, w: StateWriteInput, op: 'merge'): Promise<StateRecord>;
  },
  subject: SubjectKey,
  patch: Record<string, unknown>,
  write: StateWriteInput,
): Promise<StateRecord> {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw badInput(`state ${subjectLabel(subject)}: the patch must be a JSON object`);
  const given = expectedVersion(write);
  for (let n = 1; ; n += 1) {
    const kept = await store.get(subject);
    const version = kept?.version ?? 0;
    if (given !== null && given !== version) throw versionConflict(subject, version, given);
    const merged = mergePatch(kept?.document ?? {}, patch) as Record<string, unknown>;
    try {
      return await store.set(subject, merged, { ...write, ifVersion: version }, 'merge');
    } catch (err) {
      const e = err as { kind?: string };
      if (e.kind !== 'conflict' || given !== null || n >= MERGE_TRIES) throw err;
    }
  }
}

/** Opaque list cursors: the last key of a page. */
export const encodeCursor = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
export function decodeCursor(cursor: string | null | undefined): string | null {
  if (!cursor) return null;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw badInput(`cursor ${JSON.stringify(cursor)} is not one this list gave`);
  return Buffer.from(cursor, 'base64url').toString('utf8');
}
