import type { UnroutedBounds, UnroutedEvent, UnroutedPage, UnroutedTopic } from '../types';
import { pageIds, toPage } from '../unrouted-rules';

interface TopicSlot {
  /** Oldest first (by received time, then id). */
  events: Array<{ ms: number; event: UnroutedEvent }>;
  received: number;
  firstMs: number;
  lastMs: number;
}

/**
 * Events on topics with no hook, in one process: the memory store's twin of
 * keep_unrouted.lua. The map's order is the order topics were last seen
 * (a keep moves its topic to the end), so the topic seen longest ago is first.
 */
export class MemoryUnrouted {
  private readonly topics = new Map<string, TopicSlot>();

  keep(event: UnroutedEvent, bounds: UnroutedBounds, now: number): void {
    if (bounds.keep < 1) return;
    const cutoff = now - bounds.retentionMs;
    for (const [topic, slot] of this.topics) {
      if (slot.lastMs >= cutoff) break;
      this.topics.delete(topic);
    }
    let slot = this.topics.get(event.topic);
    if (slot) {
      slot.events = slot.events.filter((e) => e.ms >= cutoff);
      this.topics.delete(event.topic);
    }
    if (!slot || slot.events.length === 0) slot = { events: [], received: 0, firstMs: now, lastMs: now };
    slot.received += 1;
    slot.lastMs = now;
    slot.events.push({ ms: now, event: structuredClone(event) });
    slot.events.sort((a, b) => a.ms - b.ms || (a.event.id < b.event.id ? -1 : 1));
    if (slot.events.length > bounds.keep) slot.events.splice(0, slot.events.length - bounds.keep);
    this.topics.set(event.topic, slot);
    for (const topic of this.topics.keys()) {
      if (this.topics.size <= bounds.topics) break;
      this.topics.delete(topic);
    }
  }

  listTopics(notBefore: number): UnroutedTopic[] {
    const out: UnroutedTopic[] = [];
    for (const [topic, slot] of this.topics) {
      const live = slot.events.filter((e) => e.ms >= notBefore);
      if (live.length === 0) continue;
      out.push({
        topic,
        kept: live.length,
        received: slot.received,
        first_seen: new Date(slot.firstMs).toISOString(),
        last_seen: new Date(slot.lastMs).toISOString(),
        newest: structuredClone(live[live.length - 1]!.event),
      });
    }
    return out.reverse();
  }

  list(topic: string, notBefore: number, limit: number, cursor?: string | null): UnroutedPage {
    const live = (this.topics.get(topic)?.events ?? []).filter((e) => e.ms >= notBefore);
    const byId = new Map(live.map((e) => [e.event.id, e.event]));
    const page = pageIds([...byId.keys()], limit, cursor);
    return toPage(
      page.ids.map((id) => structuredClone(byId.get(id)!)),
      page.next,
    );
  }

  remove(topic: string, ids?: readonly string[]): number {
    const slot = this.topics.get(topic);
    if (!slot) return 0;
    const before = slot.events.length;
    if (ids === undefined) slot.events = [];
    else {
      const gone = new Set(ids);
      slot.events = slot.events.filter((e) => !gone.has(e.event.id));
    }
    if (slot.events.length === 0) this.topics.delete(topic);
    return before - slot.events.length;
  }
}
