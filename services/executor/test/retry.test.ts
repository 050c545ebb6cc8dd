import { HookyardError } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import { counter, harness, hook, tableJq, testTool } from './fixtures';

/** A jq engine that is out of reach: every evaluation fails with `unavailable`. */
const downJq: JqEngine = {
  async check() {},
  async run() {
    throw new HookyardError('unavailable', 'jq worker pool is restarting');
  },
  async close() {},
};

describe('executor: retries', () => {
  it('backs off a retryable pre-act failure by base, 2*base, 4*base capped, then fails at maxAttempts', async () => {
    const tool = testTool('t', async () => 'ran');
    // base 1000, cap 3000, 5 attempts in all.
    const h = harness({ jq: downJq, tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '.x' } }));
    const [id] = await h.keep('gh', {});
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await h.executor.handle(id!);
      const run = await h.stores.runs.get(id!);
      expect(run).toMatchObject({ status: 'retry_wait', attempts: attempt, error: { kind: 'unavailable' } });
      const delay = Date.parse(run!.due_at!) - h.clock.now();
      delays.push(delay);
      // Not due yet: a delivery before the backoff passed claims nothing.
      h.clock.advance(delay - 1);
      await h.executor.handle(id!);
      expect((await h.stores.runs.get(id!))!.attempts).toBe(attempt);
      h.clock.advance(1);
    }
    expect(delays).toEqual([1000, 2000, 3000, 3000]);
    // Every claim and every scheduled retry is announced, with when the next attempt is due.
    const retries = h.events.filter((e) => e.event === 'retry_scheduled');
    expect(retries.map((e) => [e.status, e.attempts, e.error_kind])).toEqual([1, 2, 3, 4].map((n) => ['retry_wait', n, 'unavailable']));
    expect(retries.map((e) => Date.parse(e.due_at!) - Date.parse(e.at))).toEqual([1000, 2000, 3000, 3000]);
    expect(h.events.filter((e) => e.event === 'started').map((e) => e.attempts)).toEqual([1, 2, 3, 4]);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', attempts: 5, error: { kind: 'unavailable' } });
    expect(tool.calls).toHaveLength(0);
    expect(await counter(h.metrics.retried, { hook: 'h', kind: 'unavailable' })).toBe(4);
    expect(await counter(h.metrics.failed, { hook: 'h', kind: 'unavailable' })).toBe(1);
  });

  it('succeeds on a later attempt once the cause passed', async () => {
    let down = true;
    const jq = tableJq({
      '.ok': () => {
        if (down) throw new HookyardError('internal', 'engine crashed');
        return [true];
      },
    });
    const tool = testTool('t', async () => 'done');
    const h = harness({ jq, tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '.ok' } }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect((await h.stores.runs.get(id!))!.status).toBe('retry_wait');
    down = false;
    h.clock.advance(1000);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', attempts: 2, result: 'done' });
    expect(tool.calls).toHaveLength(1);
  });

  it('holds a run as failed after one call when the tool fails after acting and declares no policy', async () => {
    const tool = testTool('t', async () => {
      throw new HookyardError('unavailable', 'remote 503');
    });
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({
      status: 'failed',
      attempts: 1,
      acted: 'start',
      error: { kind: 'unavailable', message: 'remote 503' },
    });
    expect(tool.calls).toHaveLength(1);
    expect(await counter(h.metrics.retried)).toBe(0);
  });

  it("runs exactly the tool's own retry policy after acting: two failures then success is three calls", async () => {
    const tool = testTool(
      't',
      async (_call, n) => {
        if (n <= 2) throw new HookyardError('unavailable', `call ${n} refused`);
        return { ok: n };
      },
      { retry: { max_attempts: 3, base_ms: 1, cap_ms: 2, kinds: ['unavailable'] } },
    );
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', tool_kwargs: { a: 1 } }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', attempts: 1, result: { ok: 3 } });
    expect(tool.calls).toHaveLength(3);
    // Same input and idempotency key on every call.
    expect(new Set(tool.calls.map((c) => JSON.stringify([c.args, c.ctx.idempotencyKey])))).toEqual(new Set([JSON.stringify([{ a: 1 }, id])]));
  });

  it('fails once the tool policy is spent, and does not retry kinds the policy leaves out', async () => {
    const spent = testTool(
      'spent',
      async () => {
        throw new HookyardError('unavailable', 'always down');
      },
      { retry: { max_attempts: 2, base_ms: 1, cap_ms: 1, kinds: ['unavailable'] } },
    );
    const other = testTool(
      'other',
      async () => {
        throw new HookyardError('bad_input', 'rejected');
      },
      { retry: { max_attempts: 5, base_ms: 1, cap_ms: 1, kinds: ['unavailable'] } },
    );
    const h = harness({ jq: tableJq({}), tools: [spent, other] });
    await h.stores.hooks.putHook(hook({ name: 'a', topic: 'gh', tool: 'spent' }));
    await h.stores.hooks.putHook(hook({ name: 'b', topic: 'gh', tool: 'other' }));
    const ids = await h.keep('gh', {});
    for (const id of ids) await h.executor.handle(id);
    const runs = await Promise.all(ids.map((id) => h.stores.runs.get(id)));
    expect(runs.map((r) => [r!.hook, r!.status, r!.error!.kind]).sort()).toEqual([
      ['a', 'failed', 'unavailable'],
      ['b', 'failed', 'bad_input'],
    ]);
    expect(spent.calls).toHaveLength(2);
    expect(other.calls).toHaveLength(1);
  });

  it('fails a tool call that passes its time bound with kind timeout', async () => {
    const tool = testTool('t', () => new Promise(() => undefined));
    const h = harness({ jq: tableJq({}), tools: [tool], settings: { toolTimeoutMs: 20 } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(tool.calls[0]!.ctx.signal.aborted).toBe(true);
  });
});
