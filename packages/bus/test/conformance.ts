import { HookyardError } from '@hookyard/core';
import { HINT_MAX_PAYLOAD_BYTES } from '../src';
import type { RunBus, Subscription } from '../src';
import { gate, ids, sleep, waitFor } from './support';

/** One isolated bus world (its own stream or queue), fresh for each test. */
export interface BusWorld {
  /** A replica on this world: a separate connection for JetStream, the same bus for memory. */
  replica(): Promise<RunBus>;
  dispose(): Promise<void>;
}

/** The behaviour every RunBus must show, run by memory.test.ts and jetstream.test.ts. */
export function runBusConformance(name: string, openWorld: () => Promise<BusWorld>): void {
  describe(`RunBus conformance: ${name}`, () => {
    let world: BusWorld;
    const subs: Subscription[] = [];
    beforeEach(async () => {
      world = await openWorld();
    });
    afterEach(async () => {
      for (const s of subs.splice(0)) await s.stop();
      await world.dispose();
    });

    it('delivers every published id, across several messages', async () => {
      const bus = await world.replica();
      const seen = new Set<string>();
      subs.push(await bus.subscribe(async (id) => void seen.add(id), { concurrency: 8 }));
      const sent = ids('a', 250);
      await bus.publish(sent.slice(0, 230));
      await bus.publish(sent.slice(230));
      await bus.publish([]);
      await waitFor('all 250 ids', () => seen.size >= sent.length);
      expect([...seen].sort()).toEqual([...sent].sort());
    });

    it('hands each id its plan hint, the payload text byte for byte; ids without one (or past the bounds) get none', async () => {
      const bus = await world.replica();
      const got = new Map<string, unknown>();
      subs.push(await bus.subscribe(async (id, _tp, hint) => void got.set(id, hint), { concurrency: 8 }));
      const sent = ids('h', 130);
      const big = JSON.stringify({ blob: 'x'.repeat(HINT_MAX_PAYLOAD_BYTES) });
      // One payload shared by many ids (a fan-out) travels once; this one per id tests the alignment.
      const text = (i: number) => `{\n  "n": ${i},\r\n  "s": "a\\nb"\n}`;
      const hints = sent.map((_, i) => (i % 3 === 2 ? undefined : { hook: `hook-${i}`, topic: 'orders', payloadJson: i === 4 ? big : text(i) }));
      await bus.publish(sent, { hints });
      await bus.publish(['bare-1']);
      await waitFor('all 131 ids', () => got.size >= 131);
      expect(got.get(sent[0]!)).toEqual({ hook: 'hook-0', topic: 'orders', payloadJson: text(0) });
      // Past the first message of 100 ids: the hints stay aligned with their ids.
      expect(got.get(sent[129]!)).toEqual({ hook: 'hook-129', topic: 'orders', payloadJson: text(129) });
      expect(got.get(sent[2]!)).toBeUndefined();
      expect(got.get('bare-1')).toBeUndefined();
      // The in-process bus hands over any payload; a JetStream message carries none past HINT_MAX_PAYLOAD_BYTES.
      if (bus.kind === 'jetstream') expect(got.get(sent[4]!)).toBeUndefined();
      else expect(got.get(sent[4]!)).toMatchObject({ hook: 'hook-4' });
      // Distinct payloads past one message's header budget (NATS refuses headers past 64 KiB): every id still arrives.
      const many = ids('m', 50);
      await bus.publish(many, { hints: many.map((id) => ({ hook: 'h', topic: 't', payloadJson: JSON.stringify({ id, pad: 'p'.repeat(4000) }) })) });
      await waitFor('all 50 ids of large distinct payloads', () => many.every((id) => got.has(id)));
      expect(many.filter((id) => got.get(id) !== undefined).length).toBeGreaterThan(0);
    });

    it('never runs more handlers at once than the concurrency asked for', async () => {
      const bus = await world.replica();
      let inFlight = 0;
      let max = 0;
      let done = 0;
      subs.push(
        await bus.subscribe(
          async () => {
            inFlight += 1;
            max = Math.max(max, inFlight);
            await sleep(5);
            inFlight -= 1;
            done += 1;
          },
          { concurrency: 3 },
        ),
      );
      await bus.publish(ids('c', 30));
      await bus.publish(ids('d', 10));
      await waitFor('40 handlers done', () => done >= 40);
      expect(max).toBe(3);
    });

    it('resize: growing admits more at once from the next id, shrinking cancels nothing in flight', async () => {
      const bus = await world.replica();
      const hold = gate();
      const started: string[] = [];
      let finished = 0;
      const sub = await bus.subscribe(
        async (id) => {
          started.push(id);
          await hold.wait;
          finished += 1;
        },
        { concurrency: 2 },
      );
      subs.push(sub);
      await bus.publish(ids('g', 6));
      await waitFor('2 handlers held', () => started.length === 2);
      sub.resize(5);
      await waitFor('5 handlers held once grown to 5', () => started.length === 5);
      // Shrinking below what runs: the 5 in flight go on, nothing new is admitted until they settle.
      sub.resize(1);
      expect(() => sub.resize(0)).toThrow(expect.objectContaining({ kind: 'bad_input' }));
      hold.open();
      await waitFor('all 6 handlers done', () => finished === 6);
      expect(started).toHaveLength(6);
    });

    it('shares the work between two replicas without losing an id', async () => {
      const a = await world.replica();
      const b = await world.replica();
      const byA = new Set<string>();
      const byB = new Set<string>();
      const slow = (into: Set<string>) => async (id: string) => {
        await sleep(2);
        into.add(id);
      };
      subs.push(await a.subscribe(slow(byA), { concurrency: 2 }));
      subs.push(await b.subscribe(slow(byB), { concurrency: 2 }));
      const sent = ids('r', 200);
      for (let i = 0; i < sent.length; i += 10) await a.publish(sent.slice(i, i + 10));
      await waitFor('200 ids across both replicas', () => new Set([...byA, ...byB]).size >= sent.length);
      expect(new Set([...byA, ...byB])).toEqual(new Set(sent));
      expect(byA.size).toBeGreaterThan(0);
      expect(byB.size).toBeGreaterThan(0);
    });

    it('keeps delivering when a handler throws', async () => {
      const bus = await world.replica();
      const ok = new Set<string>();
      let thrown = 0;
      subs.push(
        await bus.subscribe(
          async (id) => {
            if (id.endsWith('-0') || id.endsWith('5')) {
              thrown += 1;
              throw new Error(`handler failed on ${id}`);
            }
            ok.add(id);
          },
          { concurrency: 2 },
        ),
      );
      const sent = ids('t', 20);
      await bus.publish(sent.slice(0, 10));
      await bus.publish(sent.slice(10));
      const expected = sent.filter((id) => !(id.endsWith('-0') || id.endsWith('5')));
      await waitFor('the ids whose handler did not throw', () => ok.size >= expected.length);
      expect([...ok].sort()).toEqual(expected.sort());
      expect(thrown).toBeGreaterThanOrEqual(3);
    });

    it('stop() resolves only after the handlers in flight settled, and takes no new ids', async () => {
      const bus = await world.replica();
      const hold = gate();
      const started: string[] = [];
      const events: string[] = [];
      const sub = await bus.subscribe(
        async (id) => {
          started.push(id);
          await hold.wait;
          events.push(`done ${id}`);
        },
        { concurrency: 1 },
      );
      await bus.publish(['s-1']);
      await waitFor('the handler to start', () => started.length === 1);
      const stopping = sub.stop().then(() => events.push('stopped'));
      await sleep(50);
      expect(events).toEqual([]);
      hold.open();
      await stopping;
      expect(events).toEqual(['done s-1', 'stopped']);
      await bus.publish(['s-2']);
      await sleep(200);
      expect(started).toEqual(['s-1']);
    });

    it('rejects a publish after close with an unavailable error', async () => {
      const bus = await world.replica();
      await bus.ping();
      await bus.close();
      const err = await bus.publish(['x-1']).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(HookyardError);
      expect((err as HookyardError).kind).toBe('unavailable');
      await expect(bus.ping()).rejects.toMatchObject({ kind: 'unavailable' });
    });

    it('refuses a concurrency that is not a positive integer', async () => {
      const bus = await world.replica();
      await expect(bus.subscribe(async () => undefined, { concurrency: 0 })).rejects.toMatchObject({ kind: 'bad_input' });
    });
  });
}
