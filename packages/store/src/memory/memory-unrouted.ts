import type { UnroutedBounds, UnroutedPage, UnroutedTopic, UnroutedUsage } from '../types';
import { pageIds, parseUnroutedEvent, toPage, type UnroutedRecord } from '../unrouted-rules';

/** One kept event: its JSON text (what the byte budget counts, and all that is held). */
interface Kept extends UnroutedRecord {
  ms: number;
}

interface TopicSlot {
  /** Oldest first (by received time, then id). */
  events: Kept[];
  received: number;
  firstMs: number;
  lastMs: number;
}

const older = (a: Kept, b: Kept) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Events on topics with no hook, in one process: the memory store's twin of
 * keep_unrouted.lua. The map's order is the order topics were last seen
 * (a keep moves its topic to the end), so the topic seen longest ago is first.
 * Events are held as their JSON text, so the byte budget is what is held.
 */
export class MemoryUnrouted {
  private readonly topics = new Map<string, TopicSlot>();
  private usage: UnroutedUsage = { events: 0, bytes: 0, dropped: 0 };
  private lastKeepMs = -Infinity;

  keep(topic: string, record: UnroutedRecord, bounds: UnroutedBounds, now: number): void {
    if (bounds.keep < 1) return;
    const cutoff = now - bounds.retentionMs;
    // Idle for a whole retention: the count starts again (on Redis its key has expired).
    if (this.lastKeepMs < cutoff) this.usage.dropped = 0;
    this.lastKeepMs = Math.max(this.lastKeepMs, now);
    // Past the retention, on every topic (as keep_unrouted sweeps its index of every event).
    for (const [t, s] of this.topics) {
      if (s.lastMs < cutoff) this.dropTopic(t);
      else if (s.events[0]!.ms < cutoff) {
        this.forget(
          s,
          s.events.filter((e) => e.ms < cutoff),
        );
        if (s.events.length === 0 && t !== topic) this.topics.delete(t);
      }
    }
    let slot = this.topics.get(topic);
    if (slot) this.topics.delete(topic);
    // A topic whose events are all gone starts again: its counts are of what is kept since.
    if (!slot || slot.events.length === 0) slot = { events: [], received: 0, firstMs: now, lastMs: now };
    slot.received += 1;
    slot.lastMs = now;
    const kept: Kept = { ...record, ms: now };
    slot.events.push(kept);
    if (slot.events.length > 1 && older(slot.events[slot.events.length - 2]!, kept) > 0) slot.events.sort(older);
    this.usage.events += 1;
    this.usage.bytes += kept.bytes;
    if (slot.events.length > bounds.keep) this.forget(slot, slot.events.slice(0, slot.events.length - bounds.keep));
    this.topics.set(topic, slot);
    for (const t of this.topics.keys()) {
      if (this.topics.size <= bounds.topics) break;
      this.dropTopic(t);
    }
    const dropped = this.withinBudget(bounds.maxBytes);
    if (dropped > 0) bounds.onDropped?.(dropped, now);
  }

  /** Drops the oldest events of every topic until the kept bytes fit `maxBytes`; answers how many went. */
  private withinBudget(maxBytes: number): number {
    let dropped = 0;
    while (this.usage.bytes > maxBytes) {
      let oldest: [string, TopicSlot] | null = null;
      for (const entry of this.topics) {
        if (entry[1].events.length === 0) continue;
        if (!oldest || older(entry[1].events[0]!, oldest[1].events[0]!) < 0) oldest = entry;
      }
      if (!oldest) break;
      this.forget(oldest[1], [oldest[1].events[0]!]);
      if (oldest[1].events.length === 0) this.topics.delete(oldest[0]);
      dropped += 1;
    }
    this.usage.dropped += dropped;
    return dropped;
  }

  private forget(slot: TopicSlot, gone: readonly Kept[]): void {
    if (gone.length === 0) return;
    const set = new Set(gone);
    slot.events = slot.events.filter((e) => !set.has(e));
    this.usage.events -= gone.length;
    for (const e of gone) this.usage.bytes -= e.bytes;
  }

  private dropTopic(topic: string): void {
    const slot = this.topics.get(topic);
    if (!slot) return;
    this.forget(slot, slot.events);
    this.topics.delete(topic);
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
        newest: parseUnroutedEvent(live[live.length - 1]!.json),
      });
    }
    return out.reverse();
  }

  list(topic: string, notBefore: number, limit: number, cursor?: string | null): UnroutedPage {
    const live = (this.topics.get(topic)?.events ?? []).filter((e) => e.ms >= notBefore);
    const byId = new Map(live.map((e) => [e.id, e.json]));
    const page = pageIds([...byId.keys()], limit, cursor);
    return toPage(
      page.ids.map((id) => parseUnroutedEvent(byId.get(id))!),
      page.next,
    );
  }

  remove(topic: string, ids?: readonly string[]): number {
    const slot = this.topics.get(topic);
    if (!slot) return 0;
    const wanted = ids === undefined ? null : new Set(ids);
    const gone = wanted ? slot.events.filter((e) => wanted.has(e.id)) : slot.events;
    this.forget(slot, gone);
    if (slot.events.length === 0) this.topics.delete(topic);
    return gone.length;
  }

  usageNow(): UnroutedUsage {
    return { ...this.usage };
  }
}
