import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { createRedisStores, type Stores } from '@hookyard/store';
import { createSecretResolver } from '../src/verify';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { hook, startHarness, type Harness } from './support/harness';

const SECRET = 'dedupe-door-secret-value-17';

async function putHook(stores: Stores, name: string, topic: string) {
  await stores.hooks.putHook({ ...(hook(name, topic) as any), created_at: 'x', updated_at: 'x' });
}

async function keptOn(stores: Stores, topic: string) {
  return (await stores.runs.list({ topic }, 100)).runs;
}

describe('dedupe key of an open topic', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ jq, deps: { secrets: createSecretResolver({ env: { HOOKS_SECRET_DD_SECRET: SECRET } }) } });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  const setKey = (topic: string, json: unknown, role: 'admin' | 'operator' | 'reader' = 'admin') =>
    h.call(`/api/hooks/topics/${topic}/dedupe`, { method: 'PUT', role, json });
  const post = (topic: string, json: unknown, headers: Record<string, string> = {}) => h.call(`/universal_webhook/${topic}`, { method: 'POST', json, headers });

  describe('the admin route', () => {
    it('sets (201), shows, replaces (200, created_at kept) and removes a key; 404 when there is none', async () => {
      expect((await h.call('/api/hooks/topics/dd-api/dedupe', { role: 'reader' })).status).toBe(404);
      const put = await setKey('dd-api', { expr: '.body.id' });
      expect(put.status).toBe(201);
      expect(put.body).toEqual({
        created: true,
        dedupe: { topic: 'dd-api', expr: '.body.id', horizon_seconds: 86_400, created_at: expect.any(String), updated_at: expect.any(String) },
      });
      const again = await setKey('dd-api', { expr: '.headers["x-event-id"]', horizon_seconds: 3600 });
      expect(again.status).toBe(200);
      expect(again.body.dedupe).toMatchObject({ expr: '.headers["x-event-id"]', horizon_seconds: 3600, created_at: put.body.dedupe.created_at });
      const got = await h.call('/api/hooks/topics/dd-api/dedupe', { role: 'reader' });
      expect(got.body).toEqual(again.body.dedupe);
      expect((await h.call('/api/hooks/topics/dd-api/dedupe', { method: 'DELETE', role: 'admin' })).body).toEqual({ removed: true, topic: 'dd-api' });
      expect((await h.call('/api/hooks/topics/dd-api/dedupe', { method: 'DELETE', role: 'admin' })).status).toBe(404);
    });

    it('refuses a bad key with 400 naming each field, and keeps nothing', async () => {
      const badJq = await setKey('dd-bad', { expr: '.body.id |||' });
      expect(badJq.status).toBe(400);
      expect(badJq.body.error.kind).toBe('bad_input');
      expect(badJq.body.error.details).toEqual([expect.stringMatching(/^expr "\.body\.id \|\|\|" does not compile: /), '    .body.id |||', '              ^']);
      const badHorizon = await setKey('dd-bad', { expr: '.body.id', horizon_seconds: 0 });
      expect(badHorizon.body.error.details).toEqual(['horizon_seconds must be a whole number from 1 to 604800 (7 days), got 0']);
      expect((await setKey('dd-bad', { expr: '.body.id', horizon_seconds: 604_801 })).body.error.details).toEqual([
        'horizon_seconds must be a whole number from 1 to 604800 (7 days), got 604801',
      ]);
      expect((await setKey('dd-bad', { expr: '.body.id', horizon_seconds: 1.5 })).status).toBe(400);
      expect((await setKey('dd-bad', { horizon_seconds: 60 })).body.error.details).toEqual([
        'expr must be a jq expression over {headers, query, body}, got nothing',
      ]);
      expect((await setKey('dd-bad', { expr: '.id', ttl: 5 })).body.error.details).toEqual(['unknown field "ttl"']);
      expect((await setKey('dd-bad', { expr: '.id', topic: 'other' })).body.error.details).toEqual([
        'topic in the body ("other") differs from the topic in the path ("dd-bad")',
      ]);
      expect((await setKey('dd-bad', ['.id'])).status).toBe(400);
      expect((await h.call('/api/hooks/topics/dd-bad/dedupe', { role: 'reader' })).status).toBe(404);
    });

    it('needs a token (401) and the admin role to change a key (403), reader to read it', async () => {
      expect((await h.call('/api/hooks/topics/dd-role/dedupe', { method: 'PUT', json: { expr: '.body.id' } })).status).toBe(401);
      expect((await setKey('dd-role', { expr: '.body.id' }, 'operator')).status).toBe(403);
      expect((await setKey('dd-role', { expr: '.body.id' })).status).toBe(201);
      expect((await h.call('/api/hooks/topics/dd-role/dedupe')).status).toBe(401);
      expect((await h.call('/api/hooks/topics/dd-role/dedupe', { role: 'reader' })).status).toBe(200);
      expect((await h.call('/api/hooks/topics/dd-role/dedupe', { method: 'DELETE', role: 'operator' })).status).toBe(403);
    });
  });

  describe('the door', () => {
    beforeAll(async () => {
      for (const topic of ['dd-body', 'dd-head', 'dd-err', 'dd-signed', 'dd-late']) await putHook(h.stores, `h-${topic}`, topic);
      expect((await setKey('dd-body', { expr: '.body.id' })).status).toBe(201);
      expect((await setKey('dd-head', { expr: '.headers["x-event-id"]' })).status).toBe(201);
    });

    it("keeps the same body once and answers the second send duplicate; the key is the runs' delivery_id", async () => {
      const first = await post('dd-body', { id: 'evt-1', n: 1 });
      expect(first.body).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
      const second = await post('dd-body', { id: 'evt-1', n: 1 });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ status: 'duplicate' });
      const runs = (await keptOn(h.stores, 'dd-body')).filter((r) => (r.payload as any).id === 'evt-1');
      expect(runs).toHaveLength(1);
      expect(runs[0]!.delivery_id).toBe('evt-1');
    });

    it('keeps different ids twice, and a null, missing or empty id every time', async () => {
      const before = (await keptOn(h.stores, 'dd-body')).length;
      expect((await post('dd-body', { id: 'evt-a' })).body.status).toBe('accepted');
      expect((await post('dd-body', { id: 'evt-b' })).body.status).toBe('accepted');
      for (const body of [{ id: null }, { id: null }, { other: 1 }, { other: 1 }, { id: '' }, { id: '' }]) {
        expect((await post('dd-body', body)).body.status).toBe('accepted');
      }
      expect((await keptOn(h.stores, 'dd-body')).length).toBe(before + 8);
    });

    it('takes a number as its decimal text', async () => {
      expect((await post('dd-body', { id: 42 })).body.status).toBe('accepted');
      expect((await post('dd-body', { id: 42 })).body).toEqual({ status: 'duplicate' });
      expect((await keptOn(h.stores, 'dd-body')).filter((r) => r.delivery_id === '42')).toHaveLength(1);
    });

    it('reads a header: the same event id with a different body is a duplicate', async () => {
      expect((await post('dd-head', { v: 1 }, { 'X-Event-Id': 'hdr-1' })).body.status).toBe('accepted');
      expect((await post('dd-head', { v: 2 }, { 'X-Event-Id': 'hdr-1' })).body).toEqual({ status: 'duplicate' });
      expect((await post('dd-head', { v: 3 }, { 'X-Event-Id': 'hdr-2' })).body.status).toBe('accepted');
      expect(await keptOn(h.stores, 'dd-head')).toHaveLength(2);
    });

    it('refuses with 400 naming the expression and what it yielded when the answer is not a string or number, keeping nothing', async () => {
      expect((await setKey('dd-err', { expr: '.body.id' })).status).toBe(201);
      const object = await post('dd-err', { id: { deep: 1 } });
      expect(object.status).toBe(400);
      expect(object.body).toEqual({
        status: 'rejected',
        error: 'dedupe key ".body.id" yielded {"deep":1}; it must yield a string or a number (null or "" keeps without dedupe)',
      });
      expect((await post('dd-err', { id: true })).body.error).toBe(
        'dedupe key ".body.id" yielded true; it must yield a string or a number (null or "" keeps without dedupe)',
      );
      expect((await post('dd-err', { id: 'x'.repeat(257) })).body.error).toBe('dedupe key ".body.id" yielded a string of 257 characters, more than 256');
      expect((await setKey('dd-err', { expr: '.body.ids[]' })).status).toBe(200);
      expect((await post('dd-err', { ids: ['a', 'b'] })).body.error).toBe(
        'dedupe key ".body.ids[]" yielded 2 values (["a","b"]); it must yield one string or number',
      );
      expect((await setKey('dd-err', { expr: '.body.id | ascii_downcase' })).status).toBe(200);
      const failed = await post('dd-err', { id: 5 });
      expect(failed.status).toBe(400);
      expect(failed.body.error).toMatch(/^dedupe key "\.body\.id \| ascii_downcase" failed: /);
      expect(await keptOn(h.stores, 'dd-err')).toHaveLength(0);
    });

    it('a key set through the API applies at once on this replica (the cached absence is dropped)', async () => {
      expect((await post('dd-late', { id: 'L' })).body.status).toBe('accepted');
      expect((await setKey('dd-late', { expr: '.body.id' })).status).toBe(201);
      expect((await post('dd-late', { id: 'L' })).body.status).toBe('accepted');
      expect((await post('dd-late', { id: 'L' })).body).toEqual({ status: 'duplicate' });
      expect((await h.call('/api/hooks/topics/dd-late/dedupe', { method: 'DELETE', role: 'admin' })).status).toBe(200);
      expect((await post('dd-late', { id: 'L' })).body.status).toBe('accepted');
      expect(await keptOn(h.stores, 'dd-late')).toHaveLength(3);
    });

    it("the verifier's delivery id wins over the dedupe key; without one the key applies", async () => {
      const bound = await h.call('/api/hooks/topics/dd-signed/verifier', {
        method: 'PUT',
        role: 'admin',
        json: { kind: 'shared_secret', secrets: ['env:HOOKS_SECRET_DD_SECRET'], settings: { delivery_id_header: 'x-delivery' } },
      });
      expect(bound.status).toBe(201);
      expect((await setKey('dd-signed', { expr: '.body.id' })).status).toBe(201);
      const signed = (extra: Record<string, string>) => ({ 'x-webhook-secret': SECRET, ...extra });
      // Same body, two delivery ids: two events (the dedupe key is not asked).
      expect((await post('dd-signed', { id: 'same' }, signed({ 'x-delivery': 'd-1' }))).body.status).toBe('accepted');
      expect((await post('dd-signed', { id: 'same' }, signed({ 'x-delivery': 'd-2' }))).body.status).toBe('accepted');
      expect((await post('dd-signed', { id: 'other' }, signed({ 'x-delivery': 'd-2' }))).body).toEqual({ status: 'duplicate' });
      // No delivery id from the verifier: the dedupe key decides.
      expect((await post('dd-signed', { id: 'k-1' }, signed({}))).body.status).toBe('accepted');
      expect((await post('dd-signed', { id: 'k-1' }, signed({}))).body).toEqual({ status: 'duplicate' });
      const runs = await keptOn(h.stores, 'dd-signed');
      expect(runs.map((r) => r.delivery_id).sort()).toEqual(['d-1', 'd-2', 'k-1']);
    });
  });
});

describe('dedupe key on the real Redis store', () => {
  let url: string;
  let prefix: string;
  let stores: Stores;
  let jq: HookyardJqEngine;
  let h: Harness;
  beforeAll(async () => {
    url = await requireRedis();
    prefix = uniquePrefix('dedupe');
    stores = await createRedisStores({ url, prefix, partitions: 2 });
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ stores, jq, deps: { limiter: null } });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
    await stores.close();
    await deleteRedisKeys(prefix, url);
  });

  it('keeps the key in Redis and claims its value in the keep: the retry is a duplicate', async () => {
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { name: 'rdd', topic: 'rdd-t', tool: 'echo' } })).status).toBe(201);
    expect(
      (await h.call('/api/hooks/topics/rdd-t/dedupe', { method: 'PUT', role: 'admin', json: { expr: '.query.event', horizon_seconds: 600 } })).status,
    ).toBe(201);
    expect(await stores.hooks.getDedupe('rdd-t')).toMatchObject({ expr: '.query.event', horizon_seconds: 600 });
    const send = () => h.call('/universal_webhook/rdd-t?event=e-9', { method: 'POST', json: { n: 1 } });
    expect((await send()).body.status).toBe('accepted');
    expect((await send()).body).toEqual({ status: 'duplicate' });
    expect((await h.call('/universal_webhook/rdd-t?event=e-10', { method: 'POST', json: { n: 1 } })).body.status).toBe('accepted');
    const runs = (await stores.runs.list({ topic: 'rdd-t' }, 10)).runs;
    expect(runs.map((r) => r.delivery_id).sort()).toEqual(['e-10', 'e-9']);
  });
});
