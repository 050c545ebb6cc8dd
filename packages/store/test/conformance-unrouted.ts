import type { Stores, UnroutedEvent } from '../src';
import { T0, hook } from './fixtures';

const DAY = 86_400_000;
const MiB = 1024 * 1024;
const bounds = (keep = 100, topics = 1000, retentionMs = 7 * DAY, maxBytes = 16 * MiB, eventMaxBytes = 64 * 1024) => ({
  keep,
  topics,
  retentionMs,
  maxBytes,
  eventMaxBytes,
});
const event = (topic: string, now: number, n: number, extra: Record<string, unknown> = {}) => ({
  topic,
  payload: { n },
  now,
  dispatchGraceMs: 0,
  door: 'http' as const,
  unrouted: bounds(),
  ...extra,
});

/** Every kept event, every topic, read back through the store's own reads. */
async function keptEvents(s: Stores): Promise<UnroutedEvent[]> {
  const out: UnroutedEvent[] = [];
  for (const t of await s.runs.listUnroutedTopics(0)) {
    let cursor: string | null = null;
    do {
      const page = await s.runs.listUnrouted(t.topic, 0, 500, cursor);
      out.push(...page.events);
      cursor = page.next_cursor;
    } while (cursor);
  }
  return out;
}
/** The bytes of their JSON, as the budget counts them. */
const bytesOf = (events: readonly UnroutedEvent[]) => events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);

/**
 * Events on a topic with no hook (KeepEventInput.unrouted): kept in the keep
 * that finds no hook, within the per-topic, topic-count and time bounds;
 * listed by topic and paged newest first; removed by id or all.
 */
export function describeUnroutedConformance(stores: () => Stores): void {
  describe('unrouted events (a topic with no hook)', () => {
    it('keeps an event on a topic with no hook with its door, verified, delivery id and time; lists the topic with counts and the newest', async () => {
      const s = stores();
      expect(await s.runs.keepEvent(event('githib', T0, 1, { deliveryId: 'd-1' }))).toEqual([]);
      const dup = await s.runs.keepDelivery(event('githib', T0 + 5, 2, { door: 'nats', verified: false }), { id: 'm-2', ttlMs: 60_000 });
      expect(dup).toEqual({ status: 'kept', runs: [] });
      const topics = await s.runs.listUnroutedTopics(T0 - DAY);
      expect(topics).toEqual([
        {
          topic: 'githib',
          kept: 2,
          received: 2,
          first_seen: new Date(T0).toISOString(),
          last_seen: new Date(T0 + 5).toISOString(),
          newest: expect.objectContaining({ payload: { n: 2 }, door: 'nats', delivery_id: 'm-2' }),
        },
      ]);
      const page = await s.runs.listUnrouted('githib', T0 - DAY, 10);
      expect(page.next_cursor).toBeNull();
      expect(page.events.map(({ id: _id, ...e }) => e)).toEqual([
        {
          topic: 'githib',
          payload: { n: 2 },
          payload_truncated: false,
          door: 'nats',
          verified: false,
          delivery_id: 'm-2',
          received_at: new Date(T0 + 5).toISOString(),
        },
        {
          topic: 'githib',
          payload: { n: 1 },
          payload_truncated: false,
          door: 'http',
          verified: false,
          delivery_id: 'd-1',
          received_at: new Date(T0).toISOString(),
        },
      ]);
      // A delivery claimed with the unrouted keep is a duplicate on its repeat: kept once.
      expect(await s.runs.keepDelivery(event('githib', T0 + 6, 3, { door: 'nats' }), { id: 'm-2', ttlMs: 60_000 })).toEqual({ status: 'duplicate' });
      expect((await s.runs.listUnrouted('githib', T0 - DAY, 10)).events).toHaveLength(2);
    });

    it('keeps nothing unrouted without the bounds (a replay, a platform event), nor on a topic with a hook', async () => {
      const s = stores();
      await s.hooks.putHook(hook('h', 'routed'));
      await s.runs.keepEvent({ topic: 'nobody', payload: {}, now: T0, dispatchGraceMs: 0 });
      expect(await s.runs.keepEvent(event('routed', T0, 1))).toHaveLength(1);
      await s.runs.keepEvent(event('zero', T0, 1, { unrouted: bounds(0) }));
      expect(await s.runs.listUnroutedTopics(T0 - DAY)).toEqual([]);
    });

    it('keeps the newest N per topic (HOOKS_UNROUTED_KEEP) and counts every one received; pages newest first', async () => {
      const s = stores();
      for (let i = 1; i <= 5; i += 1) await s.runs.keepEvent(event('typo', T0 + i, i, { unrouted: bounds(3) }));
      const [topic] = await s.runs.listUnroutedTopics(T0 - DAY);
      expect(topic).toMatchObject({ topic: 'typo', kept: 3, received: 5, first_seen: new Date(T0 + 1).toISOString(), newest: { payload: { n: 5 } } });
      const first = await s.runs.listUnrouted('typo', T0 - DAY, 2);
      expect(first.events.map((e) => e.payload)).toEqual([{ n: 5 }, { n: 4 }]);
      const second = await s.runs.listUnrouted('typo', T0 - DAY, 2, first.next_cursor);
      expect(second.events.map((e) => e.payload)).toEqual([{ n: 3 }]);
      expect(second.next_cursor).toBeNull();
    });

    it('keeps at most the topic bound (HOOKS_UNROUTED_TOPICS): the topic last seen longest ago goes with its events', async () => {
      const s = stores();
      const few = bounds(10, 3);
      await s.runs.keepEvent(event('t-a', T0 + 1, 1, { unrouted: few }));
      await s.runs.keepEvent(event('t-b', T0 + 2, 2, { unrouted: few }));
      await s.runs.keepEvent(event('t-c', T0 + 3, 3, { unrouted: few }));
      await s.runs.keepEvent(event('t-a', T0 + 4, 4, { unrouted: few })); // t-a seen again: t-b is now the oldest
      await s.runs.keepEvent(event('t-d', T0 + 5, 5, { unrouted: few }));
      expect((await s.runs.listUnroutedTopics(T0 - DAY)).map((t) => t.topic)).toEqual(['t-d', 't-a', 't-c']);
      expect((await s.runs.listUnrouted('t-b', T0 - DAY, 10)).events).toEqual([]);
    });

    it('drops events past the retention: hidden from reads at once, deleted by the next keep', async () => {
      const s = stores();
      const short = bounds(10, 10, 1000);
      await s.runs.keepEvent(event('old', T0, 1, { unrouted: short }));
      await s.runs.keepEvent(event('mixed', T0, 1, { unrouted: short }));
      await s.runs.keepEvent(event('mixed', T0 + 900, 2, { unrouted: short }));
      expect((await s.runs.listUnroutedTopics(T0 + 500 - 1000)).map((t) => t.topic).sort()).toEqual(['mixed', 'old']);
      // Later: reads see only what is within the retention.
      expect((await s.runs.listUnroutedTopics(T0 + 1500 - 1000)).map((t) => [t.topic, t.kept])).toEqual([['mixed', 1]]);
      await s.runs.keepEvent(event('mixed', T0 + 1500, 3, { unrouted: short }));
      expect((await s.runs.listUnrouted('mixed', 0, 10)).events.map((e) => e.payload)).toEqual([{ n: 3 }, { n: 2 }]);
      expect((await s.runs.listUnrouted('old', 0, 10)).events).toEqual([]);
    });

    it('removes events by id, or all of a topic; a topic with none left is no longer listed', async () => {
      const s = stores();
      for (let i = 1; i <= 3; i += 1) await s.runs.keepEvent(event('rm', T0 + i, i));
      await s.runs.keepEvent(event('other', T0, 9));
      const ids = (await s.runs.listUnrouted('rm', 0, 10)).events.map((e) => e.id);
      expect(await s.runs.removeUnrouted('rm', [ids[0]!, 'not-an-id'])).toBe(1);
      expect(await s.runs.removeUnrouted('rm', [])).toBe(0);
      expect((await s.runs.listUnrouted('rm', 0, 10)).events.map((e) => e.payload)).toEqual([{ n: 2 }, { n: 1 }]);
      expect(await s.runs.removeUnrouted('rm')).toBe(2);
      expect(await s.runs.removeUnrouted('rm')).toBe(0);
      expect((await s.runs.listUnroutedTopics(0)).map((t) => t.topic)).toEqual(['other']);
    });

    it('holds every kept event within HOOKS_UNROUTED_MAX_BYTES while many large events arrive on many topics: the oldest go first, counted', async () => {
      const s = stores();
      const budget = bounds(100, 1000, 7 * DAY, 64 * 1024, 8 * 1024);
      const seen: number[] = [];
      for (let i = 0; i < 120; i += 1) {
        // About 6 KiB each, over 6 topics: 720 KiB sent, ten times the budget.
        await s.runs.keepEvent(event(`flood-${i % 6}`, T0 + i, i, { unrouted: budget, payload: { n: i, pad: 'p'.repeat(6000) } }));
        if (i % 20 === 19) seen.push(bytesOf(await keptEvents(s)));
      }
      const kept = await keptEvents(s);
      expect(bytesOf(kept)).toBeLessThanOrEqual(64 * 1024);
      expect(seen.every((b) => b <= 64 * 1024)).toBe(true);
      // The newest are the ones kept: every n kept is above every n dropped.
      const ns = kept.map((e) => (e.payload as { n: number }).n).sort((a, b) => a - b);
      expect(ns).toEqual(Array.from({ length: ns.length }, (_, k) => 120 - ns.length + k));
      expect(await s.runs.unroutedUsage()).toEqual({ events: kept.length, bytes: bytesOf(kept), dropped: 120 - kept.length });
      expect(kept.length).toBeGreaterThan(5);
    });

    it('cuts an event past HOOKS_UNROUTED_EVENT_MAX_BYTES to the start of its payload, marked payload_truncated, within the cut', async () => {
      const s = stores();
      const cut = bounds(100, 1000, 7 * DAY, 1 * MiB, 2048);
      await s.runs.keepEvent(event('big', T0 + 1, 1, { unrouted: cut, payload: { text: 'x'.repeat(10_000) } }));
      // Quotes and two-byte characters: escaping grows the kept string, and a character is never split.
      await s.runs.keepEvent(event('big', T0 + 2, 2, { unrouted: cut, payload: { text: 'é"\\'.repeat(3000) } }));
      // Four-byte characters (a surrogate pair each in JS): never cut in half.
      await s.runs.keepEvent(event('big', T0 + 3, 3, { unrouted: cut, payload: { text: '\u{1F600}'.repeat(3000) } }));
      await s.runs.keepEvent(event('big', T0 + 4, 4, { unrouted: cut }));
      const [small, emoji, quoted, long] = (await s.runs.listUnrouted('big', 0, 10)).events;
      expect(small).toMatchObject({ payload: { n: 4 }, payload_truncated: false });
      for (const e of [long!, quoted!, emoji!]) {
        expect(e.payload_truncated).toBe(true);
        expect(typeof e.payload).toBe('string');
        const bytes = Buffer.byteLength(JSON.stringify(e));
        expect(bytes).toBeLessThanOrEqual(2048);
        expect(bytes).toBeGreaterThan(2048 - 8);
      }
      expect(long!.payload).toMatch(/^\{"text":"x+$/);
      expect(quoted!.payload).toMatch(/^\{"text":"(é\\"\\\\)+/);
      expect(quoted!.payload as string).not.toContain('\uFFFD');
      expect(emoji!.payload).toMatch(/^\{"text":"(\u{1F600})+$/u);
      expect((await s.runs.unroutedUsage()).bytes).toBe(bytesOf([small!, emoji!, quoted!, long!]));
    });

    it('every way an event leaves (per-topic bound, topic bound, retention, removal) takes its bytes off the usage', async () => {
      const s = stores();
      const b = bounds(2, 2, 1000);
      for (let i = 1; i <= 3; i += 1) await s.runs.keepEvent(event('u-a', T0 + i, i, { unrouted: b }));
      await s.runs.keepEvent(event('u-b', T0 + 4, 4, { unrouted: b }));
      await s.runs.keepEvent(event('u-c', T0 + 5, 5, { unrouted: b })); // u-a goes
      expect(await s.runs.unroutedUsage()).toEqual({ events: 2, bytes: bytesOf(await keptEvents(s)), dropped: 0 });
      await s.runs.keepEvent(event('u-c', T0 + 1005, 6, { unrouted: b })); // u-b past the retention
      expect((await keptEvents(s)).map((e) => e.payload)).toEqual([{ n: 6 }, { n: 5 }]);
      expect(await s.runs.unroutedUsage()).toEqual({ events: 2, bytes: bytesOf(await keptEvents(s)), dropped: 0 });
      const [newest] = (await s.runs.listUnrouted('u-c', 0, 1)).events;
      await s.runs.removeUnrouted('u-c', [newest!.id]);
      expect((await s.runs.unroutedUsage()).bytes).toBe(bytesOf(await keptEvents(s)));
      await s.runs.removeUnrouted('u-c');
      expect(await s.runs.unroutedUsage()).toEqual({ events: 0, bytes: 0, dropped: 0 });
    });
  });
}
