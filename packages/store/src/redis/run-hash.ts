import type { Acted, Door, ErrorInfo, Run, RunEvent, RunHead, RunStatus } from '@hookyard/core';
import { splitHistoryDetail } from '../run-rules';

/**
 * A run's hash fields, all strings: id, hook, topic, status, payload (JSON),
 * headers (JSON: the kept request headers, or absent: null), attempts, acted, acted_ids (JSON), claim_intent, error/result/input (JSON or ''),
 * owner, until, token, due, delivery, resumable (0/1), created, updated, started, claimed (the latest attempt's claim, ms),
 * finished (epoch ms or ''), door (the door its event came through; absent: `http`), verified ('1', or absent:
 * false), replay_of (the replayed run's id, or ''), trigger_link (the trigger link that kept it, or absent), trace (the W3C traceparent its spans continue, or absent), interaction (id of the latest interaction it parked on, or ''), history (JSON, `at` in epoch ms). A field a run has
 * not needed yet may be absent (keep_event writes only what a fresh run needs):
 * absent reads as its empty value.
 */
export type RunFields = Record<string, string>;

/** HGETALL as a Lua script returns it (a flat array) or as the client does (an object). */
export function toFields(reply: unknown): RunFields {
  if (!Array.isArray(reply)) return (reply ?? {}) as RunFields;
  const fields: RunFields = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  return fields;
}

/** The fields of a run's head, in the order the Lua run_head answers their values (lua/transitions.lua HEAD_FIELDS). */
export const RUN_HEAD_FIELDS = [
  'id',
  'hook',
  'topic',
  'status',
  'attempts',
  'acted',
  'acted_ids',
  'claim_intent',
  'error',
  'owner',
  'until',
  'token',
  'due',
  'delivery',
  'door',
  'verified',
  'resumable',
  'interaction',
  'replay_of',
  'trigger_link',
  'trace',
  'created',
  'updated',
  'started',
  'finished',
] as const;

/** The fields of a run_head reply (values in RUN_HEAD_FIELDS order; an absent field is null). */
export function headFields(reply: unknown): RunFields {
  const fields: RunFields = {};
  if (!Array.isArray(reply)) return fields;
  RUN_HEAD_FIELDS.forEach((name, i) => {
    const value = reply[i] as string | number | null | undefined;
    if (value !== null && value !== undefined) fields[name] = String(value);
  });
  return fields;
}

const iso = (ms: string | undefined): string | null => (ms ? new Date(Number(ms)).toISOString() : null);
const json = <T>(raw: string | undefined, empty: T): T => (raw ? (JSON.parse(raw) as T) : empty);

interface StoredEvent {
  at: number;
  attempt: number;
  event: string;
  detail?: string;
}

/** The Run a hash holds (null for an empty hash: no such run). */
export function fieldsToRun(f: RunFields): Run | null {
  const head = fieldsToRunHead(f);
  if (!head) return null;
  const history = json<StoredEvent[]>(f.history, []).map((h): RunEvent => {
    // A line ending an HTTP tool's attempt carries its reply after the detail text (historyDetail).
    const { detail, http } = h.detail ? splitHistoryDetail(h.detail) : { detail: '', http: null };
    return {
      at: new Date(h.at).toISOString(),
      attempt: h.attempt,
      event: h.event,
      ...(detail ? { detail } : {}),
      ...(http ? { http } : {}),
    };
  });
  // In the field order of a Run as the API answers it (the memory store's too).
  const { id, hook, topic, status, attempts, acted, acted_ids, claim_intent, error, ...rest } = head;
  return {
    id,
    hook,
    topic,
    status,
    payload: json<unknown>(f.payload, null),
    headers: json<Record<string, string> | null>(f.headers, null),
    attempts,
    acted,
    acted_ids,
    claim_intent,
    error,
    result: json<unknown>(f.result, null),
    input: json<Record<string, unknown> | null>(f.input, null),
    ...rest,
    history,
  };
}

/** The head of the run a hash holds (its fields but payload, input, result, history); null for no such run. */
export function fieldsToRunHead(f: RunFields): RunHead | null {
  if (!f.id) return null;
  const running = f.status === 'running' && !!f.owner;
  return {
    id: f.id,
    hook: f.hook ?? '',
    topic: f.topic ?? '',
    status: f.status as RunStatus,
    attempts: Number(f.attempts ?? 0),
    acted: (f.acted ?? '') as Acted,
    acted_ids: json<string[]>(f.acted_ids, []),
    claim_intent: f.claim_intent ?? '',
    error: json<ErrorInfo | null>(f.error, null),
    lease: running ? { owner: f.owner ?? '', until: Number(f.until), token: Number(f.token) } : null,
    due_at: iso(f.due),
    delivery_id: f.delivery || null,
    // A run kept before doors were recorded has neither field: it reads as the
    // HTTP door's (the door most runs came through), never as verified.
    door: (f.door || 'http') as Door,
    verified: f.verified === '1',
    resumable: f.resumable === '1',
    interaction: f.interaction || null,
    parked_on: f.status === 'parked' && f.interaction ? [f.interaction] : [],
    replay_of: f.replay_of || null,
    trigger_link: f.trigger_link || null,
    traceparent: f.trace || null,
    created_at: iso(f.created) ?? '',
    updated_at: iso(f.updated) ?? '',
    started_at: iso(f.started),
    finished_at: iso(f.finished),
  };
}
