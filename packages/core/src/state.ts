import { setOwn } from './own';
import type { SubjectKey } from './interactions';

/**
 * Subject state: one versioned JSON document per (scope, kind, key), written
 * by the built-in `state_*` tools (door `hook`) and the management API (door
 * `api`). Every write is attributed and kept in a bounded history.
 */

/** Writes kept per subject, oldest first (like a run's history). */
export const STATE_HISTORY_MAX = 50;

/** What a write did (a delete removes the history with the document). */
export const STATE_OPS = ['set', 'merge'] as const;
export type StateOp = (typeof STATE_OPS)[number];

/** Where a write came from: a hook's tool call, or the management API. */
export const STATE_DOORS = ['hook', 'api'] as const;
export type StateDoor = (typeof STATE_DOORS)[number];

/** Who wrote: door `hook` with the run id as actor and the hook's name; door `api` with `<role>:<token label>`. */
export interface StateAttribution {
  door: StateDoor;
  actor: string;
  /** The hook whose run wrote (door `hook`); null for the API. */
  hook: string | null;
}

/** One line of a subject's write history. */
export interface StateWrite extends StateAttribution {
  /** The version this write made (a delete: the version it removed). */
  version: number;
  op: StateOp;
  at: string;
}

/** A subject's kept state. */
export interface StateRecord extends SubjectKey {
  /** Always a JSON object. */
  document: Record<string, unknown>;
  /** 1 on create, +1 per write. */
  version: number;
  created_at: string;
  updated_at: string;
  /** The last writes, oldest first, at most STATE_HISTORY_MAX. */
  history: StateWrite[];
}

/** A subject in a list: no document, no history. */
export interface StateSummary extends SubjectKey {
  version: number;
  updated_at: string;
  updated_by: StateAttribution;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON Merge Patch (RFC 7396) of `patch` onto `target`, as a new value:
 * objects merge key by key, recursively; a `null` in the patch removes the
 * key; anything else (arrays, strings, numbers) replaces. Keys are written
 * with setOwn, so a payload's `__proto__` stays a plain key.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = {};
  if (isObject(target)) for (const k of Object.keys(target)) setOwn(out, k, target[k]);
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/** Bytes of a document as stored (its compact JSON, UTF-8). */
export function stateBytes(document: unknown): number {
  return Buffer.byteLength(JSON.stringify(document), 'utf8');
}

/** `scope/kind/key`, for messages. */
export const subjectLabel = (s: SubjectKey) => `${s.scope}/${s.kind}/${JSON.stringify(s.key)}`;
