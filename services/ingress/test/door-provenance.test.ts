/**
 * Provenance of every run: which door kept it (`http`, `nats`, `api` for a
 * replay, `platform` for a platform event) and whether its event passed a
 * verifier, shown by the API and told by the run's first history line. The
 * NATS door's delivery claims live apart from the HTTP door's, so a NATS
 * message carrying a GitHub delivery GUID as its Nats-Msg-Id cannot make the
 * genuine signed delivery a duplicate. A binding's `nats` field is checked.
 */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { createMetrics, silentLogger } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createRunReporter } from '@hookyard/report';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createSecretResolver } from '../src/verify';
import { createNatsIngestHandler } from '../src/nats';
import { hook, startHarness, type Harness } from './support/harness';

const GITHUB_SECRET = 'provenance-github-secret';
const env = { HOOKS_SECRET_GITHUB_WEBHOOK: GITHUB_SECRET, HOOKS_SECRET_X: 'provenance-x-secret' } as NodeJS.ProcessEnv;
const GUID = '8f1b2c00-5f4e-11ef-9a52-0c0a9f3b1d2e';

describe('run provenance: door and verified', () => {
  let h: Harness;
  let stores: Stores;
  beforeAll(async () => {
    stores = createMemoryStores();
    h = await startHarness({ stores, deps: { secrets: createSecretResolver({ env }) } });
    for (const [name, topic] of [
      ['gh', 'github'],
      ['open', 'orders'],
      ['alerts', 'hooks_run_failed'],
      ['asks', 'hooks_approval_requested'],
    ] as const) {
      await stores.hooks.putHook({ ...(hook(name, topic) as any), created_at: 'x', updated_at: 'x' });
    }
    const bound = await h.call('/api/hooks/topics/github/verifier', {
      method: 'PUT',
      role: 'admin',
      json: { kind: 'github', secret: 'env:HOOKS_SECRET_GITHUB_WEBHOOK', nats: 'trusted' },
    });
    expect(bound.status).toBe(201);
  });
  afterAll(() => h.close());

  const nats = () =>
    createNatsIngestHandler({
      stores,
      bus: createMemoryBus(),
      metrics: createMetrics({ defaultMetrics: false }),
      logger: silentLogger(),
      dispatchGraceMs: 15_000,
      bodyMaxBytes: 4096,
      dedupeTtlMs: 3_600_000,
    });
  const github = async (body: string, delivery: string) =>
    h.call('/universal_webhook/github', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': delivery,
        'x-hub-signature-256': await githubSign(GITHUB_SECRET, body),
      },
    });
  const wire = async (id: string) => (await h.call(`/api/hook-runs/${id}`, { role: 'reader' })).body;

  it('a NATS message whose Nats-Msg-Id is a GitHub delivery GUID does not make the genuine signed delivery a duplicate', async () => {
    const handler = nats();
    const forged = { topic: 'github', data: new TextEncoder().encode('{"forged":true}'), headers: { 'content-type': 'application/json' }, msgId: GUID };
    expect(await handler(forged)).toBe('accepted');
    const genuine = await github('{"ref":"refs/heads/main"}', GUID);
    expect(genuine.status).toBe(200);
    expect(genuine.body).toMatchObject({ status: 'accepted', runs: 1 });
    // The genuine one is still deduplicated against itself; the NATS repeat against the NATS claim.
    expect((await github('{"ref":"refs/heads/main"}', GUID)).body).toEqual({ status: 'duplicate' });
    expect(await handler(forged)).toBe('duplicate');
    const runs = (await stores.runs.list({ topic: 'github' }, 10)).runs;
    expect(runs.map((r) => [r.delivery_id, r.door, r.verified]).sort()).toEqual([
      [GUID, 'http', true],
      [GUID, 'nats', false],
    ]);
  });

  it('shows door and verified through the API for http (verified and open), nats, replay and platform events', async () => {
    const signed = await github('{"n":1}', 'delivery-2');
    const open = await h.call('/universal_webhook/orders', { method: 'POST', json: { n: 2 } });
    expect(await nats()({ topic: 'orders', data: new TextEncoder().encode('{"n":3}'), headers: {}, msgId: null })).toBe('accepted');
    const natsRun = (await stores.runs.list({ topic: 'orders' }, 10)).runs.find((r) => (r.payload as { n: number }).n === 3)!;

    const verified = await wire(signed.body.run_ids[0]);
    expect(verified).toMatchObject({ door: 'http', verified: true });
    expect(verified.history[0].detail).toBe('event on github through the http door, verified by its github binding');
    const unverified = await wire(open.body.run_ids[0]);
    expect(unverified).toMatchObject({ door: 'http', verified: false });
    expect(unverified.history[0].detail).toBe('event on orders through the http door, not verified');
    expect(await wire(natsRun.id)).toMatchObject({ door: 'nats', verified: false });
    expect((await wire(natsRun.id)).history[0].detail).toBe('event on orders through the nats door, not verified');

    // A replay is an operator's act through the API: door api, never verified (the operator vouches, no signature was checked now).
    const claimed = await stores.runs.claim(signed.body.run_ids[0], 'w', 30_000, Date.now());
    await stores.runs.complete(signed.body.run_ids[0], claimed!.token, 'succeeded', null, Date.now());
    const replay = await h.call(`/api/hook-runs/${signed.body.run_ids[0]}/replay`, { method: 'POST', role: 'operator' });
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ door: 'api', verified: false, replay_of: signed.body.run_ids[0] });
    expect((await wire(replay.body.id)).history[0].detail).toBe(`replay of run ${signed.body.run_ids[0]} through the api door, not verified`);

    // Platform events: the hooks_run_failed a fail transition keeps, and one the executor fires.
    const c = await stores.runs.claim(open.body.run_ids[0], 'w', 30_000, Date.now());
    await stores.runs.fail(open.body.run_ids[0], c!.token, { kind: 'bad_input', message: 'no' }, Date.now());
    const [failedEvent] = (await stores.runs.list({ topic: 'hooks_run_failed' }, 10)).runs;
    expect(await wire(failedEvent!.id)).toMatchObject({ door: 'platform', verified: false });
    const reporter = createRunReporter({
      runs: stores.runs,
      bus: createMemoryBus(),
      metrics: createMetrics({ defaultMetrics: false }),
      logger: silentLogger(),
      clock: { now: () => Date.now() },
      dispatchGraceMs: 15_000,
    });
    await reporter.platformEvent('hooks_approval_requested', { interaction: 'i-1' }, { run: 'r', hook: 'h' });
    const [asked] = (await stores.runs.list({ topic: 'hooks_approval_requested' }, 10)).runs;
    expect(await wire(asked!.id)).toMatchObject({ door: 'platform', verified: false });
    expect((await wire(asked!.id)).history[0].detail).toBe('event on hooks_approval_requested through the platform door, not verified');
  });

  it('the http, nats and trigger doors keep only the allowlisted request headers; a replay and a platform event keep none', async () => {
    const signed = await github('{"n":4}', 'delivery-4');
    const run = await wire(signed.body.run_ids[0]);
    // Never the signature the binding checked (fetch adds its own user-agent).
    expect(run.headers).toEqual({
      'content-type': 'application/json',
      'content-length': '7',
      'user-agent': expect.any(String),
      'x-github-event': 'push',
      'x-github-delivery': 'delivery-4',
    });
    const natsHeaders = { 'content-type': 'application/json', 'x-request-id': 'n-4', authorization: 'Bearer s3cr3t', 'x-hub-signature-256': 'sha256=x' };
    expect(await nats()({ topic: 'orders', data: new TextEncoder().encode('{"n":5}'), headers: natsHeaders, msgId: null })).toBe('accepted');
    const natsRun = (await stores.runs.list({ topic: 'orders' }, 20)).runs.find((r) => (r.payload as { n: number }).n === 5)!;
    expect((await wire(natsRun.id)).headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'n-4' });
    const claimed = await stores.runs.claim(run.id, 'w', 30_000, Date.now());
    await stores.runs.fail(run.id, claimed!.token, { kind: 'bad_input', message: 'no' }, Date.now());
    const replay = await h.call(`/api/hook-runs/${run.id}/replay`, { method: 'POST', role: 'operator' });
    expect(replay.body).toMatchObject({ door: 'api', headers: null });
    const failedEvents = (await stores.runs.list({ topic: 'hooks_run_failed' }, 20)).runs;
    expect(failedEvents.length).toBeGreaterThan(0);
    for (const e of failedEvents) expect(e.headers).toBeNull();
  });

  it('a verifier binding\'s nats field: only "trusted", shown on read; any other value is a 400 naming the field', async () => {
    expect((await h.call('/api/hooks/topics/github/verifier', { role: 'reader' })).body).toMatchObject({ topic: 'github', nats: 'trusted' });
    for (const bad of ['yes', true, null, 'refused']) {
      const r = await h.call('/api/hooks/topics/t-nats/verifier', {
        method: 'PUT',
        role: 'admin',
        json: { kind: 'github', secret: 'env:HOOKS_SECRET_X', nats: bad },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.details).toEqual([`nats must be "trusted" (or left out: the NATS door refuses the topic), got ${JSON.stringify(bad)}`]);
    }
    const plain = await h.call('/api/hooks/topics/t-nats/verifier', { method: 'PUT', role: 'admin', json: { kind: 'github', secret: 'env:HOOKS_SECRET_X' } });
    expect(plain.status).toBe(201);
    expect((await h.call('/api/hooks/topics/t-nats/verifier', { role: 'reader' })).body.nats).toBeUndefined();
  });
});
