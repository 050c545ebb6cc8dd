/** The management API as the console calls it: same origin, the session's bearer token. */
import type { AnswerOf, getDelivery, getHook, getRun, listRuns } from '@hookyard/api';

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

// The run answers' shapes are the API's declarations (@hookyard/api; types only, nothing of it is bundled).
type WireRun = AnswerOf<typeof getRun>;

/** One line of a run's history (the declared `Attempt`). */
export type RunEvent = NonNullable<WireRun['history']>[number];
/** An HTTP-based tool's reply, kept on the history line that ended its attempt (headers' secrets redacted, body bounded). */
export type HttpExchange = NonNullable<RunEvent['http']>;

/**
 * A run as the console holds it: the declared run, except that a row made
 * from a live run event (before the run is read) lacks what the event does
 * not carry (door, verified, agent, the error's `retryable`) and says its status as the event's text.
 */
export type Run = Omit<WireRun, 'error' | 'door' | 'history' | 'status' | 'verified'> & {
  verified?: boolean;
  status: string;
  door?: WireRun['door'];
  error: { kind: string; message: string; retryable?: boolean } | null;
  history: RunEvent[];
};

export type RunPage = AnswerOf<typeof listRuns>;

/** The event (delivery) a run was kept from: the first 24 chars of its id, shared by every run of that delivery. */
export function eventIdOf(run: { id: string }): string {
  return run.id.slice(0, 24);
}

/** One delivery and the runs it became (`GET /api/deliveries/{event_id}`). */
export type Delivery = AnswerOf<typeof getDelivery>;

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
