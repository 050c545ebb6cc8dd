import { HookyardError, createLogger } from '@hookyard/core';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createSecretResolver } from '../src/verify';
import { hook, startHarness, type Harness } from './support/harness';

const SECRET = 'door-shared-secret-value-42';
const env = { HOOKS_SECRET_DOOR_SECRET: SECRET } as NodeJS.ProcessEnv;

async function bind(
  stores: Stores,
  topic: string,
  secrets = ['env:HOOKS_SECRET_DOOR_SECRET'],
  settings: Record<string, unknown> = { delivery_id_header: 'x-delivery' },
) {
  await stores.hooks.putVerifier({
    topic,
    kind: 'shared_secret',
    settings: { header: 'x-webhook-secret', ...settings },
    secrets,
    created_at: 'x',
    updated_at: 'x',
  });
}

async function putHook(stores: Stores, name: string, topic: string) {
  await stores.hooks.putHook({ ...(hook(name, topic) as any), created_at: 'x', updated_at: 'x' });
}

describe('door with a verifier binding', () => {
  let h: Harness;
  let inner: Stores;
  const logs: Array<{ msg?: string }> = [];
  /** 'fail': the keep is refused, nothing written; 'lost': the keep commits and its answer is lost. */
  let fault: 'fail' | 'lost' | null = null;
  beforeAll(async () => {
    inner = createMemoryStores();
    const faulty = async <T>(keep: () => Promise<T>): Promise<T> => {
      const f = fault;
      fault = null;
      if (f === 'fail') throw new HookyardError('unavailable', 'store out of reach', { notSent: true });
      const out = await keep();
      if (f === 'lost') throw new HookyardError('unavailable', 'redis keep_event outcome unknown: Command timed out', { outcomeUnknown: true });
      return out;
    };
    const stores: Stores = {
      ...inner,
      runs: Object.assign(Object.create(inner.runs), {
        keepEvent: (input: Parameters<Stores['runs']['keepEvent']>[0]) => faulty(() => inner.runs.keepEvent(input)),
        keepDelivery: (...args: Parameters<Stores['runs']['keepDelivery']>) => faulty(() => inner.runs.keepDelivery(...args)),
      }),
    };
    const logger = createLogger({ level: 'warn', destination: { write: (line: string) => void logs.push(JSON.parse(line)) } });
    h = await startHarness({ stores, deps: { secrets: createSecretResolver({ env }), logger } });
    await bind(inner, 'signed');
    await putHook(inner, 'h-s', 'signed');
  });
  afterAll(() => h.close());

  const post = (headers: Record<string, string>, body = '{"a":1}') =>
    h.call('/universal_webhook/signed', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('refuses a bad secret with the constant 401 body and counts it, keeping nothing', async () => {
    const r = await post({ 'x-webhook-secret': 'wrong' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'webhook verification failed' });
    expect(await h.metrics.registry.getSingleMetricAsString('tai42_hook_runs_verification_failures_total')).toContain('topic="signed"} 1');
    expect((await inner.runs.list({ topic: 'signed' }, 10)).runs).toHaveLength(0);
  });

  it('verifies the raw bytes before parsing: a bad signature on a malformed body is 401, not 400', async () => {
    const r = await post({ 'x-webhook-secret': 'wrong' }, '{not json');
    expect(r.status).toBe(401);
  });

  it('accepts a good delivery and answers duplicate for the same delivery id, keeping nothing more', async () => {
    const first = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-1' });
    expect(first.body).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
    const again = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ status: 'duplicate' });
    expect((await inner.runs.list({ topic: 'signed' }, 10)).runs).toHaveLength(1);
  });

  it('a keep that fails claims nothing: 500 accept failed, and the sender retry is accepted', async () => {
    fault = 'fail';
    const r = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-2' });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'accept failed' });
    const retry = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-2' });
    expect(retry.body).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
  });

  it('a keep whose answer was lost is 503 accept outcome unknown, never "nothing kept"; the retry is a duplicate', async () => {
    const before = (await inner.runs.list({ topic: 'signed' }, 100)).runs.length;
    fault = 'lost';
    const r = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-3' });
    expect(r.status).toBe(503);
    expect(r.text).toBe('{"error":"accept outcome unknown"}');
    const retry = await post({ 'x-webhook-secret': SECRET, 'x-delivery': 'd-3' });
    expect(retry.body).toEqual({ status: 'duplicate' });
    expect((await inner.runs.list({ topic: 'signed' }, 100)).runs.length).toBe(before + 1);
    expect(logs.some((l) => String(l.msg).includes('may or may not be kept'))).toBe(true);
  });

  it('on an open topic too, a lost answer is 503 accept outcome unknown', async () => {
    await putHook(inner, 'h-open', 'open-lost');
    fault = 'lost';
    const r = await h.call('/universal_webhook/open-lost', { method: 'POST', json: { a: 1 } });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: 'accept outcome unknown' });
  });

  it('a secret that cannot be resolved is 500 and keeps nothing', async () => {
    await bind(inner, 'unset-secret', ['env:HOOKS_SECRET_NOT_SET_ANYWHERE']);
    await putHook(inner, 'h-u', 'unset-secret');
    const r = await h.call('/universal_webhook/unset-secret', { method: 'POST', json: { a: 1 }, headers: { 'x-webhook-secret': SECRET } });
    expect(r.status).toBe(500);
    expect(r.text).not.toContain(SECRET);
    expect((await inner.runs.list({ topic: 'unset-secret' }, 10)).runs).toHaveLength(0);
  });

  it('a shared_secret binding with allow_get lets a GET through', async () => {
    await bind(inner, 'get-ok', ['env:HOOKS_SECRET_DOOR_SECRET'], { allow_get: true });
    const r = await h.call('/universal_webhook/get-ok?challenge=1', { headers: { 'x-webhook-secret': SECRET } });
    expect(r.body).toEqual({ status: 'accepted', runs: 0, run_ids: [], event_id: null, unrouted: true, message: expect.stringContaining("topic 'get-ok'") });
  });
});

describe('door flood limiter', () => {
  it('answers 429 with Retry-After past the burst', async () => {
    const h = await startHarness({ settings: { doorRate: 0.001, doorBurst: 1 } });
    try {
      const first = await h.call('/universal_webhook/t1', { method: 'POST', json: {} });
      expect(first.status).toBe(200);
      const second = await h.call('/universal_webhook/t1', { method: 'POST', json: {} });
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The management API's error shape, the message naming the settings that set the limit.
      expect(second.body).toEqual({ error: { kind: 'unavailable', message: expect.stringContaining('HOOKS_DOOR_RATE') } });
      expect((second.body as { error: { message: string } }).error.message).toMatch(
        /^too many requests to the public door from this client or on this topic; retry in [1-9]\d* s \(Retry-After\)\. The limit is HOOKS_DOOR_RATE requests a second with a burst of HOOKS_DOOR_BURST, per client and per topic/,
      );
    } finally {
      await h.close();
    }
  });

  it('a trigger link past the burst: 429 in the same shape, naming the link and HOOKS_DOOR_RATE', async () => {
    const h = await startHarness({ settings: { doorRate: 0.001, doorBurst: 1 } });
    try {
      expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('limited', 'limited') })).status).toBe(201);
      const { path } = (await h.call('/api/hooks/limited/links', { method: 'POST', role: 'operator', json: {} })).body;
      expect((await h.call(path, { method: 'POST', json: {} })).status).toBe(200);
      const second = await h.call(path, { method: 'POST', json: {} });
      expect(second.status).toBe(429);
      expect(second.body).toEqual({ error: { kind: 'unavailable', message: expect.stringContaining('on this trigger link') } });
      expect((second.body as { error: { message: string } }).error.message).toContain(
        'HOOKS_DOOR_RATE requests a second with a burst of HOOKS_DOOR_BURST, per client and per link',
      );
    } finally {
      await h.close();
    }
  });

  it('limits the API per client with its own (looser) rate', async () => {
    const h = await startHarness({ settings: { apiRate: 0.001 } });
    try {
      let last = 0;
      for (let i = 0; i < 5 && last !== 429; i++) last = (await h.call('/api/hooks', { role: 'reader' })).status;
      expect(last).toBe(429);
    } finally {
      await h.close();
    }
  });
});
