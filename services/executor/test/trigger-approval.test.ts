import { harness, hook, tableJq, testTool } from './fixtures';

/**
 * A trigger link's run (door `trigger`, never verified) can never answer an
 * approval, even from a hook the rule lists in answer_hooks: resume and take
 * are refused unauthorized, saying which door; the approval stays as it was.
 */
describe('trigger link runs and approvals', () => {
  it('a trigger link run of a hook in answer_hooks cannot resume or take an approval; refused saying it came through the trigger door', async () => {
    const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
    const jq = tableJq({
      'approve-named': (p) => [{ id: (p as { id: string }).id, payload: { verdict: 'approve' } }],
      'take-named': (p) => [{ take: (p as { id: string }).id }],
    });
    const h = harness({ jq, tools: [deploy] });
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'approve', answer_hooks: ['answers'], timeout_seconds: 600 }], null, h.clock.now());
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'ship', tool: 'deploy', tool_kwargs: { env: 'prod' } }));
    await h.stores.hooks.putHook(hook({ name: 'answers', topic: 'answers', tool: 'echo', resume_expr: { content: 'approve-named' } }));
    const [ship] = await h.keep('ship', {});
    await h.executor.handle(ship!);
    const id = (await h.stores.runs.get(ship!))!.parked_on[0]!;
    const viaLink = async () => {
      const [kept] = await h.stores.runs.keepHookRun(
        { topic: 'answers', payload: { id }, now: h.clock.now(), dispatchGraceMs: 0, door: 'trigger', verified: false, triggerLink: 'tl_holder' },
        'answers',
      );
      await h.executor.handle(kept!.id);
      return (await h.stores.runs.get(kept!.id))!;
    };
    const resume = await viaLink();
    expect(resume).toMatchObject({ status: 'failed', acted: '', door: 'trigger', verified: false, trigger_link: 'tl_holder', error: { kind: 'unauthorized' } });
    expect(resume.error?.message).toContain(`run ${resume.id} came through the trigger door unverified`);
    expect((await h.stores.interactions.get(id))?.status).toBe('open');
    expect(deploy.calls).toHaveLength(0);

    // Answered by the operator, the approved call's outcome cannot be taken through a link either.
    await h.stores.interactions.resolve(id, { status: 'approved', by: 'operator:x', via: 'api' }, h.clock.now());
    await h.executor.handle(ship!);
    expect((await h.stores.interactions.get(id))?.status).toBe('approved');
    await h.stores.hooks.putHook(hook({ name: 'answers', topic: 'answers', tool: 'echo', resume_expr: { content: 'take-named' } }));
    const take = await viaLink();
    expect(take).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(take.error?.message).toContain('came through the trigger door unverified');
    expect((await h.stores.interactions.get(id))?.status).toBe('approved');
  });
});
