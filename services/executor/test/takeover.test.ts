import { HookyardError } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { gate, harness, hook, tableJq, testTool, until } from './fixtures';

const policy = { maxAttempts: 5, retryDelayMs: 0 };

describe('executor: takeover and replay', () => {
  it('never overwrites the outcome of the attempt that replaced a stale one', async () => {
    const release = gate<string>();
    const tool = testTool('t', async () => release.promise, { crashResumable: true });
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    const first = h.executor.handle(id!);
    await until(() => tool.calls.length === 1);

    // The first worker is presumed dead: its lease lapses, another owner replays the start and finishes.
    h.clock.advance(h.settings.leaseMs + 1);
    const lapsed = await h.stores.runs.sweepLapsed(h.clock.now(), 10, policy);
    expect(lapsed).toEqual([expect.objectContaining({ id, outcome: 'replay' })]);
    const other = await h.stores.runs.claim(id!, 'exec-2', h.settings.leaseMs, h.clock.now());
    expect(other).not.toBeNull();
    await h.stores.runs.complete(id!, other!.token, 'succeeded', { by: 'exec-2' }, h.clock.now());

    release.open('first result');
    await first;
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: { by: 'exec-2' }, attempts: 2 });
    expect(h.lines.find((l) => l.msg.includes('attempt superseded'))).toMatchObject({ level: 40, run: id });
    // Its claim was announced; the superseded attempt announces no outcome.
    expect(h.events.map((e) => e.event)).toEqual(['started']);
  });

  it('stops the work when a lease renewal is refused, and writes nothing more', async () => {
    let aborted = false;
    const tool = testTool(
      't',
      ({ ctx }) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new HookyardError('cancelled', 'aborted'));
          }),
        ),
      { crashResumable: false },
    );
    // A short lease so the renewal timer fires within the test.
    const h = harness({ jq: tableJq({}), tools: [tool], settings: { leaseMs: 60 } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    const work = h.executor.handle(id!);
    await until(() => tool.calls.length === 1);
    h.clock.advance(1000);
    const [lapsed] = await h.stores.runs.sweepLapsed(h.clock.now(), 10, policy);
    expect(lapsed).toMatchObject({ id, outcome: 'failed' });
    await work;
    expect(aborted).toBe(true);
    const run = await h.stores.runs.get(id!);
    // The sweep's verdict stands: the aborted call did not turn into a second failure write.
    expect(run).toMatchObject({ status: 'failed', error: { kind: 'outcome_unknown' } });
    expect(run!.history.filter((e) => e.event === 'failed')).toHaveLength(1);
    expect(h.lines.some((l) => l.msg.includes('attempt superseded'))).toBe(true);
  });

  it('renews the lease of a long attempt from the shared sweep, and never that of a short one', async () => {
    // Counted, not timed: the long attempt holds its tool until six renewals came
    // (each at most leaseMs/3 apart by design), however slow the machine is.
    const spying =
      (renewals: string[]) =>
      (s: Stores): Stores => {
        const renew: typeof s.runs.renew = async (id, ...rest) => {
          renewals.push(id);
          return s.runs.renew(id, ...rest);
        };
        const runs = new Proxy(s.runs, {
          get: (target, key) => {
            if (key === 'renew') return renew;
            const v = Reflect.get(target, key) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
        return { ...s, runs };
      };
    const renewals: string[] = [];
    const release = gate<string>();
    const slow = testTool('slow', () => release.promise);
    const h = harness({ jq: tableJq({}), tools: [slow], settings: { leaseMs: 60 }, stores: spying(renewals) });
    await h.stores.hooks.putHook(hook({ name: 'a', topic: 'slow', tool: 'slow' }));
    const [slowId] = await h.keep('slow', {});
    const work = h.executor.handle(slowId!);
    await until(() => renewals.filter((id) => id === slowId).length >= 6);
    release.open('slow done');
    await work;
    expect(await h.stores.runs.get(slowId!)).toMatchObject({ status: 'succeeded', result: 'slow done' });

    // A short attempt (done well within leaseMs/6, here 10 s) is never renewed: no renewal on claim.
    const fastRenewals: string[] = [];
    const fast = testTool('fast', async () => 'fast done');
    const f = harness({ jq: tableJq({}), tools: [fast], settings: { leaseMs: 60_000 }, stores: spying(fastRenewals) });
    await f.stores.hooks.putHook(hook({ name: 'b', topic: 'fast', tool: 'fast' }));
    const [fastId] = await f.keep('fast', {});
    await f.executor.handle(fastId!);
    expect(await f.stores.runs.get(fastId!)).toMatchObject({ status: 'succeeded', result: 'fast done' });
    expect(fastRenewals).toEqual([]);
  });

  it('replays a crash-resumable start with the kept input and the same key, skipping condition and door contract', async () => {
    const hold = gate<string>();
    let n = 0;
    const tool = testTool('t', async () => (++n === 1 ? hold.promise : 'replayed'), { crashResumable: true });
    const jq = tableJq({ '.go': () => [true], '{a: 1}': () => [{ a: 1 }] });
    const h = harness({ jq, tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', condition: { content: '.go' }, start_expr: { content: '{a: 1}' } }));
    const [id] = await h.keep('gh', {});
    void h.executor.handle(id!);
    await until(() => tool.calls.length === 1);
    expect(await h.stores.runs.get(id!)).toMatchObject({ acted: 'start', input: { a: 1 }, resumable: true });

    h.clock.advance(h.settings.leaseMs + 1);
    await h.stores.runs.sweepLapsed(h.clock.now(), 10, policy);
    const evaluated = jq.calls.length;
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: 'replayed', attempts: 2 });
    expect(jq.calls.length).toBe(evaluated);
    expect(tool.calls.map((c) => [c.args, c.ctx.idempotencyKey])).toEqual([
      [{ a: 1 }, id],
      [{ a: 1 }, id],
    ]);
    hold.open('late');
  });
});
