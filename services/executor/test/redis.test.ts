import { HOOKS_RUN_FAILED_TOPIC, HookyardError } from '@hookyard/core';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { gate, harness, hook, tableJq, testTool, until } from './fixtures';

/** The executor over the real Redis store: fencing and outcomes hold on the Lua scripts too. */
const prefix = uniquePrefix('exec');
let url = '';
let n = 0;
const opened: Stores[] = [];

async function redisStores(): Promise<Stores> {
  const s = await createRedisStores({ url, prefix: `${prefix}x${(n += 1)}`, partitions: 2 });
  opened.push(s);
  return s;
}

beforeAll(async () => {
  url = await requireRedis();
});

afterAll(async () => {
  for (const s of opened) await s.close();
  await deleteRedisKeys(prefix, url);
});

describe('executor on Redis', () => {
  it('runs a hook to success, keeping the started input', async () => {
    const stores = await redisStores();
    const tool = testTool('t', async ({ args }) => ({ echoed: args }));
    const h = harness({ jq: tableJq({ '{a: .a}': (p) => [{ a: (p as { a: number }).a }] }), tools: [tool], stores: () => stores });
    await stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't', start_expr: { content: '{a: .a}' }, tool_kwargs: { b: 2 } }));
    const [id] = await h.keep('gh', { a: 1 });
    await h.executor.handle(id!);
    expect(await stores.runs.get(id!)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      acted: 'start',
      input: { a: 1, b: 2 },
      result: { echoed: { a: 1, b: 2 } },
    });
    expect(tool.calls[0]!.ctx.idempotencyKey).toBe(id);
  });

  it('refuses the stale attempt its write after another owner took the run over', async () => {
    const stores = await redisStores();
    const release = gate<string>();
    const tool = testTool('t', async () => release.promise, { crashResumable: true });
    const h = harness({ jq: tableJq({}), tools: [tool], stores: () => stores });
    await stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    const first = h.executor.handle(id!);
    await until(() => tool.calls.length === 1);
    h.clock.advance(h.settings.leaseMs + 1);
    const lapsed = await stores.runs.sweepLapsed(h.clock.now(), 10, { maxAttempts: 5, retryDelayMs: 0 });
    expect(lapsed.map((o) => o.outcome)).toEqual(['replay']);
    const other = await stores.runs.claim(id!, 'exec-2', h.settings.leaseMs, h.clock.now());
    await stores.runs.complete(id!, other!.token, 'succeeded', { by: 'exec-2' }, h.clock.now());
    release.open('stale');
    await first;
    expect(await stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: { by: 'exec-2' } });
    expect(h.lines.some((l) => l.msg.includes('attempt superseded'))).toBe(true);
  });

  it('schedules a retryable pre-act failure at base delay and reports a held failure as a platform event', async () => {
    const stores = await redisStores();
    const jq = tableJq({
      '.x': () => {
        throw new HookyardError('unavailable', 'engine away');
      },
    });
    const tool = testTool('t', async () => {
      throw new HookyardError('bad_input', 'refused');
    });
    const h = harness({ jq, tools: [tool], stores: () => stores });
    await stores.hooks.putHook(hook({ name: 'cond', topic: 'gh', tool: 't', condition: { content: '.x' } }));
    await stores.hooks.putHook(hook({ name: 'direct', topic: 'gh', tool: 't' }));
    await stores.hooks.putHook(hook({ name: 'alert', topic: HOOKS_RUN_FAILED_TOPIC, tool: 't' }));
    const ids = await h.keep('gh', {});
    for (const id of ids) await h.executor.handle(id);
    const byHook = Object.fromEntries((await Promise.all(ids.map((id) => stores.runs.get(id)))).map((r) => [r!.hook, r!]));
    expect(byHook.cond).toMatchObject({ status: 'retry_wait', due_at: new Date(h.clock.now() + h.settings.retryBaseMs).toISOString() });
    expect(byHook.direct).toMatchObject({ status: 'failed', error: { kind: 'bad_input', message: 'refused' } });
    const alerts = (await stores.runs.list({ topic: HOOKS_RUN_FAILED_TOPIC }, 10)).runs;
    expect(alerts.map((r) => (r.payload as { run_id: string }).run_id)).toEqual([byHook.direct!.id]);
  });
});
