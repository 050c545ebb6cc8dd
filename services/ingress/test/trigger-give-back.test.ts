/**
 * A trigger link's use is given back only when its keep provably did not
 * run: never sent (the store says `notSent`). A keep sent without an answer
 * (`outcomeUnknown`) or one the store refused leaves the use spent, so a
 * one-use link cannot fire twice. The store's answer is scripted: each case
 * fails the next keep with one error.
 */
import { HookyardError } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { hook, startHarness, type Harness } from './support/harness';

const NOT_FOUND = '{"error":"not found"}';

describe('trigger link give-back', () => {
  let h: Harness;
  let failNext: HookyardError | null = null;
  beforeAll(async () => {
    const stores = createMemoryStores({});
    const keep = stores.runs.keepHookRun.bind(stores.runs);
    stores.runs.keepHookRun = (input, name) => {
      const e = failNext;
      failNext = null;
      return e ? Promise.reject(e) : keep(input, name);
    };
    h = await startHarness({ stores, deps: { limiter: null } });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('nightly', 'nightly') })).status).toBe(201);
  });
  afterAll(() => h.close());

  const oneUse = async () => (await h.call('/api/hooks/nightly/links', { method: 'POST', role: 'operator', json: { max_uses: 1 } })).body;
  const fire = (path: string) => h.call(path, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  const usesOf = async (id: string) =>
    ((await h.call('/api/hooks/nightly/links', { role: 'reader' })).body.links as Array<{ id: string; uses: number }>).find((l) => l.id === id)?.uses;

  it("a one-use link's use is given back only when its keep was never sent; an unanswered or refused keep leaves it spent", async () => {
    const cases: Array<[HookyardError, number, string, number, number]> = [
      // [the keep's error, status, body, uses after, the second use's status]
      [
        new HookyardError('unavailable', 'redis keep_hook_run not sent: connection is reconnecting', { notSent: true }),
        500,
        '{"error":"accept failed"}',
        0,
        200,
      ],
      [
        new HookyardError('unavailable', 'redis keep_hook_run outcome unknown: Command timed out', { outcomeUnknown: true }),
        503,
        '{"error":"accept outcome unknown"}',
        1,
        404,
      ],
      [new HookyardError('internal', 'redis refused keep_hook_run: ERR Error running script'), 500, '{"error":"accept failed"}', 1, 404],
    ];
    for (const [error, status, body, uses, second] of cases) {
      const { path, link } = await oneUse();
      failNext = error;
      const first = await fire(path);
      expect([error.message, first.status, first.text, await usesOf(link.id)]).toEqual([error.message, status, body, uses]);
      const again = await fire(path);
      expect([error.message, again.status]).toEqual([error.message, second]);
      if (second === 404) expect(again.text).toBe(NOT_FOUND);
    }
  });
});
