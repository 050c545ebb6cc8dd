import type { Router } from 'express';
import { conflict } from '@hookyard/core';
import { acceptedSummaries } from '@hookyard/bus';
import type { UnroutedEvent, UnroutedTopic } from '@hookyard/store';
import { dropUnrouted, listUnrouted, listUnroutedTopics, replayUnrouted } from '@hookyard/api';
import { mount } from './declare';
import type { ApiContext } from './context';

/** Largest sample (the newest event's payload as JSON) a topic row shows whole; past it, its start as text. */
export const UNROUTED_SAMPLE_MAX_BYTES = 2048;
const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;

function sampleOf(event: UnroutedEvent | null): { sample: unknown; sample_truncated: boolean } {
  if (!event) return { sample: null, sample_truncated: false };
  const text = JSON.stringify(event.payload) ?? 'null';
  if (Buffer.byteLength(text) <= UNROUTED_SAMPLE_MAX_BYTES) return { sample: event.payload, sample_truncated: false };
  return { sample: Buffer.from(text).subarray(0, UNROUTED_SAMPLE_MAX_BYTES).toString('utf8'), sample_truncated: true };
}

const truncatedMessage = (topic: string, n: number) =>
  `${n} event${n === 1 ? ' was' : 's were'} kept truncated (payload_truncated: past HOOKS_UNROUTED_EVENT_MAX_BYTES only the start was kept) and not replayed; ` +
  `they stay under GET /api/unrouted/${topic} to read; DELETE /api/unrouted/${topic} drops them; ask the sender to send them again`;

const topicToWire = (t: UnroutedTopic) => ({
  topic: t.topic,
  kept: t.kept,
  received: t.received,
  first_seen: t.first_seen,
  last_seen: t.last_seen,
  ...sampleOf(t.newest),
});

/**
 * Events that came in on a topic with no hook (kept by the doors within
 * HOOKS_UNROUTED_*): list them by topic, read one topic's, replay them to the
 * hooks registered on the topic since, or drop them.
 */
export function unroutedRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  const notBefore = () => ctx.clock.now() - ctx.settings.unroutedRetentionMs;

  mount(
    router,
    listUnroutedTopics,
    async (req, res) => {
      // No query parameters (the declaration refuses any).
      const [topics, usage] = await Promise.all([ctx.stores.runs.listUnroutedTopics(notBefore()), ctx.stores.runs.unroutedUsage()]);
      res.json({
        topics: topics.map(topicToWire),
        bounds: {
          keep: ctx.settings.unroutedKeep,
          topics: ctx.settings.unroutedTopics,
          retention_seconds: ctx.settings.unroutedRetentionMs / 1000,
          max_bytes: ctx.settings.unroutedMaxBytes,
          event_max_bytes: ctx.settings.unroutedEventMaxBytes,
        },
        usage,
      });
    },
    opts,
  );

  mount(
    router,
    listUnrouted,
    async (req, res) => {
      // The topic and the query checked by the declaration.
      const { topic } = req.checked.params;
      const page = await ctx.stores.runs.listUnrouted(topic, notBefore(), req.checked.query.limit ?? PAGE_DEFAULT, req.checked.query.cursor ?? null);
      res.json({ topic, events: page.events, next_cursor: page.next_cursor });
    },
    opts,
  );

  // Like a replay of a run: the runs are door `api`, never verified (an operator keeps them, no signature is checked again).
  // A truncated event is not the event that came in (its payload is the start of the JSON text): it is
  // skipped, stays listed, and the answer counts it, so no run ever starts from a cut payload.
  mount(
    router,
    replayUnrouted,
    async (req, res) => {
      const { topic } = req.checked.params;
      const hooks = await ctx.stores.hooks.hooksOnTopic(topic);
      if (hooks.length === 0) {
        throw conflict(`no hook is registered on topic '${topic}'; register a hook on it first, then replay its unrouted events`);
      }
      const events: UnroutedEvent[] = [];
      let cursor: string | null = null;
      do {
        const page = await ctx.stores.runs.listUnrouted(topic, notBefore(), PAGE_MAX, cursor);
        events.push(...page.events);
        cursor = page.next_cursor;
      } while (cursor);
      events.reverse(); // oldest first: the runs keep the order the events came in
      const runIds: string[] = [];
      const replayed: string[] = [];
      let truncated = 0;
      for (const event of events) {
        if (event.payload_truncated) {
          truncated += 1;
          continue;
        }
        const now = ctx.clock.now();
        const kept = await ctx.stores.runs.keepEvent({
          topic,
          payload: event.payload,
          deliveryId: event.delivery_id,
          door: 'api',
          verified: false,
          now,
          dispatchGraceMs: ctx.settings.dispatchGraceMs,
        });
        // A hook removed meanwhile keeps nothing: the event stays unrouted.
        if (kept.length === 0) continue;
        replayed.push(event.id);
        runIds.push(...kept.map((k) => k.id));
        if (ctx.events) for (const summary of acceptedSummaries(topic, kept, now)) ctx.events.publish(summary).catch(() => undefined);
      }
      await ctx.stores.runs.removeUnrouted(topic, replayed);
      ctx.logger.info({ topic, events: replayed.length, runs: runIds.length, truncated }, 'unrouted events replayed by an operator');
      if (runIds.length > 0) {
        try {
          await ctx.bus.publish(runIds);
          ctx.metrics.dispatched.inc({ source: 'replay' }, runIds.length);
        } catch (err) {
          ctx.logger.warn({ err, topic, runs: runIds.length }, 'publish of replayed unrouted events failed; the sweep will dispatch them');
        }
      }
      res.json({
        topic,
        replayed: replayed.length,
        runs: runIds.length,
        run_ids: runIds,
        hooks: hooks.map((h) => h.name),
        skipped_truncated: truncated,
        ...(truncated > 0 ? { message: truncatedMessage(topic, truncated) } : {}),
      });
    },
    opts,
  );

  mount(
    router,
    dropUnrouted,
    async (req, res) => {
      const { topic } = req.checked.params;
      const removed = await ctx.stores.runs.removeUnrouted(topic);
      ctx.logger.info({ topic, removed }, 'unrouted events dropped by an operator');
      res.json({ topic, removed });
    },
    opts,
  );
}
