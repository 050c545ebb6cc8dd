import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { storeError } from './replies';
import type { Scripts } from './scripts';
import type { KeepEventInput, UnroutedEvent, UnroutedPage, UnroutedTopic, UnroutedUsage } from '../types';
import { pageIds, parseUnroutedEvent as parseEvent, toPage, unroutedRecordOf } from '../unrouted-rules';

const iso = (ms: unknown) => new Date(Number(ms)).toISOString();

/**
 * Events on topics with no hook, on Redis: all in one hash tag of their own
 * ({prefix:unrouted}, see keys.ts). keep_event runs in a run partition's slot
 * and finds the topic's hooks there; this keeps the event right after it
 * found none, before the door answers. Not one atomic step with keep_event
 * (two slots on a Redis Cluster), so a hook registered between the two leaves
 * the event kept as unrouted (an operator's replay keeps its run), and a keep
 * that fails here fails the door's answer (the sender retries). The byte
 * budget is enforced in the same script as the keep, so no reader ever sees
 * more kept than HOOKS_UNROUTED_MAX_BYTES.
 */
export class RedisUnrouted {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
  ) {}

  async keep(input: KeepEventInput, deliveryId: string | null): Promise<void> {
    const bounds = input.unrouted;
    if (!bounds || bounds.keep < 1) return;
    const record = unroutedRecordOf(input, deliveryId, bounds.eventMaxBytes);
    const tag = this.keys.unroutedTag;
    const args = [tag, input.topic, record.id, record.json, input.now, bounds.keep, bounds.topics, bounds.retentionMs, bounds.maxBytes];
    const reply = await this.scripts.run('keep_unrouted', this.keys.unroutedKeys(input.topic), args);
    const dropped = Number(reply[3] ?? 0);
    if (dropped > 0) bounds.onDropped?.(dropped, input.now);
  }

  async usage(): Promise<UnroutedUsage> {
    const [, , , all, , usage] = this.keys.unroutedKeys('');
    try {
      const [events, [bytes, dropped]] = await Promise.all([this.client.zcard(all!), this.client.hmget(usage!, 'bytes', 'dropped')]);
      return { events, bytes: Number(bytes ?? 0), dropped: Number(dropped ?? 0) };
    } catch (err) {
      throw storeError('read unrouted usage', err);
    }
  }

  async listTopics(notBefore: number): Promise<UnroutedTopic[]> {
    try {
      const [index] = this.keys.unroutedKeys('');
      const topics = await this.client.zrevrangebyscore(index!, '+inf', notBefore);
      const rows = await Promise.all(
        topics.map(async (topic) => {
          const [, ev, data] = this.keys.unroutedKeys(topic);
          const [kept, meta, newest] = await Promise.all([
            this.client.zcount(ev!, notBefore, '+inf'),
            this.client.hmget(data!, '#received', '#first'),
            this.client.zrevrangebyscore(ev!, '+inf', notBefore, 'WITHSCORES', 'LIMIT', 0, 1),
          ]);
          if (kept === 0) return null;
          const newestId = newest[0];
          const event = newestId ? parseEvent(await this.client.hget(data!, newestId)) : null;
          return {
            topic,
            kept,
            received: Number(meta[0] ?? kept),
            first_seen: iso(meta[1] ?? newest[1]),
            last_seen: iso(newest[1]),
            newest: event,
          } satisfies UnroutedTopic;
        }),
      );
      return rows.filter((r): r is UnroutedTopic => r !== null);
    } catch (err) {
      throw storeError('list unrouted topics', err);
    }
  }

  async list(topic: string, notBefore: number, limit: number, cursor?: string | null): Promise<UnroutedPage> {
    const [, ev, data] = this.keys.unroutedKeys(topic);
    try {
      const ids = await this.client.zrangebyscore(ev!, notBefore, '+inf');
      const page = pageIds(ids, limit, cursor);
      if (page.ids.length === 0) return toPage([], null);
      const texts = await this.client.hmget(data!, ...page.ids);
      return toPage(
        texts.map(parseEvent).filter((e): e is UnroutedEvent => e !== null),
        page.next,
      );
    } catch (err) {
      throw storeError('list unrouted', err);
    }
  }

  async remove(topic: string, ids?: readonly string[]): Promise<number> {
    // The script reads no ids as "all": an empty list removes nothing.
    if (ids !== undefined && ids.length === 0) return 0;
    try {
      return Number(await this.scripts.run('drop_unrouted', this.keys.unroutedKeys(topic), [this.keys.unroutedTag, topic, ...(ids ?? [])]));
    } catch (err) {
      throw storeError('drop_unrouted', err);
    }
  }
}
