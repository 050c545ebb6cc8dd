import { HOOKS_APPROVAL_REQUESTED_TOPIC, unavailable } from '@hookyard/core';
import type { ApprovalRule } from '@hookyard/core';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { declareOpen, harness, hook, tableJq, testTool } from './fixtures';
import type { Harness } from './fixtures';

/**
 * The plan made before the claim: a dispatch that carries its run's payload
 * (the door's hint) is planned first, and the claim applies the plan in its
 * own store step (start with the planned input, or skip). Whatever the claim
 * cannot apply alone — a forged or stale hint, a changed hook, a plan that
 * parks — is planned again after a plain claim, with the outcomes of before.
 */
const prefix = uniquePrefix('planned');
let url = '';
let n = 0;
const opened: Stores[] = [];

beforeAll(async () => {
  url = await requireRedis();
});

afterAll(async () => {
  for (const s of opened) await s.close();
  await deleteRedisKeys(prefix, url);
});

/** The store's run calls an attempt made, by name. */
function counting(s: Stores): { stores: Stores; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const runs = new Proxy(s.runs, {
    get(target, name, receiver) {
      const v: unknown = Reflect.get(target, name, receiver);
      if (typeof v !== 'function' || typeof name !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { stores: { ...s, runs }, calls };
}

const jq = () =>
  tableJq({
    '.go': (p) => [(p as { go?: boolean }).go === true],
    '{a: .a}': (p) => [{ a: (p as { a: unknown }).a }],
    '.env == "prod"': () => [true],
    '.args.env == "prod"': (call) => [(call as { args: { env?: string } }).args.env === 'prod'],
    '.key': (p) => [(p as { key: string }).key],
  });

const STORES: Array<[string, () => Promise<Stores | null>]> = [
  ['memory', async () => null],
  [
    'redis',
    async () => {
      const s = await createRedisStores({ url, prefix: `${prefix}x${(n += 1)}`, partitions: 2 });
      opened.push(s);
      return s;
    },
  ],
];

describe.each(STORES)('executor plans before it claims (%s store)', (_name, open) => {
  async function setup(hooks: Parameters<typeof hook>[0][], rules: ApprovalRule[] = [], wrap?: (s: Stores) => Stores) {
    const real = await open();
    let calls = new Map<string, number>();
    const tool = testTool('t', async ({ args }) => ({ echoed: args }));
    const notify = testTool('notify', async () => 'posted');
    const h: Harness = harness({
      jq: jq(),
      tools: [tool, notify],
      sleep: async (ms, clock) => clock.advance(ms),
      stores: (base) => {
        const counted = counting(wrap ? wrap(real ?? base) : (real ?? base));
        calls = counted.calls;
        return counted.stores;
      },
    });
    if (rules.length) await h.stores.hooks.putApprovalPolicy(rules, null, h.clock.now());
    for (const f of hooks) {
      if (f.subject) await declareOpen(h.stores, `${f.subject.scope}/${f.subject.kind}`);
      await h.stores.hooks.putHook(hook(f));
    }
    /** Keeps `payload` on `topic` and dispatches each run with its hint, as the door does. */
    const deliver = async (topic: string, payload: unknown, text = JSON.stringify(payload), hintTopic = topic) => {
      const kept = await h.stores.runs.keepEvent({ topic, payload, payloadJson: JSON.stringify(payload), now: h.clock.now(), dispatchGraceMs: 0 });
      for (const k of kept) await h.executor.handle(k.id, undefined, { hook: k.hook, topic: hintTopic, payloadJson: text });
      return kept.map((k) => k.id);
    };
    return { h, tool, notify, calls: () => calls, deliver };
  }

  it('a matched run: one claim step records the start with the planned input; no separate act', async () => {
    const { h, tool, calls, deliver } = await setup([
      { name: 'h', topic: 'gh', tool: 't', condition: { content: '.go' }, start_expr: { content: '{a: .a}' }, tool_kwargs: { b: 2 } },
    ]);
    const [id] = await deliver('gh', { go: true, a: 1 });
    const run = (await h.stores.runs.get(id!))!;
    expect(run).toMatchObject({ status: 'succeeded', attempts: 1, acted: 'start', input: { a: 1, b: 2 }, result: { echoed: { a: 1, b: 2 } } });
    expect(run.history.map((l) => l.event)).toEqual(['kept', 'claimed', 'acted', 'succeeded']);
    expect(tool.calls.map((c) => [c.args, c.ctx.idempotencyKey, c.ctx.topic, c.ctx.attempt])).toEqual([[{ a: 1, b: 2 }, id, 'gh', 1]]);
    expect([calls().get('claimPlanned'), calls().get('claim'), calls().get('act'), calls().get('complete')]).toEqual([1, undefined, undefined, 1]);
    expect(h.events.map((e) => [e.event, e.status])).toEqual([
      ['started', 'running'],
      ['finished', 'succeeded'],
    ]);
  });

  it('a planned claim whose answer is lost (it landed) is sent again and answers the claim it made: the tool runs once', async () => {
    let lost = 0;
    const losing = (s: Stores): Stores => {
      const runs = Object.create(s.runs) as Stores['runs'];
      runs.claimPlanned = async (...args) => {
        const landed = await s.runs.claimPlanned(...args);
        if (lost++ === 0) throw unavailable('connection closed before the answer came');
        return landed;
      };
      return { ...s, runs };
    };
    const { h, tool, calls, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't' }], [], losing);
    const [id] = await deliver('gh', { a: 1 });
    expect(lost).toBe(2);
    expect(tool.calls).toHaveLength(1);
    const run = (await h.stores.runs.get(id!))!;
    expect(run).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(run.history.map((l) => l.event)).toEqual(['kept', 'claimed', 'acted', 'succeeded']);
    expect(calls().get('claim')).toBeUndefined();
  });

  it('a condition that is false: the claim ends the run skipped in the same step; nothing else is written', async () => {
    const { h, tool, calls, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't', condition: { content: '.go' } }]);
    const [id] = await deliver('gh', { go: false });
    const run = (await h.stores.runs.get(id!))!;
    expect(run).toMatchObject({ status: 'skipped', attempts: 1, result: { condition: false }, lease: null });
    expect(run.history.map((l) => l.event)).toEqual(['kept', 'claimed', 'skipped']);
    expect(tool.calls).toHaveLength(0);
    expect([...calls().keys()].filter((k) => k !== 'keepEvent' && k !== 'get')).toEqual(['claimPlanned']);
    expect(h.events.map((e) => [e.event, e.status])).toEqual([['finished', 'skipped']]);
  });

  it('a forged hint (another payload than the kept one) changes nothing: the run is planned from what it keeps', async () => {
    const { h, tool, calls, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't', start_expr: { content: '{a: .a}' } }]);
    const [id] = await deliver('gh', { a: 'kept' }, JSON.stringify({ a: 'forged' }));
    expect((await h.stores.runs.get(id!))!).toMatchObject({ status: 'succeeded', input: { a: 'kept' } });
    expect(tool.calls.map((c) => c.args)).toEqual([{ a: 'kept' }]);
    expect([calls().get('claimPlanned'), calls().get('act')]).toEqual([1, 1]);
  });

  it('a forged topic (the approval policy and the tool see the topic) changes nothing: the run keeps its own', async () => {
    const { h, tool, calls, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't' }]);
    const [id] = await deliver('gh', { a: 1 }, undefined, 'forged');
    expect((await h.stores.runs.get(id!))!.status).toBe('succeeded');
    expect(tool.calls.map((c) => c.ctx.topic)).toEqual(['gh']);
    expect([calls().get('claimPlanned'), calls().get('act')]).toEqual([1, 1]);
  });

  it('a hook changed after this executor read it: the claim refuses the old plan, the run follows the new hook', async () => {
    const { h, tool, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't', tool_kwargs: { v: 1 } }]);
    await deliver('gh', {});
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', tool_kwargs: { v: 2 } }));
    const [id] = await deliver('gh', {});
    expect(tool.calls.map((c) => c.args)).toEqual([{ v: 1 }, { v: 2 }]);
    expect((await h.stores.runs.get(id!))!.input).toEqual({ v: 2 });
  });

  it('a policy changed after this executor read it: the claim refuses the old decision, the new policy denies the run', async () => {
    const { h, tool, calls, deliver } = await setup([{ name: 'h', topic: 'gh', tool: 't' }]);
    await deliver('gh', {});
    await h.stores.hooks.putApprovalPolicy([{ tools: ['t'], action: 'deny' }], null, h.clock.now());
    const [id] = await deliver('gh', {});
    expect(tool.calls).toHaveLength(1);
    expect((await h.stores.runs.get(id!))!.status).toBe('denied');
    expect([calls().get('claimPlanned'), calls().get('claim')]).toEqual([2, undefined]);
    // The refused plan made the executor read the policy again: the next run is planned on the new one.
    const [next] = await deliver('gh', {});
    expect((await h.stores.runs.get(next!))!.status).toBe('denied');
    expect(calls().get('claim')).toBe(1);
  });

  it('an approval that parks is planned after a plain claim: the run parks as before', async () => {
    const rule: ApprovalRule = { name: 'prod', tools: ['t'], when: '.args.env == "prod"', action: 'approve', timeout_seconds: 600 };
    const { h, tool, notify, calls, deliver } = await setup(
      [
        { name: 'ship', topic: 'gh', tool: 't', tool_kwargs: { env: 'prod' } },
        { name: 'ask', topic: HOOKS_APPROVAL_REQUESTED_TOPIC, tool: 'notify' },
      ],
      [rule],
    );
    const [id] = await deliver('gh', {});
    expect((await h.stores.runs.get(id!))!).toMatchObject({ status: 'parked', acted: '' });
    expect(tool.calls).toHaveLength(0);
    expect(calls().get('claimPlanned') ?? 0).toBe(0);
    expect(calls().get('claim')).toBe(1);
    // The approval request is an event of its own on the approvals topic (kept, not yet run here).
    expect(notify.calls).toHaveLength(0);
  });

  it('a hook with a subject ($state, $parked are reads) and a message without a hint (an older publisher) claim first', async () => {
    const { h, tool, calls, deliver } = await setup([
      { name: 'keyed', topic: 'gh', tool: 't', subject: { scope: 's', kind: 'k', key_expr: { content: '.key' } } },
    ]);
    await deliver('gh', { key: 'a' });
    const [bare] = await h.keep('gh', { key: 'b' });
    await h.executor.handle(bare!);
    expect(tool.calls).toHaveLength(2);
    expect(calls().get('claimPlanned') ?? 0).toBe(0);
    expect(calls().get('claim')).toBe(2);
    expect((await h.stores.runs.get(bare!))!.status).toBe('succeeded');
  });
});
