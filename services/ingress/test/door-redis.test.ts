import { createRedisStores, type Stores } from '@hookyard/store';
import { createSecretResolver } from '../src/verify';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { startHarness, type Harness } from './support/harness';

const SECRET = 'redis-door-secret-value';

describe('door and API on the real Redis store', () => {
  let url: string;
  let prefix: string;
  let stores: Stores;
  let h: Harness;
  beforeAll(async () => {
    url = await requireRedis();
    prefix = uniquePrefix('ingress');
    stores = await createRedisStores({ url, prefix, partitions: 2 });
    h = await startHarness({ stores, deps: { secrets: createSecretResolver({ env: { HOOKS_SECRET_RD_SECRET: SECRET } }), limiter: null } });
  });
  afterAll(async () => {
    await h.close();
    await stores.close();
    await deleteRedisKeys(prefix, url);
  });

  it('registers hooks through the API and keeps one run per hook, listed by the API', async () => {
    for (const name of ['rh-1', 'rh-2']) {
      const r = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: { name, topic: 'redis-t', tool: 'echo' } });
      expect(r.status).toBe(201);
    }
    const door = await h.call('/universal_webhook/redis-t?via=q', { method: 'POST', json: { n: 1 } });
    expect(door.body).toEqual({ status: 'accepted', runs: 2, run_ids: [expect.any(String), expect.any(String)], event_id: expect.any(String) });
    const list = await h.call('/api/hook-runs?topic=redis-t', { role: 'reader' });
    expect(list.body.runs.map((r: any) => r.hook).sort()).toEqual(['rh-1', 'rh-2']);
    expect(list.body.runs[0].payload).toEqual({ via: 'q', n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.bus.published.flat().sort()).toEqual(list.body.runs.map((r: any) => r.id).sort());
  });

  it('claims delivery ids in Redis: the second delivery is a duplicate', async () => {
    const put = await h.call('/api/hooks/topics/redis-signed/verifier', {
      method: 'PUT',
      role: 'admin',
      json: { kind: 'shared_secret', secrets: ['env:HOOKS_SECRET_RD_SECRET'], settings: { delivery_id_header: 'x-delivery' } },
    });
    expect(put.status).toBe(201);
    const headers = { 'x-webhook-secret': SECRET, 'x-delivery': 'rd-1' };
    expect((await h.call('/universal_webhook/redis-signed', { method: 'POST', json: {}, headers })).body).toEqual({
      status: 'accepted',
      runs: 0,
      run_ids: [],
      event_id: null,
      unrouted: true,
      message: "no hook is registered on topic 'redis-signed'; the event is kept under GET /api/unrouted/redis-signed",
    });
    // Kept on Redis (its own slot) with the delivery id it was claimed with.
    expect((await h.stores.runs.listUnrouted('redis-signed', 0, 10)).events.map((e) => [e.delivery_id, e.verified])).toEqual([['rd-1', true]]);
    expect((await h.call('/universal_webhook/redis-signed', { method: 'POST', json: {}, headers })).body).toEqual({ status: 'duplicate' });
  });
});

describe('door on a Redis store that is out of reach', () => {
  it('answers 500 accept failed and keeps nothing', async () => {
    const stores = await createRedisStores({ url: 'redis://127.0.0.1:1', prefix: uniquePrefix('down'), partitions: 1, commandTimeoutMs: 500 });
    const h = await startHarness({ stores, deps: { limiter: null } });
    try {
      const r = await h.call('/universal_webhook/anything', { method: 'POST', json: { a: 1 } });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: 'accept failed' });
      expect(h.bus.published).toHaveLength(0);
      const ready = await h.call('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.reason).toMatch(/^store \(redis\) not ready/);
    } finally {
      await h.close();
      await stores.close();
    }
  });
});
