/**
 * The upgrade of a Redis store written before declared states: hook records
 * and state documents as the code before them kept them (a hook's subject with
 * no attach path, no declaration, no binding recorded).
 */
import Redis from 'ioredis';
import { createRedisStores, migrateFreeFormStates } from '../src';
import type { StateStore } from '@hookyard/core';
import type { Stores } from '../src';
import { requireRedis, uniquePrefix } from '../../../test/support/services';
import { T0, hook, rejection } from './fixtures';

const prefix = uniquePrefix('upgrade');
const subject = { scope: 'github', kind: 'pull_request', key_expr: { content: '.pr' } };
const pr = { scope: 'github', kind: 'pull_request', key: 'acme/api#7' };

describe('redis: free-form subject state upgraded at start', () => {
  let url = '';
  let admin: Redis;
  let stores: Stores;
  beforeAll(async () => {
    url = await requireRedis();
    admin = new Redis(url);
  });
  afterAll(async () => {
    await stores?.close();
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
      cursor = next;
      await Promise.all(keys.map((k) => admin.del(k)));
    } while (cursor !== '0');
    admin.disconnect();
  });

  it('declares open every state a hook binds or a document holds, binds those hooks to the whole document, and is recorded so a later start does not run it again', async () => {
    // As the code before declared states kept them: put_hook wrote the record and the topic index only.
    for (const name of ['checks', 'reviews']) {
      await admin.hset(`{${prefix}}:hooks`, name, JSON.stringify(hook(name, 'gh', { tool: 'state_merge', subject })));
      await admin.zadd(`{${prefix}}:topic:gh`, 0, name);
    }
    stores = await createRedisStores({ url, prefix, partitions: 2 });
    // Documents of an undeclared state, as the code before declared states wrote them: put_state (unchanged), under the declaration checks.
    const kept = (stores.states as unknown as { inner: StateStore }).inner;
    await kept.set(pr, { checks: 'green', reviews: { ann: 'ok' } }, { door: 'hook', actor: 'run-1', hook: 'checks', now: T0 });
    await kept.set({ scope: 'acme', kind: 'deploy', key: 'api' }, { at: 'v1' }, { door: 'api', actor: 'operator:x', hook: null, now: T0 });
    // Today's code refuses such a write until the state is declared; the upgrade declares it.
    expect(
      (await rejection(stores.states.set({ scope: 'acme', kind: 'deploy', key: 'web' }, {}, { door: 'api', actor: 'operator:x', hook: null, now: T0 }))).kind,
    ).toBe('not_found');
    expect(await stores.declarations.listDeclarations()).toEqual([]);

    const m = await migrateFreeFormStates(stores, T0 + 1);
    expect(m).toEqual({ ran: true, bound: ['checks', 'reviews'], declared: ['acme/deploy', 'github/pull_request'], refused: [] });
    expect(await stores.declarations.getDeclaration('github', 'pull_request')).toMatchObject({ schema: {}, templates: {}, version: 1 });
    expect(await stores.declarations.bindings('github', 'pull_request')).toEqual([
      { hook: 'checks', attach: null },
      { hook: 'reviews', attach: null },
    ]);
    // The hooks keep writing the whole document, as before.
    const merged = await stores.states.merge(pr, { reviews: { bob: 'no' } }, { door: 'hook', actor: 'run-2', hook: 'reviews', now: T0 + 2 });
    expect(merged.document).toEqual({ checks: 'green', reviews: { ann: 'ok', bob: 'no' } });
    expect(
      (await stores.states.set({ scope: 'acme', kind: 'deploy', key: 'web' }, { at: 'v2' }, { door: 'api', actor: 'operator:x', hook: null, now: T0 + 2 }))
        .version,
    ).toBe(1);
    // A new hook naming an attach path now meets them: 409 naming one.
    const err = await rejection(stores.hooks.putHook(hook('lint', 'gh', { subject: { ...subject, attach: '/lint' } })));
    expect([err.kind, err.message]).toEqual(['conflict', expect.stringContaining("overlaps hook 'checks', which binds the whole document")]);

    // Recorded in the store: a later start looks at nothing.
    expect(await migrateFreeFormStates(stores, T0 + 3)).toEqual({ ran: false, bound: [], declared: [], refused: [] });
    expect(await admin.hget(`{${prefix}}:meta`, 'states_declared')).toBe('1');
  });
});
