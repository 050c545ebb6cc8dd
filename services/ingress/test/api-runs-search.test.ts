import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { hook, startHarness, type Harness } from './support/harness';

/**
 * `GET /api/hook-runs?where=` (a jq search over what runs carry) and
 * `GET /api/deliveries/{event_id}`, on the real jq engine, over the memory
 * and the Redis store (cursors and id ranges are the store's).
 */
describe.each(['memory', 'redis'] as const)('management API on the %s store: searching runs and one event’s runs', (kind) => {
  let jq: HookyardJqEngine;
  let h: Harness;
  let redis: { url: string; prefix: string; stores: Stores } | null = null;
  const TOTAL = 12;

  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    if (kind === 'redis') {
      const url = await requireRedis();
      const prefix = uniquePrefix('search');
      redis = { url, prefix, stores: await createRedisStores({ url, prefix, partitions: 2 }) };
    }
    h = await startHarness({ jq, ...(redis ? { stores: redis.stores } : {}), deps: { limiter: null } });
    for (const [name, topic] of [
      ['sa', 'search'],
      ['sb', 'search'],
      ['other', 'elsewhere'],
      ['ea', 'fanout'],
      ['eb', 'fanout'],
      ['ec', 'fanout'],
    ]) {
      await h.stores.hooks.putHook({ ...(hook(name!, topic!) as any), created_at: 'x', updated_at: 'x' });
    }
    // Two runs per delivery (hooks sa and sb): TOTAL runs, half of them carrying kind "push".
    for (let i = 0; i < TOTAL / 2; i++) {
      const r = await h.call('/universal_webhook/search', { method: 'POST', json: { i, kind: i % 2 === 0 ? 'push' : 'issue', repo: { name: `r${i}` } } });
      expect(r.status).toBe(200);
    }
    await h.call('/universal_webhook/elsewhere', { method: 'POST', json: { i: 99, kind: 'push' } });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
    if (redis) {
      await redis.stores.close();
      await deleteRedisKeys(redis.prefix, redis.url);
    }
  });

  const where = (expr: string, extra = '') => h.call(`/api/hook-runs?where=${encodeURIComponent(expr)}${extra}`, { role: 'reader' });

  it('matches on payload fields and combines with the other filters; answers the scan', async () => {
    const r = await where('.payload.kind == "push"', '&topic=search');
    expect(r.status).toBe(200);
    expect(r.body.runs).toHaveLength(6);
    expect(r.body.runs.every((x: any) => x.payload.kind === 'push' && x.topic === 'search')).toBe(true);
    expect(r.body.scan).toEqual({ scanned: TOTAL, matched: 6, cut: false, errors: 0 });
    expect(r.body.next_cursor).toBeNull();

    const one = await where('.payload.repo.name == "r4"', '&hook=sb');
    expect(one.body.runs.map((x: any) => [x.hook, x.payload.i])).toEqual([['sb', 4]]);
    // Without the topic filter the other topic's push matches too.
    expect((await where('.payload.kind == "push"')).body.runs).toHaveLength(7);
    // Fields beside the payload: hook, status, event_id.
    const byHook = await where('.hook == "sa" and .status == "pending" and (.event_id | length) == 24', '&topic=search');
    expect(byHook.body.runs).toHaveLength(TOTAL / 2);
  });

  it('matches on the result and the error of finished runs', async () => {
    const [ok] = await h.stores.runs.keepEvent({ topic: 'elsewhere', payload: { n: 1 }, now: Date.now(), dispatchGraceMs: 15000 });
    const c1 = await h.stores.runs.claim(ok!.id, 'w', 30000, Date.now());
    await h.stores.runs.complete(ok!.id, c1!.token, 'succeeded', { ticket: 'T-77' }, Date.now());
    const [bad] = await h.stores.runs.keepEvent({ topic: 'elsewhere', payload: { n: 2 }, now: Date.now(), dispatchGraceMs: 15000 });
    const c2 = await h.stores.runs.claim(bad!.id, 'w', 30000, Date.now());
    await h.stores.runs.fail(bad!.id, c2!.token, { kind: 'unavailable', message: 'connect ECONNREFUSED 10.0.0.7:443' }, Date.now());

    expect((await where('.result.ticket == "T-77"')).body.runs.map((x: any) => x.id)).toEqual([ok!.id]);
    expect((await where('.error.message | test("ECONNREFUSED")? // false')).body.runs.map((x: any) => x.id)).toEqual([bad!.id]);
  });

  it('refuses jq that does not compile with a 400 quoting the expression and jq’s message', async () => {
    const r = await where('.payload.kind ==');
    expect(r.status).toBe(400);
    expect(r.body.error.kind).toBe('bad_input');
    expect(r.body.error.details[0]).toMatch(/^where "\.payload\.kind ==" does not compile: .+/);
  });

  it.each([
    ['an empty where', 'where=', /^where must be a jq expression/],
    ['a where of 4097 chars', `where=${'.'.repeat(4097)}`, /^where is 4097 characters, more than 4096/],
    ['scan without where', 'scan=10', /^scan bounds a where search: give where with it/],
    ['scan=0', 'where=true&scan=0', /^scan must be a whole number from 1 to 5000/],
    ['scan=5001', 'where=true&scan=5001', /^scan must be a whole number from 1 to 5000/],
  ])('refuses %s with 400 naming the field', async (_label, q, line) => {
    const r = await h.call(`/api/hook-runs?${q}`, { role: 'reader' });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toContainEqual(expect.stringMatching(line));
  });

  it('a jq error on a run is no match, counted with the first message', async () => {
    const r = await where('.payload.repo.name | ascii_downcase == "r1"', '&topic=search');
    expect(r.status).toBe(200);
    expect(r.body.runs.map((x: any) => x.payload.i)).toEqual([1, 1]);
    expect(r.body.scan.errors).toBe(0);
    const e = await where('.payload.kind | tonumber > 0', '&topic=search');
    expect(e.body.runs).toHaveLength(0);
    expect(e.body.scan).toMatchObject({ scanned: TOTAL, matched: 0, errors: TOTAL, first_error: { run: expect.any(String), message: expect.any(String) } });
  });

  it('cuts the window at `scan` runs, says so, and the cursor continues to find the rest without repeats', async () => {
    const found: string[] = [];
    let cursor: string | null = null;
    let scanned = 0;
    let cuts = 0;
    for (let round = 0; round < 20; round++) {
      const r: any = await where('.payload.kind == "issue"', `&topic=search&scan=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.scan.scanned).toBeLessThanOrEqual(5);
      scanned += r.body.scan.scanned;
      if (r.body.scan.cut) {
        cuts++;
        expect(r.body.next_cursor).toEqual(expect.any(String));
      }
      found.push(...r.body.runs.map((x: any) => x.id));
      cursor = r.body.next_cursor;
      if (!cursor) break;
    }
    expect(cuts).toBeGreaterThanOrEqual(2);
    expect(scanned).toBe(TOTAL);
    expect(found).toHaveLength(6);
    expect(new Set(found).size).toBe(6);
    const all = await where('.payload.kind == "issue"', '&topic=search');
    expect(found).toEqual(all.body.runs.map((x: any) => x.id));
  });

  it('with limit reached before the window ends: not cut, and the cursor continues after the last run read', async () => {
    const first = await where('.payload.kind == "push"', '&topic=search&limit=2');
    expect(first.body.runs).toHaveLength(2);
    expect(first.body.scan.cut).toBe(false);
    expect(first.body.next_cursor).toBe(first.body.runs[1].id);
    const rest = await where('.payload.kind == "push"', `&topic=search&cursor=${first.body.next_cursor}`);
    expect(rest.body.runs).toHaveLength(4);
    expect(rest.body.runs.map((x: any) => x.id)).not.toContain(first.body.runs[1].id);
  });

  it('needs a token, and an agent token is refused on both routes', async () => {
    expect((await h.call('/api/hook-runs?where=true')).status).toBe(401);
    expect((await h.call('/api/deliveries/abc')).status).toBe(401);
    const made = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'snoop-bot', tools_allow: ['*'] } });
    const auth = { authorization: `Bearer ${made.body.token}` };
    expect((await h.call('/api/hook-runs?where=true', { headers: auth })).status).toBe(403);
    expect((await h.call('/api/deliveries/0000000000000000000000aa', { headers: auth })).status).toBe(403);
  });

  it('the event view lists every run of one delivery across hooks with their statuses and its kept headers, and nothing of the next one', async () => {
    const secret = 'Bearer s3cr3t-do-not-keep';
    const requestId = 'q'.repeat(300);
    const door = await h.call('/universal_webhook/fanout', {
      method: 'POST',
      json: { action: 'opened' },
      headers: {
        authorization: secret,
        'x-hub-signature-256': 'sha256=deadbeef',
        'stripe-signature': 't=1,v1=deadbeef',
        cookie: 'sid=s3cr3t-cookie',
        'x-api-key': 's3cr3t-key',
        'user-agent': 'GitHub-Hookshot/044aadd',
        'x-github-event': 'pull_request',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-request-id': requestId,
        'x-not-allowlisted': 'dropped',
      },
    });
    const eventId: string = JSON.parse(door.text).event_id;
    expect(eventId).toMatch(/^[0-9a-z]{24}$/);
    const next = await h.call('/universal_webhook/fanout', { method: 'POST', json: { action: 'closed' } });
    expect(JSON.parse(next.text).event_id).not.toBe(eventId);

    const ids: string[] = JSON.parse(door.text).run_ids;
    const c = await h.stores.runs.claim(ids[0]!, 'w', 30000, Date.now());
    await h.stores.runs.fail(ids[0]!, c!.token, { kind: 'unavailable', message: 'HTTP 500' }, Date.now());
    const c2 = await h.stores.runs.claim(ids[1]!, 'w', 30000, Date.now());
    await h.stores.runs.complete(ids[1]!, c2!.token, 'succeeded', { ok: true }, Date.now());

    const r = await h.call(`/api/deliveries/${eventId}`, { role: 'reader' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      event_id: eventId,
      delivery_id: null,
      door: 'http',
      verified: false,
      topic: 'fanout',
      payload: { action: 'opened' },
    });
    // Only the allowlisted headers, values cut to 256 chars; never a credential, a signature or a cookie.
    const kept = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(JSON.stringify({ action: 'opened' }))),
      'user-agent': 'GitHub-Hookshot/044aadd',
      'x-request-id': requestId.slice(0, 256),
      'x-github-event': 'pull_request',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    };
    expect(r.body.headers).toEqual(kept);
    for (const name of ['authorization', 'cookie', 'x-hub-signature-256', 'stripe-signature', 'x-api-key', 'x-not-allowlisted']) {
      expect(Object.keys(r.body.headers)).not.toContain(name);
    }
    // Every run of the delivery keeps them; the run API shows them too.
    for (const id of ids) expect((await h.call(`/api/hook-runs/${id}`, { role: 'reader' })).body.headers).toEqual(kept);
    expect(r.body.received_at).toEqual(expect.any(String));
    expect(r.body.runs.map((x: any) => [x.id, x.hook, x.status])).toEqual([
      [ids[0], 'ea', 'failed'],
      [ids[1], 'eb', 'succeeded'],
      [ids[2], 'ec', 'pending'],
    ]);
    expect(r.body.runs[0].error).toEqual({ kind: 'unavailable', message: 'HTTP 500' });
    // No secret header was kept anywhere the API shows.
    for (const text of [r.text, (await h.call(`/api/hook-runs/${ids[0]}`, { role: 'reader' })).text]) {
      expect(text).not.toMatch(/s3cr3t|deadbeef/);
    }
    // Each run names its event on the wire.
    const run = await h.call(`/api/hook-runs/${ids[2]}`, { role: 'reader' });
    expect(run.body.event_id).toBe(eventId);
  });

  it('the event view answers headers null for a delivery kept without them (kept before the doors kept headers)', async () => {
    const [before] = await h.stores.runs.keepEvent({ topic: 'fanout', payload: { old: true }, door: 'http', now: Date.now(), dispatchGraceMs: 60_000 });
    const r = await h.call(`/api/deliveries/${before!.id.slice(0, 24)}`, { role: 'reader' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ door: 'http', headers: null, payload: { old: true } });
  });

  it('an unknown or malformed event id is 404', async () => {
    expect((await h.call('/api/deliveries/0000000000000000000000aa', { role: 'reader' })).status).toBe(404);
    expect((await h.call('/api/deliveries/NOT-AN-ID', { role: 'reader' })).status).toBe(404);
  });
});
