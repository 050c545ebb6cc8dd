import type { Router } from 'express';
import { getDelivery } from '@hookyard/api';
import { notFound, type Run } from '@hookyard/core';
import type { ApiContext } from './context';
import { mount } from './declare';

/** An event id: the first 24 chars every run of one delivery shares (the door's `event_id`). */
export const EVENT_ID_PATTERN = /^[0-9a-z]{24}$/;
// (The declaration's params pattern says the same: a malformed id is 404 there.)
/** Runs read per page when gathering an event's runs; an event has at most 1296 (one per hook on its topic). */
const PAGE = 500;
/** Pages read at most: 4 x 500 covers the 1296 runs one event can have. */
const MAX_PAGES = 4;

/**
 * `GET /api/deliveries/{event_id}`: one delivery as it came in and the runs
 * it became. An event's runs share the first 24 chars of their ids (time
 * first), so they are read as one range of the run list: the newest run id
 * the event can have is the cursor's top and its creation time bounds the
 * range; no scan. `headers` are the request headers the door kept with
 * every run of the delivery (only core's allowlisted KEPT_HEADERS, bounded,
 * never a credential or a signature); null for a delivery kept before the
 * doors kept headers, or through a door that has none (api, platform, agent).
 */
export function deliveryRoutes(router: Router, ctx: ApiContext): void {
  mount(
    router,
    getDelivery,
    async (req, res) => {
      const id = req.checked.params.event_id;
      const runs = await runsOfEvent(ctx, id);
      const first = runs[0];
      if (!first) throw notFound(`no event ${JSON.stringify(id)} (no run of it is kept: never kept, or expired)`);
      res.json({
        event_id: id,
        delivery_id: first.delivery_id,
        door: first.door,
        verified: first.verified,
        topic: first.topic,
        received_at: first.created_at,
        headers: first.headers,
        payload: first.payload,
        runs: runs.map((r) => ({
          id: r.id,
          hook: r.hook,
          status: r.status,
          attempts: r.attempts,
          error: r.error,
          acted: r.acted,
          created_at: r.created_at,
          updated_at: r.updated_at,
          finished_at: r.finished_at,
        })),
      });
    },
    { validateAnswers: ctx.validateAnswers },
  );
}

/** The kept runs of one event, in the order they were kept (index 00 first). */
async function runsOfEvent(ctx: ApiContext, eventId: string): Promise<Run[]> {
  const at = Number.parseInt(eventId.slice(0, 10), 36);
  const filter = { since: at, until: at };
  const found: Run[] = [];
  // Every run id of the event is below `<event id>zz`, the highest index it could have.
  let cursor: string | null = `${eventId}zz`;
  for (let i = 0; i < MAX_PAGES && cursor !== null; i += 1) {
    const page = await ctx.stores.runs.list(filter, PAGE, cursor);
    const mine = page.runs.filter((r) => r.id.startsWith(eventId));
    found.push(...mine);
    // Ids sort by event first: once a run of another event shows, the event's runs are all read.
    if (mine.length < page.runs.length) break;
    cursor = page.nextCursor;
  }
  return found.reverse();
}
