import { connect } from 'node:net';
import { HookyardError } from '@hookyard/core';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { hook, startHarness, type Harness } from './support/harness';

/** Sends raw bytes on a fresh socket and returns everything the server wrote before closing. */
function rawRequest(url: string, head: string, body: Buffer | string = '', holdOpenMs = 0): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname);
    let out = '';
    sock.on('data', (d) => (out += d.toString()));
    let timer: NodeJS.Timeout | undefined;
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    sock.on('error', (err) => (out ? resolve(out) : reject(err)));
    sock.write(head);
    if (body.length) sock.write(body);
    if (holdOpenMs) timer = setTimeout(() => sock.end(), holdOpenMs);
  });
}

async function keptOn(stores: Stores, topic: string) {
  return (await stores.runs.list({ topic }, 100)).runs;
}

describe('public door', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { bodyMaxBytes: 1024, queryMaxBytes: 64 }, deps: { doorReadTimeoutMs: 300 } });
    await h.stores.hooks.putHook({ ...(hook('h-a', 'orders') as any), created_at: 'x', updated_at: 'x' });
    await h.stores.hooks.putHook({ ...(hook('h-b', 'orders') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(() => h.close());

  it('keeps one run per hook, answers accepted with the count, publishes the ids', async () => {
    const before = h.bus.published.length;
    const r = await h.call('/universal_webhook/orders?src=q', { method: 'POST', json: { id: 7 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'accepted', runs: 2, run_ids: [expect.any(String), expect.any(String)], event_id: expect.any(String) });
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cache-control')).toBe('no-store');
    const runs = await keptOn(h.stores, 'orders');
    expect(runs.map((x) => x.hook).sort()).toEqual(['h-a', 'h-b']);
    expect(runs[0]!.payload).toEqual({ src: 'q', id: 7 });
    // The answer names exactly the runs kept, and the event id each of their ids starts with.
    expect([...r.body.run_ids].sort()).toEqual(runs.map((x) => x.id).sort());
    for (const id of r.body.run_ids) expect(id.startsWith(r.body.event_id)).toBe(true);
    expect(r.body.event_id).toHaveLength(24);
    // The publish is not awaited before the answer; it lands right after.
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.bus.published.slice(before).flat().sort()).toEqual(runs.map((x) => x.id).sort());
    const metrics = await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_accepted_total');
    expect(metrics).toContain('tai42_hook_runs_accepted_total{topic="orders",hook="h-a"} 1');
    expect(await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_door_requests_total')).toContain('code="200"');
  });

  it('accepts a topic with no hooks as runs: 0, saying so, counted under _unrouted', async () => {
    const r = await h.call('/universal_webhook/nobody-home', { method: 'POST', json: { a: 1 } });
    expect(r.body).toEqual({
      status: 'accepted',
      runs: 0,
      run_ids: [],
      event_id: null,
      unrouted: true,
      message: "no hook is registered on topic 'nobody-home'; the event is kept under GET /api/unrouted/nobody-home",
    });
    const metrics = await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_accepted_total');
    expect(metrics).toContain('tai42_hook_runs_accepted_total{topic="_unrouted",hook=""} 1');
  });

  it('answers accepted even when the publish fails (logged; the sweep covers it)', async () => {
    h.bus.failNext = true;
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: 'plain', headers: { 'content-type': 'text/plain' } });
    expect(r.body).toEqual({ status: 'accepted', runs: 2, run_ids: [expect.any(String), expect.any(String)], event_id: expect.any(String) });
  });

  it.each([['/universal_webhook/Orders'], ['/universal_webhook/or.ders'], ['/universal_webhook/a%2Fb'], ['/universal_webhook/' + 'a'.repeat(129)]])(
    'a topic failing the name pattern is 400 naming the pattern: %s',
    async (path) => {
      const r = await h.call(path, { method: 'POST', json: {} });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ status: 'rejected', error: 'topic must match ^[a-z0-9][a-z0-9_-]*$ (at most 128 characters)' });
    },
  );

  it('GET on the door is 405 with Allow: POST', async () => {
    const r = await h.call('/universal_webhook/orders');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
  });

  it('a query string over the cap is 414, nothing kept', async () => {
    const n = (await keptOn(h.stores, 'orders')).length;
    const r = await h.call(`/universal_webhook/orders?q=${'x'.repeat(70)}`, { method: 'POST', json: {} });
    expect(r.status).toBe(414);
    expect(r.body).toEqual({ error: 'query string too long: the limit is 64 bytes (HOOKS_QUERY_MAX_BYTES)' });
    expect((await keptOn(h.stores, 'orders')).length).toBe(n);
  });

  it('a declared body over the cap is 413 naming the limit and its setting, nothing kept', async () => {
    const n = (await keptOn(h.stores, 'orders')).length;
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: 'x'.repeat(1025), headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: 'body too large: the limit is 1024 bytes (HOOKS_BODY_MAX_BYTES)' });
    expect((await keptOn(h.stores, 'orders')).length).toBe(n);
  });

  it('a chunked body is capped on bytes actually read (413, connection closed)', async () => {
    const chunk = 'y'.repeat(800);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const out = await rawRequest(
      h.url,
      'POST /universal_webhook/orders HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n',
      body,
    );
    expect(out).toMatch(/^HTTP\/1.1 413/);
    expect(out).toMatch(/connection: close/i);
    expect(out).toContain('{"error":"body too large: the limit is 1024 bytes (HOOKS_BODY_MAX_BYTES)"}');
  });

  it('a body exactly at the cap is accepted', async () => {
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: 'x'.repeat(1024), headers: { 'content-type': 'text/plain' } });
    expect(r.body).toEqual({ status: 'accepted', runs: 2, run_ids: [expect.any(String), expect.any(String)], event_id: expect.any(String) });
  });

  it('a client that stops sending its body gets 408 and nothing is kept', async () => {
    const n = (await keptOn(h.stores, 'orders')).length;
    const out = await rawRequest(
      h.url,
      'POST /universal_webhook/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n',
      '{"a":',
      2000,
    );
    expect(out).toMatch(/^HTTP\/1.1 408/);
    expect((await keptOn(h.stores, 'orders')).length).toBe(n);
  });

  it('a multipart form with a file is 400 rejected and nothing is kept', async () => {
    const n = (await keptOn(h.stores, 'orders')).length;
    const form = new FormData();
    form.append('note', 'hi');
    form.append('upload', new Blob(['data']), 'x.bin');
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: form });
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('rejected');
    expect(r.body.error).toMatch(/carries a file/);
    expect((await keptOn(h.stores, 'orders')).length).toBe(n);
  });

  it('a multipart form of text fields is kept as its fields', async () => {
    const form = new FormData();
    form.append('note', 'hi');
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: form });
    expect(r.body).toEqual({ status: 'accepted', runs: 2, run_ids: [expect.any(String), expect.any(String)], event_id: expect.any(String) });
    expect((await keptOn(h.stores, 'orders'))[0]!.payload).toEqual({ note: 'hi' });
  });

  it('malformed JSON is 400 quoting the parser, nothing kept', async () => {
    const n = (await keptOn(h.stores, 'orders')).length;
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^body is not valid JSON: /);
    expect((await keptOn(h.stores, 'orders')).length).toBe(n);
  });

  it('unknown paths are JSON 404 with the security headers', async () => {
    const r = await h.call('/nope');
    expect(r.status).toBe(404);
    expect(r.body.error.kind).toBe('not_found');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('public door when the store refuses', () => {
  it('answers 500 accept failed and keeps nothing', async () => {
    const inner = createMemoryStores();
    const stores: Stores = {
      ...inner,
      runs: Object.assign(Object.create(inner.runs), {
        keepEvent: async () => {
          throw new HookyardError('unavailable', 'store out of reach');
        },
      }),
    };
    const h = await startHarness({ stores });
    try {
      await inner.hooks.putHook({ ...(hook('h-a', 'orders') as any), created_at: 'x', updated_at: 'x' });
      const r = await h.call('/universal_webhook/orders', { method: 'POST', json: { a: 1 } });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: 'accept failed' });
      expect((await inner.runs.list({}, 10)).runs).toHaveLength(0);
      expect(h.bus.published).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});
