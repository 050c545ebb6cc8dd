import { acceptedSummaries, type RunEventSink } from '@hookyard/bus';
import type { KeptRun } from '@hookyard/store';

/** Most `accepted` events one turn of the event loop holds; past it they are dropped, never queued without end. */
export const ACCEPTED_EVENTS_PER_TURN = 5_000;

/**
 * Announces the runs a door kept as `accepted` run events, from what the door
 * already holds (ids, hooks, topic, the keep's time): no store round trip.
 * Nothing is built or sent on the request's path: the events of every
 * delivery kept within one event-loop turn leave together on the next turn
 * (one socket write on NATS). A sink that refuses (NATS down), or a turn
 * past ACCEPTED_EVENTS_PER_TURN, loses them (`onDropped`, logged at debug): these events feed live views; the
 * runs themselves are kept, and `GET /api/hook-runs` lists them.
 */
export function createAcceptAnnouncer(
  events: RunEventSink,
  onDropped: (n: number) => void = () => undefined,
): (topic: string, kept: readonly KeptRun[], keptAt: number) => void {
  let pending: { topic: string; kept: readonly KeptRun[]; keptAt: number }[] = [];
  let held = 0;
  let scheduled = false;
  const lost = () => onDropped(1);
  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    held = 0;
    for (const d of batch) for (const summary of acceptedSummaries(d.topic, d.kept, d.keptAt)) events.publish(summary).catch(lost);
  };
  return (topic, kept, keptAt) => {
    if (kept.length === 0) return;
    if (held + kept.length > ACCEPTED_EVENTS_PER_TURN) return onDropped(kept.length);
    held += kept.length;
    pending.push({ topic, kept, keptAt });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
