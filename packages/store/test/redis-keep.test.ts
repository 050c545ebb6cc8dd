import Redis from 'ioredis';
import { openDeclaration } from '@hookyard/core';
import type { StateStore } from '@hookyard/core';
import { createRedisStores } from '../src';
import type { Stores } from '../src';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { TcpProxy } from '../../../test/support/tcp-proxy';
import { KeyLayout } from '../src/redis/keys';
import { Scripts } from '../src/redis/scripts';
import { MAX_HOOKS_PER_EVENT, deliveryPartition, runIdBase } from '../src/run-ids';
import { T0, hook, rejection } from './fixtures';

/**
 * keep_event on real Redis when the connection fails at the worst moment: the
 * script ran, its answer was lost. ioredis re-sends a command whose answer a
 * dropped connection cut off; the script must recognise its own re-send.
 */
const prefix = uniquePrefix('keep');
let url = '';
let n = 0;
const input = (topic: string, now = T0) => ({ topic, payload: { n: 1 }, now, dispatchGraceMs: 0 });
/** Waits (bounded) until the store's connection is back: ping fails at once while it reconnects. */
async function connected(s: Stores): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (
      await s.ping().then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the store did not reconnect');
}
const runsOf = async (s: Stores, topic: string) => (await s.runs.list({ topic }, 100)).runs.length;

beforeAll(async () => {
  url = await requireRedis();
});
afterAll(() => deleteRedisKeys(prefix, url));

describe('keep_event on Redis', () => {
  it('a re-sent script (same id base) answers the runs it kept and writes nothing, with or without a claim', async () => {
    const p = `${prefix}r${(n += 1)}`;
    const s = await createRedisStores({ url, prefix: p, partitions: 2 });
    const client = new Redis(url);
    try {
      await s.hooks.putHook(hook('a', 't'));
      await s.hooks.putHook(hook('b', 't'));
      const keys = new KeyLayout(p);
      const scripts = new Scripts(client);
      const args = (base: string, part: number, delivery = '') => [keys.tag(part), base, 't', '{}', delivery, T0, T0, MAX_HOOKS_PER_EVENT, 'event on t', ''];
      const open = runIdBase(T0, 1);
      const sent = async () => scripts.run('keep_event', [keys.topicHooks(1, 't'), keys.due(1)], args(open, 1));
      const first = await sent();
      expect(first).toHaveLength(5);
      expect(await sent()).toEqual(first);
      expect(await runsOf(s, 't')).toBe(2);

      const part = deliveryPartition('t', 'd-1', 2);
      const claimed = runIdBase(T0, part);
      const claimKeys = [keys.topicHooks(part, 't'), keys.due(part), keys.delivery(part, 't', 'd-1')];
      const once = await scripts.run('keep_event', claimKeys, [...args(claimed, part, 'd-1'), 60_000]);
      expect(await scripts.run('keep_event', claimKeys, [...args(claimed, part, 'd-1'), 60_000])).toEqual(once);
      // Another keep of the same delivery (a new id base) is the duplicate.
      expect((await scripts.run('keep_event', claimKeys, [...args(runIdBase(T0, part), part, 'd-1'), 60_000]))[0]).toBe(1);
      expect(await runsOf(s, 't')).toBe(4);
    } finally {
      client.disconnect();
      await s.close();
    }
  });

  describe('through a proxy that drops the answer', () => {
    let proxy: TcpProxy;
    beforeEach(async () => {
      const u = new URL(url);
      proxy = await TcpProxy.start({ host: u.hostname, port: Number(u.port || 6379) });
    });
    afterEach(() => proxy.close());

    it('an answer lost while Redis stays away is outcome unknown; the keep did commit, so the retry is a duplicate', async () => {
      const p = `${prefix}u${(n += 1)}`;
      const direct = await createRedisStores({ url, prefix: p, partitions: 3 });
      const s = await createRedisStores({ url: proxy.url, prefix: p, partitions: 3, commandTimeoutMs: 1_000 });
      try {
        await direct.hooks.putHook(hook('h', 'gh'));
        // The script is in Redis's cache: the cut answer is its result, not a NOSCRIPT before it.
        await s.runs.keepEvent(input('warm'));
        proxy.cutNextReply();
        const e = await rejection(s.runs.keepDelivery(input('gh'), { id: 'd-7', ttlMs: 60_000 }));
        expect(proxy.cuts).toBe(1);
        expect([e.kind, e.outcomeUnknown, e.notSent]).toEqual(['unavailable', true, false]);
        expect(e.message).toContain('outcome unknown');
        expect(await runsOf(direct, 'gh')).toBe(1);
        proxy.restore();
        // The sender's retry, through the same store once it is back.
        await connected(s);
        expect(await s.runs.keepDelivery(input('gh', T0 + 5), { id: 'd-7', ttlMs: 60_000 })).toEqual({ status: 'duplicate' });
        expect(await runsOf(direct, 'gh')).toBe(1);
      } finally {
        await s.close();
        await direct.close();
      }
    });

    it('any write whose answer is lost is outcome unknown; one issued while the connection is down is not sent at once and never lands later', async () => {
      const p = `${prefix}w${(n += 1)}`;
      const direct = await createRedisStores({ url, prefix: p, partitions: 2 });
      const s = await createRedisStores({ url: proxy.url, prefix: p, partitions: 2, commandTimeoutMs: 1_000 });
      const subject = (key: string) => ({ scope: 'github', kind: 'pull_request', key });
      const by = { door: 'api' as const, actor: 'operator:ab12cd34', hook: null };
      try {
        await direct.declarations.putDeclaration(openDeclaration('github', 'pull_request', 'written below'), T0);
        await s.states.set(subject('warm'), {}, { ...by, now: T0 });
        proxy.cutReplyTo('acme/api#lost');
        const lost = await rejection(s.states.set(subject('acme/api#lost'), { n: 1 }, { ...by, now: T0 }));
        expect(proxy.cuts).toBe(1);
        expect([lost.kind, lost.outcomeUnknown, lost.notSent, lost.message]).toEqual([
          'unavailable',
          true,
          false,
          'redis put_state outcome unknown: Command timed out',
        ]);
        // Redis is away (the proxy refuses): the next write is refused before it is sent.
        // (The declared-state check reads the declaration first: that read fails, and the write is not made.)
        const checked = await rejection(s.states.set(subject('acme/api#never'), { n: 2 }, { ...by, now: T0 }));
        expect([checked.kind, checked.outcomeUnknown]).toEqual(['unavailable', false]);
        const putState = (s.states as unknown as { inner: StateStore }).inner;
        const never = await rejection(putState.set(subject('acme/api#never'), { n: 2 }, { ...by, now: T0 }));
        expect([never.kind, never.notSent, never.outcomeUnknown]).toEqual(['unavailable', true, false]);
        expect(never.message).toMatch(/^redis put_state not sent: connection is [a-z]+$/);
        // A plain write (no script) is decided the same way.
        const plain = await rejection(s.hooks.putTemplate({ id: 'never', content: '.' }));
        expect([plain.kind, plain.notSent, plain.outcomeUnknown]).toEqual(['unavailable', true, false]);
        proxy.restore();
        // Back: anything ioredis held for the connection is written before the ping that says so.
        await connected(s);
        expect((await direct.states.get(subject('acme/api#lost')))?.document).toEqual({ n: 1 });
        expect(await direct.states.get(subject('acme/api#never'))).toBeNull();
        expect(await direct.hooks.getTemplate('never')).toBeNull();
      } finally {
        await s.close();
        await direct.close();
      }
    });

    it('a cut answer re-sent by the client on reconnect keeps once, with a claim and without', async () => {
      const p = `${prefix}c${(n += 1)}`;
      const direct = await createRedisStores({ url, prefix: p, partitions: 3 });
      const s = await createRedisStores({ url: proxy.url, prefix: p, partitions: 3 });
      try {
        await direct.hooks.putHook(hook('h', 'open'));
        await direct.hooks.putHook(hook('h2', 'signed'));
        // The script is in Redis's cache: the cut answer is its result, not a NOSCRIPT before it.
        await s.runs.keepEvent(input('warm'));
        proxy.cutNextReply({ refuse: false });
        const kept = await s.runs.keepEvent(input('open'));
        expect(proxy.cuts).toBe(1);
        expect(kept.map((k) => k.hook)).toEqual(['h']);
        expect(await runsOf(direct, 'open')).toBe(1);
        proxy.cutNextReply({ refuse: false });
        const claimed = await s.runs.keepDelivery(input('signed'), { id: 'd-9', ttlMs: 60_000 });
        expect(proxy.cuts).toBe(2);
        expect(claimed.status === 'kept' && claimed.runs.map((k) => k.hook)).toEqual(['h2']);
        expect(await runsOf(direct, 'signed')).toBe(1);
      } finally {
        await s.close();
        await direct.close();
      }
    });
  });
});
