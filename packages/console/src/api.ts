import type { AnswerOf, getHook } from '@hookyard/api';
/** The management API as the console calls it: same origin, the session's bearer token. */

export type Role = 'reader' | 'operator' | 'admin';
const RANK: Record<Role, number> = { reader: 0, operator: 1, admin: 2 };

/** True when `role` is at least `min` (the API's own rule, so no button can 403). */
export function atLeast(role: Role, min: Role): boolean {
  return RANK[role] >= RANK[min];
}

/** An answer of the API that was not 2xx, with its kind, message and details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'hookyard.token';

/** The token lives in sessionStorage: pasted once per tab, gone when the tab closes. */
export const session = {
  token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  save(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

export async function api<T>(method: string, path: string, body?: unknown, token = session.token()): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, 'unavailable', `the server could not be reached (${(err as Error).message})`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const e = (parsed as { error?: { kind?: string; message?: string; details?: string[] } } | null)?.error;
    throw new ApiError(res.status, e?.kind ?? 'internal', e?.message ?? `${res.status} ${res.statusText}`, e?.details ?? []);
  }
  return parsed as T;
}

/** An HTTP-based tool's reply, kept on the history line that ended its attempt (headers' secrets redacted, body bounded). */
export interface HttpExchange {
  status: number;
  headers: Record<string, string>;
  body: string;
  body_bytes: number;
  body_truncated: boolean;
}

export interface RunEvent {
  at: string;
  attempt: number;
  event: string;
  detail?: string;
  http?: HttpExchange;
}

export interface Run {
  id: string;
  hook: string;
  topic: string;
  status: string;
  payload: unknown;
  attempts: number;
  acted: string;
  acted_ids: string[];
  claim_intent: string;
  /** `retryable`: whether the kind is one a later attempt can get past (the API says; absent on a row made from a live run event). */
  error: { kind: string; message: string; retryable?: boolean } | null;
  result: unknown;
  input: Record<string, unknown> | null;
  lease: { owner: string; until: string; token: number } | null;
  due_at: string | null;
  delivery_id: string | null;
  /** The door its event came through: http, nats, api (a replay), platform, agent (an agent's tool call). Absent on a row made from a live run event. */
  door?: string;
  /** The agent whose tool call this run is (door agent; its hook slot is `agent:<name>`), else null. Absent on a row made from a live run event. */
  agent?: string | null;
  /** The latest interaction (approval or wait) this run parked on, kept after it is answered. */
  interaction?: string | null;
  /** The run whose event this run replays (an operator's replay), else null. */
  replay_of?: string | null;
  /** A verifier binding checked its event as it was kept (only such a run may answer an approval). */
  verified?: boolean;
  resumable: boolean;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  history: RunEvent[];
}

export interface RunPage {
  runs: Run[];
  next_cursor: string | null;
  /** With `?where=` only: how far the search read; cut: it stopped at its window with older runs unread. */
  scan?: { scanned: number; matched: number; cut: boolean; errors: number; first_error?: { run: string; message: string } };
}

/** The event (delivery) a run was kept from: the first 24 chars of its id, shared by every run of that delivery. */
export function eventIdOf(run: { id: string }): string {
  return run.id.slice(0, 24);
}

/** One delivery and the runs it became (`GET /api/deliveries/{event_id}`). */
export interface Delivery {
  event_id: string;
  delivery_id: string | null;
  door: string;
  verified: boolean;
  topic: string;
  received_at: string;
  /** The allowlisted request headers the door kept (never a credential); null when none were kept. */
  headers: Record<string, string> | null;
  payload: unknown;
  runs: Array<Pick<Run, 'id' | 'hook' | 'status' | 'attempts' | 'error' | 'acted' | 'created_at' | 'updated_at' | 'finished_at'>>;
}

/** A hook as the API answers it (declared in @hookyard/api: types only, nothing bundled). */
export type Hook = AnswerOf<typeof getHook>;

export const RUN_STATUSES = ['pending', 'running', 'retry_wait', 'parked', 'succeeded', 'skipped', 'denied', 'cancelled', 'failed', 'discarded'] as const;

/** Builds a query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
