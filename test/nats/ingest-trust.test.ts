/**
 * The NATS door and verifier bindings: a topic bound to a verifier is not fed
 * over NATS (the message is terminated, counted, logged naming the topic)
 * unless its binding says `nats: "trusted"`; a run kept from NATS records door
 * `nats`, never verified, so it cannot answer (resume or take) an approval,
 * even from a hook the rule lists in `answer_hooks` on a trusted topic.
 * First on the handler over the memory stores, then through JetStream.
 */
import { headers as natsHeaders } from 'nats';
import { ManualClock, createMetrics, silentLogger, type Hook, type Logger, type VerifierBinding } from '@hookyard/core';
import { createMemoryBus, createNatsIngest, ingestSubject, type IngestMessage, type IngestVerdict, type NatsIngest } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { waitTool } from '@hookyard/tools';
import { createNatsIngestHandler } from '../../services/ingress/src/nats';
import { harness, hook as executorHook, tableJq, testTool } from '../../services/executor/test/fixtures';
import { waitFor } from '../../packages/bus/test/support';
import { setupNats, type NatsSetup } from '../support/services';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const AT = new Date(NOW).toISOString();

function hook(name: string, topic: string): Hook {
  return { name, topic, tool: 'echo', tool_kwargs: {}, created_at: AT, updated_at: AT };
}

function binding(topic: string, extra: Partial<VerifierBinding> = {}): VerifierBinding {
  return { topic, kind: 'slack', settings: { tolerance_seconds: 300 }, secrets: ['env:HOOKS_SECRET_SLACK'], created_at: AT, updated_at: AT, ...extra };
}

function message(topic: string, body: string, msgId: string | null = null): IngestMessage {
  return { topic, data: new TextEncoder().encode(body), headers: { 'content-type': 'application/json' }, msgId };
}

function recordingLogger(): Logger & { warnings: Array<{ obj: Record<string, unknown>; msg: string }> } {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return Object.assign(Object.create(silentLogger()) as Logger, {
    warnings,
    warn: (obj: Record<string, unknown>, msg: string) => void warnings.push({ obj, msg }),
  });
}

function handlerOver(stores: Stores, clock = new ManualClock(NOW)) {
  const metrics = createMetrics({ defaultMetrics: false });
  const logger = recordingLogger();
  const handler = createNatsIngestHandler({
    stores,
    bus: createMemoryBus(),
    metrics,
    logger,
    clock,
    dispatchGraceMs: 0,
    bodyMaxBytes: 4096,
    dedupeTtlMs: 3_600_000,
  });
  const refused = async () => (await metrics.ingestMessages.get()).values.find((v) => v.labels.verdict === 'refused')?.value ?? 0;
  return { handler, metrics, logger, refused };
}

describe('NATS door on a topic bound to a verifier (handler)', () => {
  it('refuses an unsigned message: terminated (rejected), nothing kept, counted as refused, logged at WARN naming the topic', async () => {
    const stores = createMemoryStores();
    await stores.hooks.putHook(hook('answers', 'slack-actions'));
    await stores.hooks.putVerifier(binding('slack-actions'));
    const t = handlerOver(stores);
    expect(await t.handler(message('slack-actions', '{"id":"x"}', 'm-1'))).toBe('rejected');
    expect((await stores.runs.list({ topic: 'slack-actions' }, 10)).runs).toEqual([]);
    expect(await t.refused()).toBe(1);
    const warn = t.logger.warnings.at(-1)!;
    expect(warn.obj.topic).toBe('slack-actions');
    expect(warn.msg).toContain('slack-actions');
    expect(String(warn.obj.reason)).toContain('verifier binding');
    // The refusal claimed nothing: a delivery id stays free.
    expect(
      (await stores.runs.keepDelivery({ topic: 'slack-actions', payload: {}, now: NOW, dispatchGraceMs: 0, door: 'nats' }, { id: 'm-1', ttlMs: 1000 })).status,
    ).toBe('kept');
  });

  it('keeps a message on a topic whose binding says nats "trusted": door nats, not verified; an open topic the same', async () => {
    const stores = createMemoryStores();
    await stores.hooks.putHook(hook('answers', 'slack-actions'));
    await stores.hooks.putHook(hook('plain', 'orders'));
    await stores.hooks.putVerifier(binding('slack-actions', { nats: 'trusted' }));
    const t = handlerOver(stores);
    expect(await t.handler(message('slack-actions', '{"id":"x"}', 'm-1'))).toBe('accepted');
    expect(await t.handler(message('orders', '{"n":1}'))).toBe('accepted');
    for (const topic of ['slack-actions', 'orders']) {
      const [run] = (await stores.runs.list({ topic }, 10)).runs;
      expect(run).toMatchObject({ door: 'nats', verified: false });
      expect(run!.history[0]!.detail).toContain('nats door');
    }
    expect(await t.refused()).toBe(0);
  });
});

describe('an approval answered from a NATS-kept run', () => {
  const approveNamed = (p: unknown) => [{ id: (p as { id: string }).id, payload: { verdict: 'approve' } }];
  const takeNamed = (p: unknown) => [{ take: (p as { id: string }).id }];

  /** A `deploy` run parked on an approval whose rule lists `slack-answers`; the answering hook's topic is NATS-trusted. */
  async function parkedApproval() {
    const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
    const h = harness({ jq: tableJq({ 'approve-named': approveNamed, 'take-named': takeNamed }), tools: [deploy, waitTool] });
    h.clock.set(NOW);
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'approve', answer_hooks: ['slack-answers'], timeout_seconds: 600 }], null, NOW);
    await h.stores.hooks.putHook(executorHook({ name: 'ship', topic: 'ship', tool: 'deploy', tool_kwargs: { env: 'prod' } }));
    await h.stores.hooks.putVerifier(binding('slack-actions', { nats: 'trusted' }));
    const [ship] = await h.keep('ship', {});
    await h.executor.handle(ship!);
    const parked = (await h.stores.runs.get(ship!))!;
    expect(parked.status).toBe('parked');
    const nats = handlerOver(h.stores, h.clock);
    /** Publishes `{id}` on `slack-actions` through the NATS handler and runs the kept run. */
    const answerOverNats = async (id: string) => {
      expect(await nats.handler(message('slack-actions', JSON.stringify({ id })))).toBe('accepted');
      const [run] = (await h.stores.runs.list({ topic: 'slack-actions' }, 1)).runs;
      expect(run).toMatchObject({ door: 'nats', verified: false });
      await h.executor.handle(run!.id);
      return (await h.stores.runs.get(run!.id))!;
    };
    return { h, deploy, ship: ship!, interaction: parked.parked_on[0]!, answerOverNats };
  }

  it('resume: refused unauthorized, saying the run came through the nats door unverified; the approval stays open and the tool is not called', async () => {
    const t = await parkedApproval();
    await t.h.stores.hooks.putHook(executorHook({ name: 'slack-answers', topic: 'slack-actions', tool: 'echo', resume_expr: { content: 'approve-named' } }));
    const answer = await t.answerOverNats(t.interaction);
    expect(answer).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(answer.error!.message).toContain(`run ${answer.id} came through the nats door unverified`);
    expect((await t.h.stores.interactions.get(t.interaction))?.status).toBe('open');
    expect((await t.h.stores.runs.get(t.ship))?.status).toBe('parked');
    expect(t.deploy.calls).toHaveLength(0);
  });

  it("take: refused unauthorized; the approved call's kept outcome is not used up", async () => {
    const t = await parkedApproval();
    await t.h.stores.interactions.resolve(t.interaction, { status: 'approved', by: 'operator:ops', via: 'api' }, NOW);
    await t.h.executor.handle(t.ship);
    expect((await t.h.stores.runs.get(t.ship))?.status).toBe('succeeded');
    await t.h.stores.hooks.putHook(executorHook({ name: 'slack-answers', topic: 'slack-actions', tool: 'echo', resume_expr: { content: 'take-named' } }));
    const taker = await t.answerOverNats(t.interaction);
    expect(taker).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(taker.error!.message).toContain(`run ${taker.id} came through the nats door unverified`);
    expect((await t.h.stores.interactions.get(t.interaction))?.status).toBe('approved');
  });
});

describe('NATS door on a verifier-bound topic, through JetStream', () => {
  let nats: NatsSetup;
  let ingest: NatsIngest;
  beforeAll(async () => {
    nats = await setupNats('ingtrust');
    ingest = await createNatsIngest({ url: nats.url, prefix: nats.prefix, ackWaitMs: 5000, retryDelayMs: 300 });
  });
  afterAll(async () => {
    await ingest?.close();
    await nats?.close();
  });

  it('an unsigned publish is terminated (never redelivered) and keeps nothing; a trusted topic keeps its message', async () => {
    const stores = createMemoryStores();
    await stores.hooks.putHook(hook('answers', 'slack-actions'));
    await stores.hooks.putHook(hook('trusted-answers', 'trusted'));
    await stores.hooks.putVerifier(binding('slack-actions'));
    await stores.hooks.putVerifier(binding('trusted', { nats: 'trusted' }));
    const t = handlerOver(stores);
    const verdicts: IngestVerdict[] = [];
    await ingest.start(async (m) => {
      const v = await t.handler(m);
      verdicts.push(v);
      return v;
    });
    const js = nats.nc.jetstream();
    const h = natsHeaders();
    h.set('Nats-Msg-Id', 'unsigned-1');
    await js.publish(ingestSubject(nats.prefix, 'slack-actions'), '{"actions":[{"value":"i-1","action_id":"approve"}]}', { headers: h });
    await waitFor('the refusal', () => verdicts.length === 1);
    expect(verdicts).toEqual(['rejected']);
    // Terminated: the consumer holds nothing pending or unacknowledged, the work queue is empty.
    const jsm = await nats.jsm();
    await waitFor('the termination', async () => {
      const info = await jsm.consumers.info(nats.stream('INGEST'), 'ingress');
      return info.num_ack_pending === 0 && info.num_pending === 0 && info.num_redelivered === 0;
    });
    expect((await stores.runs.list({}, 10)).runs).toEqual([]);
    expect(await t.refused()).toBe(1);

    await js.publish(ingestSubject(nats.prefix, 'trusted'), '{"n":1}');
    await waitFor('the trusted message', () => verdicts.length === 2);
    expect(verdicts).toEqual(['rejected', 'accepted']);
    expect((await stores.runs.list({}, 10)).runs.map((r) => [r.topic, r.door, r.verified])).toEqual([['trusted', 'nats', false]]);
  });
});
