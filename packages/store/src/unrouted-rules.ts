import { newRunId } from '@hookyard/core';
import { DEFAULT_DOOR } from './run-rules';
import type { KeepEventInput, UnroutedEvent, UnroutedPage } from './types';

/** One unrouted event as a store keeps it: its id, its JSON text and that text's size in bytes (what the budget counts). */
export interface UnroutedRecord {
  id: string;
  json: string;
  bytes: number;
}

/**
 * The event kept for an input whose topic had no hook: a fresh time-sortable
 * id (so ids order as arrival does), what came in and through which door, as
 * JSON text of at most `eventMaxBytes` bytes. The payload text is the one the
 * caller already holds when it has it (the door's JSON body), so it is not
 * serialised twice. An event past the cut keeps the start of its payload's
 * JSON text, as a string, with `payload_truncated: true`: a reader sees what
 * came in, and nothing mistakes the start for the event (a replay skips it).
 */
export function unroutedRecordOf(input: KeepEventInput, deliveryId: string | null, eventMaxBytes: number): UnroutedRecord {
  const meta: Omit<UnroutedEvent, 'payload' | 'payload_truncated'> = {
    id: newRunId(input.now),
    topic: input.topic,
    door: input.door ?? DEFAULT_DOOR,
    verified: input.verified === true,
    delivery_id: deliveryId,
    received_at: new Date(input.now).toISOString(),
  };
  const payloadText = input.payloadJson ?? JSON.stringify(input.payload ?? null) ?? 'null';
  const whole = `${JSON.stringify({ ...meta, payload_truncated: false }).slice(0, -1)},"payload":${payloadText}}`;
  const wholeBytes = Buffer.byteLength(whole);
  if (wholeBytes <= eventMaxBytes) return { id: meta.id, json: whole, bytes: wholeBytes };
  const head = `${JSON.stringify({ ...meta, payload_truncated: true }).slice(0, -1)},"payload":`;
  const json = `${head}${truncatedPayload(payloadText, eventMaxBytes - Buffer.byteLength(head) - 1)}}`;
  return { id: meta.id, json, bytes: Buffer.byteLength(json) };
}

/**
 * The longest start of `text` whose JSON string takes at most `room` bytes
 * (quotes included). Escaping makes a string's JSON longer than the text by a
 * factor that depends on the text, so it is measured character by character
 * (as JSON.stringify escapes, in UTF-8), never cutting a surrogate pair.
 */
function truncatedPayload(text: string, room: number): string {
  let used = 2;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = pair ? 4 : escapedSize(c);
    if (used + size > room) break;
    used += size;
    i += pair ? 2 : 1;
  }
  return JSON.stringify(text.slice(0, i));
}

/** Bytes of one UTF-16 code unit (not half of a pair) in a JSON string, UTF-8. */
function escapedSize(c: number): number {
  if (c === 0x22 || c === 0x5c) return 2; // \" \\
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 6; // a lone surrogate: \udxxx
  return 3;
}

/** A kept event read back; one kept before `payload_truncated` existed reads false. */
export function parseUnroutedEvent(text: string | null | undefined): UnroutedEvent | null {
  if (!text) return null;
  try {
    const event = JSON.parse(text) as UnroutedEvent;
    return { ...event, payload_truncated: event.payload_truncated === true };
  } catch {
    return null;
  }
}

/**
 * One page of a topic's events, newest first: `ids` in any order; `cursor`
 * is the last id of the page before (ids are time-sortable: older sorts lower).
 */
export function pageIds(ids: readonly string[], limit: number, cursor: string | null | undefined): { ids: string[]; next: string | null } {
  const sorted = [...ids].sort().reverse();
  const from = cursor ? sorted.filter((id) => id < cursor) : sorted;
  const page = from.slice(0, Math.max(1, limit));
  return { ids: page, next: from.length > page.length ? page[page.length - 1]! : null };
}

export const toPage = (events: UnroutedEvent[], next: string | null): UnroutedPage => ({ events, next_cursor: next });
