import { createMemoryStores, createRedisStores, type Stores } from '@hookyard/store';
import { waitTool } from '@hookyard/tools';
import type { Interaction } from '@hookyard/core';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { harness, hook, tableJq, testTool } from './fixtures';

/**
 * A door act that landed is never held as failed when the records prove it
 * (issue 24). Each case writes what a killed executor leaves in the store
 * (claim, claim intent, the commit on the interaction, maybe `acted`), lets
 * the lease lapse, and lets another executor take the run over: it ends with
 * the outcome an uninterrupted attempt gets, and commits nothing again. A
 * claim the records cannot attribute to this run stays held.
 */
const prefix = uniquePrefix('landed');
let url = '';
let n = 0;
const opened: Stores[] = [];

afterAll(async () => {
  for (const s of opened) await s.close();
  if (url) await deleteRedisKeys(prefix, url);
});

const backends: [string, () => Promise<Stores>][] = [
  ['memory', async () => createMemoryStores()],
  [
    'redis',
    async () => {
      url ||= await requireRedis();
      const s = await createRedisStores({ url, prefix: `${prefix}x${(n += 1)}`, partitions: 2 });
      opened.push(s);
      return s;
    },
  ],
];

const policy = { maxAttempts: 5, retryDelayMs: 0 };

async function setup(make: () => Promise<Stores>) {
  const stores = await make();
  const echo = testTool('echo', async ({ args }) => args);
  const jq = tableJq({
    'resume-named': (p) => [(p as { ids: string[] }).ids.map((id) => ({ id, payload: { merged: true } }))],
    'take-named': (p) => [{ take: (p as { ids: string[] }).ids[0] }],
  });
  const h = harness({ jq, tools: [waitTool, echo], stores: () => stores });
  await stores.hooks.putHook(hook({ name: 'waiter', topic: 'opened', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 } }));
  await stores.hooks.putHook(hook({ name: 'resumer', topic: 'merged', tool: 'echo', resume_expr: { content: 'resume-named' } }));
  await stores.hooks.putHook(hook({ name: 'taker', topic: 'take', tool: 'echo', resume_expr: { content: 'take-named' } }));
  /** A parked `wait` run and its interaction. */
  const park = async () => {
    const [id] = await h.keep('opened', {});
    await h.executor.handle(id!);
    const run = (await stores.runs.get(id!))!;
    expect(run.status).toBe('parked');
    return { waiter: id!, interaction: run.parked_on[0]! };
  };
  /**
   * A door run whose executor was killed: claimed by a dead worker, its claim intent written, its
   * claim committed on `commitOn` (as commitAct does: by `hook:<name> run:<id>`), `acted` recorded
   * or not; then its lease lapses and the sweep applies the interrupt policy.
   */
  const killed = async (verb: 'resume' | 'take', ids: string[], commitOn: string[], recordActed: boolean) => {
    const topic = verb === 'take' ? 'take' : 'merged';
    const name = verb === 'take' ? 'taker' : 'resumer';
    const [id] = await h.keep(topic, { ids });
    const c = await stores.runs.claim(id!, 'dead-worker', 1_000, h.clock.now());
    await stores.runs.setClaimIntent(id!, c!.token, `${verb}:${ids.join(',')}`, h.clock.now());
    const by = `hook:${name} run:${id}`;
    const committedAt = h.clock.now();
    for (const i of commitOn) {
      if (verb === 'take') await stores.interactions.take(i, by, committedAt);
      else await stores.interactions.resolve(i, { status: 'resumed', by, via: 'hook', payload: { merged: true }, extras: null }, committedAt);
    }
    if (recordActed) await stores.runs.act(id!, c!.token, { acted: verb, actedIds: commitOn }, h.clock.now());
    h.clock.advance(2_000);
    const [lapsed] = await stores.runs.sweepLapsed(h.clock.now(), 10, policy);
    return { id: id!, committedAt, lapsed: lapsed! };
  };
  /** The interaction as resolved once, at the killed attempt's commit, by that run. */
  const resolvedOnce = async (i: string, run: string, name: string, committedAt: number) => {
    const got = (await stores.interactions.get(i)) as Interaction;
    expect(got.resolution).toMatchObject({ by: `hook:${name} run:${run}`, via: 'hook', at: new Date(committedAt).toISOString() });
    return got;
  };
  return { h, stores, park, killed, resolvedOnce };
}

describe.each(backends)('a landed door act ends with its outcome (%s)', (_name, make) => {
  it('(a) interrupted after the run recorded its resume: the lapse makes it due, the next attempt ends it succeeded, nothing resolved twice', async () => {
    const { h, stores, park, killed, resolvedOnce } = await setup(make);
    const { waiter, interaction } = await park();
    const { id, committedAt, lapsed } = await killed('resume', [interaction], [interaction], true);
    expect(lapsed).toMatchObject({ id, outcome: 'replay', error: { kind: 'unavailable' } });
    expect(lapsed.error.message).toContain(`it committed a resume on ["${interaction}"], which ends the run on the next attempt`);
    expect(await stores.runs.get(id)).toMatchObject({ status: 'pending', acted: 'resume', acted_ids: [interaction] });
    await h.executor.handle(id);
    const run = (await stores.runs.get(id))!;
    expect(run).toMatchObject({ status: 'succeeded', acted: 'resume', acted_ids: [interaction], attempts: 2, result: { resumed: [interaction] } });
    expect(run.history.filter((e) => e.event === 'acted')).toHaveLength(1);
    expect(run.history.find((e) => e.event === 'committed')?.detail).toContain(`its resume on ${interaction} committed before the interruption`);
    const i = await resolvedOnce(interaction, id, 'resumer', committedAt);
    expect(i.status).toBe('resumed');
    // The woken run ends once, with the resume's payload.
    await h.executor.handle(waiter);
    expect(await stores.runs.get(waiter)).toMatchObject({ status: 'succeeded', result: { merged: true } });
  });

  /** A wait resumed by an operator, then a take of it by a run killed after (`recorded`) or while recording its act. */
  async function takeKilled(recorded: boolean) {
    const { h, stores, park, killed } = await setup(make);
    const { waiter, interaction } = await park();
    await stores.interactions.resolve(
      interaction,
      { status: 'resumed', by: 'operator:ops', via: 'api', payload: { merged: true }, extras: null },
      h.clock.now(),
    );
    await h.executor.handle(waiter);
    const { id } = await killed('take', [interaction], [interaction], recorded);
    await h.executor.handle(id);
    expect(await stores.runs.get(id)).toMatchObject({ status: 'succeeded', acted: 'take', acted_ids: [interaction], result: { merged: true } });
    return { stores, id, interaction };
  }

  it('(a) interrupted after the run recorded its take: it ends with the taken outcome, taken once', async () => {
    const { stores, id, interaction } = await takeKilled(true);
    expect(await stores.interactions.get(interaction)).toMatchObject({ status: 'taken', taken: { by: `hook:taker run:${id}` } });
  });

  it('(b) stopped mid-claim, the interaction names this run as resolver: the claim committed, the run records it and ends succeeded', async () => {
    const { h, stores, park, killed, resolvedOnce } = await setup(make);
    const { waiter, interaction } = await park();
    const { id, committedAt, lapsed } = await killed('resume', [interaction], [interaction], false);
    expect(lapsed.outcome).toBe('retry');
    await h.executor.handle(id);
    const run = (await stores.runs.get(id))!;
    expect(run).toMatchObject({ status: 'succeeded', acted: 'resume', acted_ids: [interaction], claim_intent: '', result: { resumed: [interaction] } });
    expect(run.history.find((e) => e.event === 'claim_checked')?.detail).toContain(`${interaction} names this run as resolver: the claim committed`);
    expect(run.history.filter((e) => e.event === 'acted')).toHaveLength(1);
    await resolvedOnce(interaction, id, 'resumer', committedAt);
    await h.executor.handle(waiter);
    expect(await stores.runs.get(waiter)).toMatchObject({ status: 'succeeded', result: { merged: true } });
  });

  it('(b) stopped mid-take, the interaction names this run as taker: it ends with the taken outcome', async () => {
    await takeKilled(false);
  });

  it('still held when the records cannot tell: resolved by another door, or the claim committed on part of its ids only', async () => {
    const { h, stores, park, killed } = await setup(make);
    const other = await park();
    const { id } = await killed('resume', [other.interaction], [], false);
    await stores.interactions.resolve(other.interaction, { status: 'cancelled', by: 'operator:ops', via: 'api', payload: null, extras: null }, h.clock.now());
    await h.executor.handle(id);
    const held = (await stores.runs.get(id))!;
    expect(held).toMatchObject({ status: 'failed', acted: '', error: { kind: 'conflict' } });
    expect(held.error?.message).toContain('the platform cannot tell whether this run');

    const a = await park();
    const b = await park();
    const partial = await killed('resume', [a.interaction, b.interaction], [a.interaction], false);
    await h.executor.handle(partial.id);
    const split = (await stores.runs.get(partial.id))!;
    expect(split).toMatchObject({ status: 'failed', acted: '', error: { kind: 'conflict' } });
    expect(split.error?.message).toContain(`its claim committed on ${a.interaction} but not on ${b.interaction} (still open)`);
    expect((await stores.interactions.get(b.interaction))?.status).toBe('open');
  });
});
