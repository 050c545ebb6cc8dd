import type { SubjectKey } from './interactions';
import type { StateAttribution, StateRecord, StateSummary } from './state';
import type { RemoteToolRecord } from './types';

/**
 * The store seams a package other than the store speaks: the tool providers
 * read registrations and note discoveries (ToolStore), the built-in `state_*`
 * tools read and write subject state (StateStore). They live here, beside the
 * records they carry, so `tools` depends on these interfaces and not on the
 * store that implements them (`@hookyard/store`: memory and Redis).
 */

/** Registered remote tools (HTTP services and discovered providers). */
export interface ToolStore {
  putTool(record: RemoteToolRecord): Promise<{ created: boolean }>;
  getTool(name: string): Promise<RemoteToolRecord | null>;
  /** Removes the record and its discovery status. */
  removeTool(name: string): Promise<boolean>;
  listTools(): Promise<RemoteToolRecord[]>;
  /**
   * Notes what a discovery of registration `name` (openapi, mcp, grpc) found:
   * a success keeps its time and tool count, a failure its time, kind and
   * message; each leaves the other as it was, so both the last success and the
   * last error stay readable.
   */
  noteDiscovery(name: string, outcome: DiscoveryOutcome): Promise<void>;
  /** Every registration's discovery status, by name. */
  discoveryStatuses(): Promise<DiscoveryStatus[]>;
  /**
   * Keeps a registration that `POST /api/tools` validated but has not stored
   * yet, for `ttlMs`, under a new random id (returned): the executor that
   * discovers it reads it from here, so a discovery request names a record
   * and never carries one. Never listed, never called.
   */
  putPendingTool(record: RemoteToolRecord, ttlMs: number): Promise<string>;
  /** Takes (reads and removes) a pending registration: null when there is none by that id or it expired. */
  takePendingTool(id: string): Promise<RemoteToolRecord | null>;
}

/** One discovery of a provider registration, as the executor that ran it saw it. */
export type DiscoveryOutcome = { at: string; tools: number } | { at: string; error: { kind: string; message: string } };

/** What the API shows about a provider registration's discovery. */
export interface DiscoveryStatus {
  name: string;
  /** ISO time of the last discovery that succeeded, and how many tools it exposed. */
  last_success: { at: string; tools: number } | null;
  /** The last discovery that failed: when, its error kind and message. */
  last_error: { at: string; kind: string; message: string } | null;
}

/** Who writes, when, and (optionally) against which version. */
export interface StateWriteInput extends StateAttribution {
  /**
   * Compare-and-set: the write applies only if the kept version is this one
   * (0: no document yet), else `conflict` naming the kept version. Absent or
   * null: any version.
   */
  ifVersion?: number | null;
  now: number;
}

export interface StatePage {
  states: StateSummary[];
  /** Opaque; pass back as `cursor` for the next page (keys in ascending order). Null on the last page. */
  nextCursor: string | null;
}

/**
 * Subject state: one versioned JSON object per (scope, kind, key), every write
 * attributed and kept in a bounded history (STATE_HISTORY_MAX, oldest first).
 * A write is one atomic step (one Lua script in Redis). A document larger than
 * the store's cap (HOOKS_STATE_MAX_BYTES) is `bad_input` naming the setting;
 * a version mismatch is `conflict` naming the kept version.
 */
export interface StateStore {
  /** The subject's state, or null when it has none. */
  get(subject: SubjectKey): Promise<StateRecord | null>;
  /** Replaces the document whole. */
  set(subject: SubjectKey, document: Record<string, unknown>, write: StateWriteInput): Promise<StateRecord>;
  /**
   * JSON Merge Patch (RFC 7396) of `patch` onto the kept document (or `{}`):
   * read, merged and written with a compare-and-set, read again when another
   * write came between (a few times, then `conflict`). With `ifVersion`
   * the merge applies only on that version, never read again.
   */
  merge(subject: SubjectKey, patch: Record<string, unknown>, write: StateWriteInput): Promise<StateRecord>;
  /** Removes the document and its history; the version it removed, or null when there was none. */
  remove(subject: SubjectKey, write: StateWriteInput): Promise<{ version: number } | null>;
  /** The subjects of one scope and kind, by key ascending. */
  list(scope: string, kind: string, limit: number, cursor?: string | null): Promise<StatePage>;
  /** Every (scope, kind) that holds at least one document (the upgrade declares them), in no set order. */
  kinds(): Promise<Array<{ scope: string; kind: string }>>;
}
