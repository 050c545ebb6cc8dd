import { HOOKS_RUN_FAILED_TOPIC, HookyardError, TOOL_EXTRA_IDEMPOTENCY_KEY, type ErrorKind, type Hook } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { counter, declareOpen, harness, hook, tableJq, testTool } from './fixtures';

const payload = { action: 'opened', number: 7, title: 'hi' };

function jq() {
  return tableJq({
    '.action == "opened"': (p) => [(p as typeof payload).action === 'opened'],
    '.action == "closed"': (p) => [(p as typeof payload).action === 'closed'],
    'error("boom")': () => {
      throw new HookyardError('bad_input', 'jq: error (at <stdin>:0): boom');
    },
    '{number, title, mode: "payload"}': (p) => [{ number: (p as typeof payload).number, title: (p as typeof payload).title, mode: 'payload' }],
    '.number': (p) => [(p as typeof payload).number],
    $parked: (_p, vars) => [vars.parked],
  });
}

describe('executor: one attempt', () => {
  it('skips a run whose condition is false, without calling the tool', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '.action == "closed"' } }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'skipped', result: { condition: false }, attempts: 1, acted: '' });
    expect(tool.calls).toHaveLength(0);
    expect(h.events.map((e) => [e.run_id, e.event, e.status])).toEqual([
      [id, 'started', 'running'],
      [id, 'finished', 'skipped'],
    ]);
    expect(await counter(h.metrics.skipped, { hook: 'h' })).toBe(1);
  });

  it('reads the approval policy beside its claim (once, not after it) and decides by what it read', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    await h.stores.hooks.putApprovalPolicy([{ name: 'no t', tools: ['t'], action: 'deny', message: 'not today' }], null, 0);
    const order: string[] = [];
    const readPolicy = h.stores.hooks.getApprovalPolicy.bind(h.stores.hooks);
    h.stores.hooks.getApprovalPolicy = () => {
      order.push('policy read');
      return readPolicy();
    };
    const claim = h.stores.runs.claim.bind(h.stores.runs);
    h.stores.runs.claim = async (...args) => {
      order.push('claim sent');
      const out = await claim(...args);
      order.push('claim answered');
      return out;
    };
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    // Sent together: the policy read does not wait for the claim's answer.
    expect(order).toEqual(['policy read', 'claim sent', 'claim answered']);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'denied', result: { message: 'not today', rule: 'no t' } });
    expect(tool.calls).toHaveLength(0);
  });

  it('merges start_expr with static tool_kwargs (static wins) and passes the run id as idempotency key', async () => {
    const tool = testTool('t', async ({ args }) => ({ got: args }));
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(
      hook({
        name: 'h',
        topic: 'gh',
        tool: 't',
        condition: { content: '.action == "opened"' },
        start_expr: { content: '{number, title, mode: "payload"}' },
        tool_kwargs: { mode: 'static', extra: 1 },
      }),
    );
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const want = { number: 7, title: 'hi', mode: 'static', extra: 1 };
    expect(tool.calls).toHaveLength(1);
    expect(tool.calls[0]!.args).toEqual(want);
    expect(tool.calls[0]!.ctx.extras[TOOL_EXTRA_IDEMPOTENCY_KEY]).toBe(id);
    expect(tool.calls[0]!.ctx.idempotencyKey).toBe(id);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'succeeded', result: { got: want }, acted: 'start', input: want, attempts: 1 });
    expect(h.events.map((e) => [e.event, e.status])).toEqual([
      ['started', 'running'],
      ['finished', 'succeeded'],
    ]);
    expect(await counter(h.metrics.succeeded, { hook: 'h' })).toBe(1);
  });

  it('calls the tool with tool_kwargs alone when there is no start_expr, and binds $parked to []', async () => {
    const tool = testTool('t', async () => 'ok');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '$parked' }, tool_kwargs: { a: 1 } }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    // `[]` is truthy in jq, so the condition matches and the tool runs.
    expect(tool.calls.map((c) => c.args)).toEqual([{ a: 1 }]);
  });

  it('passes a rendered subject and extras_expr output as extras', async () => {
    const tool = testTool('t', async () => 'ok');
    const h = harness({ jq: tableJq({ '.number|tostring': () => ['7'], '{trace: "x"}': () => [{ trace: 'x' }] }), tools: [tool] });
    await declareOpen(h.stores, 'repo/pr');
    await h.stores.hooks.putHook(
      hook({
        name: 'h',
        topic: 'gh',
        tool: 't',
        extras_expr: { content: '{trace: "x"}' },
        subject: { scope: 'repo', kind: 'pr', key_expr: { content: '.number|tostring' } },
      }),
    );
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    expect(tool.calls[0]!.ctx.extras).toEqual({ trace: 'x', 'tai42/subject': { scope: 'repo', kind: 'pr', key: '7' }, [TOOL_EXTRA_IDEMPOTENCY_KEY]: id });
  });

  it('fails a run whose condition raises as bad_input after one attempt; the tool never runs', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: 'error("boom")' } }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'bad_input' } });
    expect(run!.error!.message).toContain('condition');
    expect(run!.error!.message).toContain('boom');
    expect(tool.calls).toHaveLength(0);
    expect(await counter(h.metrics.failed, { hook: 'h', kind: 'bad_input' })).toBe(1);
    const errorLine = h.lines.find((l) => l.msg === 'hook run failed');
    expect(errorLine).toMatchObject({ level: 50, run: id, hook: 'h', topic: 'gh', attempt: 1, kind: 'bad_input' });
  });

  it.each([
    ['start_expr yields no object', { start_expr: { content: '.number' } }, 'bad_input'],
    ['subject key renders empty', { subject: { scope: 's', kind: 'k', key_expr: { content: '$parked' } } }, 'bad_input'],
    ['tool outside the hook allowlist', { tools_allow: ['other'] }, 'unauthorized'],
    ['tool excluded by the hook allowlist', { tools_allow: ['*', '!t'] }, 'unauthorized'],
  ] as [string, Partial<Hook>, ErrorKind][])('fails at once before acting when %s', async (_name, fields, kind) => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await declareOpen(h.stores, 's/k');
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', ...fields }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', attempts: 1, acted: '', error: { kind } });
    expect(tool.calls).toHaveLength(0);
  });

  it('fails at once with unauthorized when the deployment allowlist excludes the tool', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool], settings: { toolsAllow: ['*', '!t'] } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', tools_allow: ['t'] }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', error: { kind: 'unauthorized' } });
    expect(tool.calls).toHaveLength(0);
  });

  it('fails with not_found when the hook was removed since the run was kept', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', payload);
    await h.stores.hooks.removeHook('h');
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'not_found' } });
  });

  it.each(['bad_input', 'unauthorized', 'not_found', 'conflict', 'cancelled'] as ErrorKind[])('fails at once on a %s raised before acting', async (kind) => {
    const tool = testTool('t', async () => 'ran');
    const says = async (): Promise<never> => {
      throw new HookyardError(kind, `hook store says ${kind}`);
    };
    // The hook read fails, whichever read the executor makes (by revision or plain).
    const failing = (s: Stores): Stores => ({
      ...s,
      hooks: Object.assign(Object.create(s.hooks) as Stores['hooks'], { getHook: says, getHookRevision: says }),
    });
    const h = harness({ jq: jq(), tools: [tool], stores: failing });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'failed', attempts: 1, error: { kind, message: `hook store says ${kind}` } });
    expect(tool.calls).toHaveLength(0);
    expect(await counter(h.metrics.retried)).toBe(0);
  });

  it('ignores a run it cannot claim (duplicate delivery)', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    await h.executor.handle(id!);
    expect(tool.calls).toHaveLength(1);
    expect((await h.stores.runs.get(id!))!.attempts).toBe(1);
  });

  it('keeps a hooks_run_failed event for a failed run, but not for a failure on that topic', async () => {
    const tool = testTool('t', async () => {
      throw new HookyardError('unavailable', 'downstream is down');
    });
    const h = harness({ jq: jq(), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    await h.stores.hooks.putHook(hook({ name: 'alert', topic: HOOKS_RUN_FAILED_TOPIC, tool: 't' }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const failedRun = await h.stores.runs.get(id!);
    expect(failedRun).toMatchObject({ status: 'failed', error: { kind: 'unavailable' } });

    const { runs: events } = await h.stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10);
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.payload).toEqual({
      run_id: id,
      hook: 'h',
      topic: 'gh',
      attempts: 1,
      error: { kind: 'unavailable', message: 'downstream is down' },
      acted: 'start',
      failed_at: failedRun!.finished_at,
    });

    // The alert hook's own run fails too; that failure keeps no further event.
    await h.executor.handle(event.id);
    expect(await h.stores.runs.get(event.id)).toMatchObject({ status: 'failed' });
    expect((await h.stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10)).runs).toHaveLength(1);
    expect(h.events.map((e) => [e.event, e.hook, e.status, e.error_kind])).toEqual([
      ['started', 'h', 'running', null],
      ['finished', 'h', 'failed', 'unavailable'],
      ['started', 'alert', 'running', null],
      ['finished', 'alert', 'failed', 'unavailable'],
    ]);
  });

  it('keeps the failure alert in the fail write itself: no separate keep that could be lost', async () => {
    const tool = testTool('t', async () => {
      throw new HookyardError('bad_input', 'nope');
    });
    // A separate keep of the platform event would fail here (the old best-effort write).
    const broken = (s: Stores): Stores => ({
      ...s,
      runs: Object.assign(Object.create(s.runs) as Stores['runs'], {
        keepEvent: async (input: { topic: string }) => {
          if (input.topic === HOOKS_RUN_FAILED_TOPIC) throw new HookyardError('unavailable', 'redis down');
          return s.runs.keepEvent(input as Parameters<Stores['runs']['keepEvent']>[0]);
        },
      }),
    });
    const h = harness({ jq: jq(), tools: [tool], stores: broken });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    await h.stores.hooks.putHook(hook({ name: 'alert', topic: HOOKS_RUN_FAILED_TOPIC, tool: 't' }));
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed' });
    const { runs: alerts } = await h.stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10);
    expect(alerts.map((r) => [r.hook, r.status, (r.payload as { run_id: string }).run_id])).toEqual([['alert', 'pending', id]]);
    // Due at once: the next sweep dispatches it.
    expect(await h.stores.runs.sweepDue(h.clock.now(), 10, 1_000)).toEqual([alerts[0]!.id]);
  });
});
