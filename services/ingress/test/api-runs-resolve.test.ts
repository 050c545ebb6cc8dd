import { agentTokenHash } from '@hookyard/core';
import type { RunSummary } from '@hookyard/bus';
import { hook, startHarness, type Harness } from './support/harness';

/**
 * A run held with an unknown outcome (its non-resumable tool started and the
 * attempt's lease lapsed) and `POST /api/hook-runs/{id}/resolve`: what the
 * agent reads before (unknown, not retryable, never "a new key"), the
 * operator's verdict, its refusals, its audit entry and run event, and the
 * call's answers after (GET /api/calls/{id}, a repeat with the same key).
 * The executor is simulated through the run store's claim/act/sweepLapsed.
 */

const BOT = 'hya_resolve-test-bot-token-0123456789abcd';
const POLICY = { maxAttempts: 5, retryDelayMs: 1_000 };

describe('POST /api/hook-runs/{id}/resolve: an operator records what a run with an unknown outcome did', () => {
  let h: Harness;
  const events: RunSummary[] = [];
  const bot = { authorization: `Bearer ${BOT}` };

  beforeAll(async () => {
    h = await startHarness({
      settings: { agentWaitMs: 5_000 },
      deps: {
        events: {
          publish: async (s: RunSummary) => {
            events.push(s);
          },
        },
      },
    });
    await h.stores.agents.create({ name: 'bot', description: null, tools_allow: ['*'], tokenHash: agentTokenHash(BOT) }, Date.now());
    await h.stores.hooks.putHook({ ...(hook('deployer', 'deploys') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(() => h.close());

  /** Holds run `id` failed with an unknown outcome: claimed, its tool started (not resumable), its lease lapsed. */
  async function holdUnknown(id: string): Promise<void> {
    const now = Date.now();
    const c = await h.stores.runs.claim(id, 'exec-1', 1_000, now);
    await h.stores.runs.act(id, c!.token, { acted: 'start', actedIds: [], input: { env: 'prod' }, resumable: false }, now);
    const [out] = await h.stores.runs.sweepLapsed(now + 1_001, 10, POLICY);
    expect(out).toMatchObject({ id, outcome: 'failed', error: { kind: 'outcome_unknown' } });
  }

  async function heldHookRun(): Promise<string> {
    const [kept] = await h.stores.runs.keepEvent({ topic: 'deploys', payload: { env: 'prod' }, now: Date.now(), dispatchGraceMs: 15_000 });
    await holdUnknown(kept!.id);
    return kept!.id;
  }

  const resolve = (id: string, json: unknown, role: 'operator' | 'reader' | 'admin' = 'operator') =>
    h.call(`/api/hook-runs/${id}/resolve`, { method: 'POST', role, json });

  it("an agent's call held with an unknown outcome reads unknown, not retryable, never a new key; the verdict is what GET and a repeat answer", async () => {
    const call = { tool: 'echo', arguments: { text: 'deploy' }, idempotency_key: 'k-unknown', wait_seconds: 0 };
    const kept = await h.call('/api/calls', { method: 'POST', json: call, headers: bot });
    expect(kept.status).toBe(202);
    const id = kept.body.id as string;
    await holdUnknown(id);

    const before = await h.call(`/api/calls/${id}`, { headers: bot });
    expect(before.body).toMatchObject({ status: 'failed', done: true, error: { kind: 'outcome_unknown', retryable: false } });
    expect(before.body.sentence).toMatch(
      /^The outcome of the call to echo is unknown: it was interrupted after the tool started, so the tool may have acted\./,
    );
    expect(before.body.sentence).toContain('An operator has been asked to check what it did.');
    expect(before.body.sentence).toContain('Make the same call again (same tool, same arguments)');
    expect(before.body.sentence).not.toMatch(/retry may help|make the call again with a new idempotency key/i);
    // The management view says the same: the kind no retry changes.
    expect((await h.call(`/api/hook-runs/${id}`, { role: 'reader' })).body.error).toMatchObject({ kind: 'outcome_unknown', retryable: false });
    // An OpenAI-shaped repeat with the same key: the model reads the same sentence.
    const openai = await h.call('/api/calls', {
      method: 'POST',
      headers: bot,
      json: { id: 'k-unknown', type: 'function', function: { name: 'echo', arguments: JSON.stringify({ text: 'deploy' }) } },
    });
    expect(openai.body.content).toBe(before.body.sentence);

    events.length = 0;
    const r = await resolve(id, { outcome: 'succeeded', result: { deployed: 'v2' }, note: 'seen in the deploy log' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'succeeded', result: { deployed: 'v2' }, error: null });
    expect(r.body.history.at(-1)).toMatchObject({
      event: 'resolved',
      detail: 'resolved by operator as succeeded (the outcome was unknown); note: seen in the deploy log',
    });
    expect(events).toEqual([expect.objectContaining({ run_id: id, event: 'finished', status: 'succeeded' })]);

    const after = await h.call(`/api/calls/${id}`, { headers: bot });
    expect(after.body).toMatchObject({ status: 'succeeded', result: { deployed: 'v2' }, sentence: 'The call to echo succeeded.' });
    const repeat = await h.call('/api/calls', { method: 'POST', json: call, headers: bot });
    expect([repeat.status, repeat.body.id, repeat.body.status, repeat.body.result]).toEqual([200, id, 'succeeded', { deployed: 'v2' }]);
  });

  it('a failed verdict keeps the run failed with a non-retryable error naming the reason; the agent reads it, not a retry', async () => {
    const kept = await h.call('/api/calls', {
      method: 'POST',
      json: { tool: 'echo', arguments: { n: 2 }, idempotency_key: 'k-f', wait_seconds: 0 },
      headers: bot,
    });
    const id = kept.body.id as string;
    await holdUnknown(id);
    const r = await resolve(id, { outcome: 'failed', reason: 'the deploy never reached prod' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'failed',
      error: {
        kind: 'operator_failed',
        retryable: false,
        message: 'operator checked what the tool did and recorded that it failed: the deploy never reached prod',
      },
    });
    const view = (await h.call(`/api/calls/${id}`, { headers: bot })).body;
    expect(view).toMatchObject({ status: 'failed', error: { kind: 'operator_failed', retryable: false } });
    expect(view.sentence).toContain('the deploy never reached prod');
    expect(view.sentence).not.toMatch(/new idempotency key/);
  });

  it("a hook's run is resolved the same way; the audit entry names the actor, the verdict and the run before and after", async () => {
    const id = await heldHookRun();
    const r = await resolve(id, { outcome: 'succeeded', note: 'checked by hand' }, 'admin');
    expect(r.body).toMatchObject({ status: 'succeeded', result: null });
    expect(r.body.history.at(-1).detail).toBe('resolved by admin as succeeded (the outcome was unknown); note: checked by hand');
    const entries = await waitForAudit(id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { kind: 'token', role: 'admin' },
      action: 'run.resolve',
      target: id,
      status: 200,
      before: { id, status: 'failed' },
      after: { id, status: 'succeeded' },
      detail: { outcome: 'succeeded', reason: null, note: 'checked by hand' },
    });
  });

  async function waitForAudit(id: string): Promise<any[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const entries = (await h.call(`/api/audit?target=${id}&action=run.resolve`, { role: 'admin' })).body.entries as any[];
      if (entries.length > 0 || Date.now() > deadline) return entries;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it.each([
    [{}, ['outcome is required']],
    [{ outcome: 'maybe' }, ['outcome must be "succeeded" or "failed", got "maybe"']],
    [{ outcome: 'failed' }, ['reason is required with outcome "failed": say what you found the tool did (or did not do)']],
    [{ outcome: 'failed', reason: '   ' }, ['reason is required with outcome "failed": say what you found the tool did (or did not do)']],
    [{ outcome: 'failed', reason: 'no', result: 1 }, ['result goes with outcome "succeeded"; a failed verdict carries reason (and a note)']],
    [{ outcome: 'succeeded', reason: 'x' }, ['reason goes with outcome "failed"; a succeeded verdict carries result (and a note)']],
    [{ outcome: 'succeeded', by: 'me' }, ["unknown field 'by'"]],
    [{ outcome: 'succeeded', note: 7 }, ['note must be a string of at most 2000 characters, got 7']],
  ])('a bad body %j is 400 naming each bad field, and the run stays held', async (body, lines) => {
    const id = await heldHookRun();
    const r = await resolve(id, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ kind: 'bad_input', message: 'resolve refused', details: lines });
    expect((await h.call(`/api/hook-runs/${id}`, { role: 'reader' })).body).toMatchObject({ status: 'failed', error: { kind: 'outcome_unknown' } });
  });

  it('409 for a run not held with an unknown outcome (naming its status and kind), and for a second verdict; 404 for no run; 403 for a reader', async () => {
    const [pending] = await h.stores.runs.keepEvent({ topic: 'deploys', payload: {}, now: Date.now(), dispatchGraceMs: 15_000 });
    const p = await resolve(pending!.id, { outcome: 'succeeded' });
    expect(p.status).toBe(409);
    expect(p.body.error.message).toBe(
      `run ${pending!.id} is pending; only a run held failed with an unknown outcome (kind outcome_unknown: its tool may have acted) can be resolved`,
    );
    const [other] = await h.stores.runs.keepEvent({ topic: 'deploys', payload: {}, now: Date.now(), dispatchGraceMs: 15_000 });
    const c = await h.stores.runs.claim(other!.id, 'exec-1', 30_000, Date.now());
    await h.stores.runs.fail(other!.id, c!.token, { kind: 'bad_input', message: 'condition raised' }, Date.now());
    const f = await resolve(other!.id, { outcome: 'failed', reason: 'x' });
    expect(f.status).toBe(409);
    expect(f.body.error.message).toMatch(
      /is failed with kind bad_input; only a run held failed with an unknown outcome .* can be resolved; retry or discard it instead$/,
    );

    const id = await heldHookRun();
    expect((await resolve(id, { outcome: 'failed', reason: 'nothing happened' })).status).toBe(200);
    const again = await resolve(id, { outcome: 'succeeded' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('is failed with kind operator_failed');

    expect((await resolve('0mhx5d3k0000a1b2c3d40100', { outcome: 'succeeded' })).status).toBe(404);
    expect((await resolve(await heldHookRun(), { outcome: 'succeeded' }, 'reader')).status).toBe(403);
  });
});
