import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../support/services';
import { SECURITY, startDoorApp, type DoorApp } from './support';

/**
 * Replay protection of a `standard-webhooks` topic across the whole ingress
 * (door -> verifier -> delivery claim -> parse -> keep), signed by the
 * `standardwebhooks` reference library with the secret behind an `env:`
 * reference. Runs on the memory store and on the real Redis store.
 */

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const NEXT_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ENV = 'HOOKS_SECRET_DOOR_REPLAY';
const ENV_NEXT = 'HOOKS_SECRET_DOOR_REPLAY_NEXT';
const TOPIC = 'billing';

function signed(secret: string, id: string, body: string, at = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

async function deliver(app: DoorApp, headers: Record<string, string>, body: string) {
  const res = await fetch(`${app.url}/universal_webhook/${TOPIC}`, { method: 'POST', headers, body });
  const text = await res.text();
  expect({ nosniff: res.headers.get('x-content-type-options'), cache: res.headers.get('cache-control') }).toEqual(SECURITY);
  return { status: res.status, body: JSON.parse(text) as unknown };
}

async function runsFor(app: DoorApp, eventId: string): Promise<number> {
  const page = await app.inner.runs.list({ topic: TOPIC }, 500);
  return page.runs.filter((r) => (r.payload as { id?: unknown }).id === eventId).length;
}

function replaySuite(label: string, makeStores: () => Promise<{ stores: Stores; cleanup(): Promise<void> }>) {
  describe(`replay on a standard-webhooks topic (${label} store)`, () => {
    let app: DoorApp;
    let cleanup: () => Promise<void> = async () => undefined;
    const saved = { [ENV]: process.env[ENV], [ENV_NEXT]: process.env[ENV_NEXT] };

    beforeAll(async () => {
      process.env[ENV] = SECRET;
      process.env[ENV_NEXT] = NEXT_SECRET;
      const made = await makeStores();
      cleanup = made.cleanup;
      app = await startDoorApp({ stores: made.stores, deps: { limiter: null } });
      await app.putHook('billing-a', TOPIC);
      await app.putVerifier(TOPIC, { kind: 'standard-webhooks', secrets: [`env:${ENV}`, `env:${ENV_NEXT}`] });
    });
    afterAll(async () => {
      await app?.close();
      await cleanup();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });

    it('the same delivery twice: accepted, then 200 duplicate, one run kept', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({ id, type: 'invoice.paid' });
      const headers = signed(SECRET, id, body);
      const keeps = app.keeps.length;
      expect(await deliver(app, headers, body)).toEqual({
        status: 200,
        body: { status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) },
      });
      expect(await deliver(app, headers, body)).toEqual({ status: 200, body: { status: 'duplicate' } });
      // Claim and keep are one store step: the duplicate is the store's answer, and it wrote nothing.
      expect(app.keeps.slice(keeps).map((k) => [k.kept?.length ?? null, k.duplicate])).toEqual([
        [1, false],
        [null, true],
      ]);
      expect(await runsFor(app, id)).toBe(1);
    });

    it('a retry re-signed with a new timestamp (and the rotated secret) is still a duplicate', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({ id, type: 'invoice.paid' });
      const first = new Date(Date.now() - 60_000);
      expect((await deliver(app, signed(SECRET, id, body, first), body)).body).toEqual({
        status: 'accepted',
        runs: 1,
        run_ids: [expect.any(String)],
        event_id: expect.any(String),
      });
      expect(await deliver(app, signed(NEXT_SECRET, id, body), body)).toEqual({ status: 200, body: { status: 'duplicate' } });
      expect(await runsFor(app, id)).toBe(1);
    });

    it('a forged delivery claims nothing: the genuine one with the same id is accepted after it', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({ id, type: 'invoice.paid' });
      const forged = signed(`whsec_${randomBytes(24).toString('base64')}`, id, body);
      expect(await deliver(app, forged, body)).toEqual({ status: 401, body: { error: 'webhook verification failed' } });
      expect((await deliver(app, signed(SECRET, id, body), body)).body).toEqual({
        status: 'accepted',
        runs: 1,
        run_ids: [expect.any(String)],
        event_id: expect.any(String),
      });
      expect(await runsFor(app, id)).toBe(1);
    });

    it('a keep that fails answers 500 and claims nothing: the sender retry is accepted and kept once', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({ id, type: 'invoice.failed' });
      const headers = signed(SECRET, id, body);
      app.failNextKeeps(1);
      const refused = await deliver(app, headers, body);
      expect(refused.status).toBe(500);
      expect(refused.body).toEqual({ error: 'accept failed' });
      expect(await runsFor(app, id)).toBe(0);
      // The sender retries (same id, re-signed a moment later).
      expect(await deliver(app, signed(SECRET, id, body), body)).toEqual({
        status: 200,
        body: { status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) },
      });
      expect(await deliver(app, headers, body)).toEqual({ status: 200, body: { status: 'duplicate' } });
      expect(await runsFor(app, id)).toBe(1);
      const calls = app.keeps.filter((k) => (k.input.payload as { id?: unknown }).id === id);
      expect(calls.map((k) => (k.error !== null ? 'failed' : k.duplicate ? 'duplicate' : 'kept'))).toEqual(['failed', 'kept', 'duplicate']);
      expect(calls.map((k) => k.claim?.id)).toEqual([id, id, id]);
    });

    it('a signed body that does not parse is 400 and claims nothing: the corrected resend is accepted', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const broken = `{"id":"${id}",`;
      const refused = await deliver(app, signed(SECRET, id, broken), broken);
      expect(refused.status).toBe(400);
      expect((refused.body as { status: string }).status).toBe('rejected');
      const fixed = JSON.stringify({ id, type: 'invoice.paid' });
      expect((await deliver(app, signed(SECRET, id, fixed), fixed)).body).toEqual({
        status: 'accepted',
        runs: 1,
        run_ids: [expect.any(String)],
        event_id: expect.any(String),
      });
      expect(await runsFor(app, id)).toBe(1);
    });

    it('concurrent copies of one delivery keep exactly one run', async () => {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const body = JSON.stringify({ id, type: 'invoice.paid' });
      const headers = signed(SECRET, id, body);
      const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(app, headers, body)));
      const statuses = answers.map((a) => JSON.stringify(a)).sort();
      expect(statuses.filter((s) => s.includes('accepted'))).toHaveLength(1);
      expect(statuses.filter((s) => s.includes('duplicate'))).toHaveLength(7);
      expect(await runsFor(app, id)).toBe(1);
    });
  });
}

replaySuite('memory', async () => {
  const { createMemoryStores } = await import('@hookyard/store');
  return { stores: createMemoryStores(), cleanup: async () => undefined };
});

replaySuite('Redis', async () => {
  const url = await requireRedis();
  const prefix = uniquePrefix('doorreplay');
  const stores = await createRedisStores({ url, prefix, partitions: 2 });
  return {
    stores,
    async cleanup() {
      await stores.close();
      await deleteRedisKeys(prefix, url);
    },
  };
});
