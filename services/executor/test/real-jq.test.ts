import { TOOL_EXTRA_IDEMPOTENCY_KEY } from '@hookyard/core';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { declareOpen, harness, hook, testTool } from './fixtures';

/** The same flow over the real jq engine: what the table stubs stand for holds for real jq too. */
describe('executor with the real jq engine', () => {
  let jq: HookyardJqEngine;
  beforeAll(async () => {
    jq = await createJqEngine({ timeoutMs: 1000, workers: 1 });
  });
  afterAll(async () => {
    await jq.close();
  });

  const payload = { action: 'opened', pull_request: { number: 7, title: 'Fix it' }, repo: 'acme/app' };

  it('evaluates condition, start_expr (static wins), a stored-template subject and extras_expr', async () => {
    const tool = testTool('t', async ({ args }) => args);
    const h = harness({ jq, tools: [tool] });
    await declareOpen(h.stores, 'repo/pr');
    await h.stores.hooks.putTemplate({ id: 'pr-key', content: '"\\($prefix)/\\(.pull_request.number)"' });
    await h.stores.hooks.putHook(
      hook({
        name: 'pr',
        topic: 'gh',
        tool: 't',
        condition: { content: '.action == "opened" and ($parked | length) == 0' },
        start_expr: { content: '{number: .pull_request.number, title: .pull_request.title, repo}' },
        extras_expr: { content: '{source: .repo}' },
        subject: { scope: 'repo', kind: 'pr', key_expr: { id: 'pr-key', kwargs: { prefix: 'acme' } } },
        tool_kwargs: { repo: 'static/repo' },
      }),
    );
    const [id] = await h.keep('gh', payload);
    await h.executor.handle(id!);
    const want = { number: 7, title: 'Fix it', repo: 'static/repo' };
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: want });
    expect(tool.calls[0]!.ctx.extras).toEqual({
      source: 'acme/app',
      'tai42/subject': { scope: 'repo', kind: 'pr', key: 'acme/7' },
      [TOOL_EXTRA_IDEMPOTENCY_KEY]: id,
    });
  });

  it('skips on a false condition and fails a raising one as bad_input without calling the tool', async () => {
    const tool = testTool('t', async () => 'ran');
    const h = harness({ jq, tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'closed', topic: 'gh', tool: 't', condition: { content: '.action == "closed"' } }));
    await h.stores.hooks.putHook(hook({ name: 'raises', topic: 'gh', tool: 't', condition: { content: '.repo | error' } }));
    const ids = await h.keep('gh', payload);
    for (const id of ids) await h.executor.handle(id);
    const runs = await Promise.all(ids.map((id) => h.stores.runs.get(id)));
    const byHook = Object.fromEntries(runs.map((r) => [r!.hook, r!]));
    expect(byHook.closed).toMatchObject({ status: 'skipped', attempts: 1 });
    expect(byHook.raises).toMatchObject({ status: 'failed', attempts: 1, error: { kind: 'bad_input' } });
    expect(byHook.raises!.error!.message).toContain('acme/app');
    expect(tool.calls).toHaveLength(0);
  });

  it('keeps __proto__ and constructor keys of start_expr and extras_expr output as plain keys', async () => {
    const tool = testTool('t', async ({ args }) => args);
    const h = harness({ jq, tools: [tool] });
    await h.stores.hooks.putHook(
      hook({
        name: 'proto',
        topic: 'gh',
        tool: 't',
        start_expr: { content: '{(.k): .v, constructor: 1}' },
        extras_expr: { content: '{(.k): .v, constructor: "c"}' },
      }),
    );
    const [id] = await h.keep('gh', JSON.parse('{"k":"__proto__","v":{"polluted":true}}'));
    await h.executor.handle(id!);
    const call = tool.calls[0]!;
    expect(Object.keys(call.args)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(call.args)).toBe(Object.prototype);
    expect(Object.keys(call.ctx.extras)).toEqual(['__proto__', 'constructor', TOOL_EXTRA_IDEMPOTENCY_KEY]);
    expect(Object.getPrototypeOf(call.ctx.extras)).toBe(Object.prototype);
    expect((call.ctx.extras as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
