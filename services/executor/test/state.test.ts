import { openDeclaration, unavailable } from '@hookyard/core';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import type { Stores } from '@hookyard/store';
import { stateTools } from '@hookyard/tools';
import { harness as bare, hook, testTool } from './fixtures';

/** Subject state in a run: $state in the condition and the door contract, state tools attributed to the run, key_expr checks. */
describe('executor: subject state', () => {
  let jq: HookyardJqEngine;
  beforeAll(async () => {
    jq = await createJqEngine({ timeoutMs: 1000, workers: 1 });
  });
  afterAll(async () => {
    await jq.close();
  });

  /** A harness whose stores have the states these tests bind or write declared open (a state never declared is not). */
  async function harness(opts: Parameters<typeof bare>[0]) {
    const h = bare(opts);
    for (const [scope, kind] of [
      ['github', 'pull_request'],
      ['github', 'pr'],
      ['ops', 'counter'],
    ])
      await h.stores.declarations.putDeclaration(openDeclaration(scope!, kind!, 'bound or written by these tests'), h.clock.now());
    return h;
  }

  const subject = { scope: 'github', kind: 'pull_request', key_expr: { content: '"\\(.repo)#\\(.pr)"' } };
  const pr = { scope: 'github', kind: 'pull_request', key: 'acme/api#7' };

  it('a condition reading $state skips an unchanged status; a state_merge writes the change attributed to the run and its hook', async () => {
    const h = await harness({ jq, tools: (stores, clock) => stateTools(stores.states, () => clock.now()) });
    await h.stores.hooks.putHook(
      hook({
        name: 'ci-status',
        topic: 'ci',
        tool: 'state_merge',
        subject,
        condition: { content: '($state // {}).checks != .checks' },
        start_expr: { content: '{patch: {checks: .checks, seen_before: ($state != null)}}' },
      }),
    );
    const [first] = await h.keep('ci', { repo: 'acme/api', pr: 7, checks: 'pending' });
    await h.executor.handle(first!);
    expect(await h.stores.runs.get(first!)).toMatchObject({
      status: 'succeeded',
      result: { subject: pr, version: 1, document: { checks: 'pending', seen_before: false } },
    });
    const [same] = await h.keep('ci', { repo: 'acme/api', pr: 7, checks: 'pending' });
    await h.executor.handle(same!);
    expect(await h.stores.runs.get(same!)).toMatchObject({ status: 'skipped', result: { condition: false } });
    h.clock.advance(5000);
    const [changed] = await h.keep('ci', { repo: 'acme/api', pr: 7, checks: 'green' });
    await h.executor.handle(changed!);
    const kept = await h.stores.states.get(pr);
    expect(kept).toMatchObject({ version: 2, document: { checks: 'green', seen_before: true } });
    expect(kept!.history).toEqual([
      { version: 1, op: 'merge', door: 'hook', actor: first, hook: 'ci-status', at: new Date(h.clock.now() - 5000).toISOString() },
      { version: 2, op: 'merge', door: 'hook', actor: changed, hook: 'ci-status', at: new Date(h.clock.now()).toISOString() },
    ]);
  });

  it('two hooks on one subject create it with if_version 0: the first run writes, the second fails conflict naming the kept version', async () => {
    const h = await harness({ jq, tools: (stores, clock) => stateTools(stores.states, () => clock.now()) });
    await h.stores.hooks.putHook(
      hook({ name: 'a-opened', topic: 'gh', tool: 'state_set', subject, tool_kwargs: { if_version: 0 }, start_expr: { content: '{document: {by: "a"}}' } }),
    );
    await h.stores.hooks.putHook(
      hook({ name: 'b-opened', topic: 'gh', tool: 'state_set', subject, tool_kwargs: { if_version: 0 }, start_expr: { content: '{document: {by: "b"}}' } }),
    );
    const ids = await h.keep('gh', { repo: 'acme/api', pr: 7 });
    for (const id of ids) await h.executor.handle(id);
    const runs = Object.fromEntries((await Promise.all(ids.map((id) => h.stores.runs.get(id)))).map((r) => [r!.hook, r!]));
    expect(runs['a-opened']).toMatchObject({ status: 'succeeded', result: { version: 1, document: { by: 'a' } } });
    expect(runs['b-opened']).toMatchObject({ status: 'failed', acted: 'start', error: { kind: 'conflict' } });
    expect(runs['b-opened']!.error!.message).toContain('state github/pull_request/"acme/api#7" is at version 1, not version 0');
    const kept = await h.stores.states.get(pr);
    expect(kept?.document).toEqual({ by: 'a' });
    expect(kept?.history.map((w) => [w.actor, w.hook])).toEqual([[runs['a-opened']!.id, 'a-opened']]);
  });

  it('$state is bound in every door-contract expression and in extras_expr; the tool gets the subject', async () => {
    const tool = testTool('t', async ({ args }) => args);
    const h = await harness({ jq, tools: [tool] });
    await h.stores.states.set(pr, { reviewers: ['ann'] }, { door: 'api', actor: 'operator:x', hook: null, now: h.clock.now() });
    await h.stores.hooks.putHook(
      hook({
        name: 'uses',
        topic: 'gh',
        tool: 't',
        subject,
        cancel_expr: { content: '[]' },
        resume_expr: { content: 'if $state.reviewers then null else error("no state") end' },
        start_expr: { content: '{who: $state.reviewers[0]}' },
        extras_expr: { content: '{count: ($state.reviewers | length)}' },
      }),
    );
    const [id] = await h.keep('gh', { repo: 'acme/api', pr: 7 });
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', result: { who: 'ann' } });
    expect(tool.calls[0]!.ctx.extras).toMatchObject({ count: 1, 'tai42/subject': pr });
    expect(tool.calls[0]!.ctx.subject).toEqual(pr);
  });

  it.each([
    ['""', 'got ""'],
    ['null', 'got null'],
    ['7', 'got 7'],
    ['"a", "b"', 'got 2 outputs: "a", "b"'],
    ['empty', 'got no output'],
  ])('key_expr yielding %s fails the run bad_input quoting it, before the hook acts', async (expr, shown) => {
    const tool = testTool('t', async () => 'ran');
    const h = await harness({ jq, tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'keyed', topic: 'gh', tool: 't', subject: { scope: 'github', kind: 'pr', key_expr: { content: expr } } }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({
      status: 'failed',
      attempts: 1,
      acted: '',
      error: { kind: 'bad_input', message: `hook 'keyed' subject.key_expr must yield one non-empty string, ${shown}` },
    });
    expect(tool.calls).toHaveLength(0);
  });

  it('a store failure reading $state is retried with backoff, before the hook acts', async () => {
    const tool = testTool('t', async () => 'ran');
    let failing = true;
    const h = await harness({
      jq,
      tools: [tool],
      stores: (s: Stores) => ({
        ...s,
        states: {
          ...s.states,
          get: async (subj) => {
            if (failing) throw unavailable('redis get_state failed: connection is reconnecting');
            return s.states.get(subj);
          },
        },
      }),
    });
    await h.stores.hooks.putHook(hook({ name: 'reads', topic: 'gh', tool: 't', subject, condition: { content: '$state == null' } }));
    const [id] = await h.keep('gh', { repo: 'acme/api', pr: 7 });
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'retry_wait', acted: '', error: { kind: 'unavailable' } });
    expect(tool.calls).toHaveLength(0);
    failing = false;
    h.clock.advance(1000);
    await h.executor.handle(id!);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'succeeded', attempts: 2, result: 'ran' });
  });

  it('a state tool in a hook without a subject needs an explicit subject argument, else the run fails bad_input naming it', async () => {
    const h = await harness({ jq, tools: (stores, clock) => stateTools(stores.states, () => clock.now()) });
    await h.stores.hooks.putHook(
      hook({
        name: 'explicit',
        topic: 'gh',
        tool: 'state_merge',
        start_expr: { content: '{patch: {n: .n}, subject: {scope: "ops", kind: "counter", key: "main"}}' },
      }),
    );
    await h.stores.hooks.putHook(hook({ name: 'nosubject', topic: 'gh', tool: 'state_merge', tool_kwargs: { patch: { n: 1 } } }));
    const ids = await h.keep('gh', { n: 3 });
    for (const id of ids) await h.executor.handle(id);
    const runs = Object.fromEntries((await Promise.all(ids.map((id) => h.stores.runs.get(id)))).map((r) => [r!.hook, r!]));
    expect(runs.explicit).toMatchObject({
      status: 'succeeded',
      result: { subject: { scope: 'ops', kind: 'counter', key: 'main' }, version: 1, document: { n: 3 } },
    });
    expect(runs.nosubject).toMatchObject({
      status: 'failed',
      error: {
        kind: 'bad_input',
        message: "state_merge: missing argument 'subject' {scope, kind, key}: hook 'nosubject' declares no subject, so the call must name one",
      },
    });
  });

  it("a hook's state_set with a subject argument naming an undeclared state fails the run not_found naming it; nothing written", async () => {
    const h = await harness({ jq, tools: (stores, clock) => stateTools(stores.states, () => clock.now()) });
    const typo = { scope: 'ops', kind: 'counters', key: 'main' };
    await h.stores.hooks.putHook(
      hook({ name: 'typo', topic: 'gh', tool: 'state_set', start_expr: { content: `{document: {n: .n}, subject: ${JSON.stringify(typo)}}` } }),
    );
    const [id] = await h.keep('gh', { n: 3 });
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'failed', error: { kind: 'not_found' } });
    expect(run!.error!.message).toContain("ops/counters is not a declared state (did you mean 'ops/counter'?); nothing written");
    expect(await h.stores.states.get(typo)).toBeNull();
    expect(await h.stores.states.kinds()).toEqual([]);
  });
});
