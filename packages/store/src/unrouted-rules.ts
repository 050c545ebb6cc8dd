import { newRunId } from '@hookyard/core';
import { DEFAULT_DOOR } from './run-rules';
import type { KeepEventInput, UnroutedEvent, UnroutedPage } from './types';

/**
 * The event kept for an input whose topic had no hook: a fresh time-sortable
 * id (so ids order as arrival does), what came in and through which door.
 */
export function unroutedEventOf(input: KeepEventInput, deliveryId: string | null): UnroutedEvent {
  return {
    id: newRunId(input.now),
    topic: input.topic,
    payload: input.payload ?? null,
    door: input.door ?? DEFAULT_DOOR,
    verified: input.verified === true,
    delivery_id: deliveryId,
    received_at: new Date(input.now).toISOString(),
  };
}

/**
 * The event as JSON text, with the payload text the caller already holds
 * spliced in (the door's JSON body), so it is not serialised twice.
 */
export function unroutedEventJson(event: UnroutedEvent, payloadJson: string | undefined): string {
  const { payload, ...rest } = event;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"payload":${payloadJson ?? JSON.stringify(payload) ?? 'null'}}`;
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
