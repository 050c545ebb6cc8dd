import type { Interaction } from '@hookyard/core';
import { waitTool } from '@hookyard/tools';
import { counter, declareOpen, harness, hook, tableJq, testTool } from './fixtures';

/**
 * The parkable door on the memory stores: a `wait` parks its run; later runs'
 * door contracts resume, cancel or take; bad input names the id; a run
 * stopped mid-claim checks whether its interaction is still open.
 */
const subject = { scope: 'conversation', kind: 'pr', key_expr: { content: '.pr' } };
const parked = (vars: Record<string, unknown>) => vars.parked as Interaction[];

function jq(extra: Record<string, (input: unknown, vars: Record<string, unknown>) => unknown[]> = {}) {
  return tableJq({
    '.pr': (p) => [(p as { pr: string }).pr],
    'resume-first': (p, v) => [parked(v).map((i) => ({ id: i.id, payload: { merged: (p as { merged?: boolean }).merged ?? true } }))],
    'cancel-all': (_p, v) => [parked(v).map((i) => i.id)],
    'take-named': (p) => [{ take: (p as { id: string }).id }],
    'resume-named': (p) => [(p as { id: string }).id],
    'resume-verdict': (p) => [{ id: (p as { id: string }).id, payload: { verdict: (p as { verdict: string }).verdict } }],
    'hand-on': () => [{ note: 'from the answer' }],
    'spoof-subject': () => [{ note: 'x', 'tai42/subject': { scope: 'conversation', kind: 'pr', key: 'someone-else#1' } }],
    '$parked | length': (_p, v) => [parked(v).length],
    ...extra,
  });
}

async function setup(extra?: Parameters<typeof jq>[0]) {
  const echo = testTool('echo', async ({ args }) => args);
  const h = harness({ jq: jq(extra), tools: [waitTool, echo] });
  await declareOpen(h.stores, 'conversation/pr');
  await h.stores.hooks.putHook(hook({ name: 'waiter', topic: 'opened', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 }, subject }));
  await h.stores.hooks.putHook(
    hook({ name: 'resumer', topic: 'merged', tool: 'echo', subject, resume_expr: { content: 'resume-first' }, extras_expr: { content: 'hand-on' } }),
  );
  await h.stores.hooks.putHook(hook({ name: 'canceller', topic: 'closed', tool: 'echo', subject, cancel_expr: { content: 'cancel-all' } }));
  await h.stores.hooks.putHook(hook({ name: 'taker', topic: 'take', tool: 'echo', resume_expr: { content: 'take-named' } }));
  await h.stores.hooks.putHook(hook({ name: 'by-id', topic: 'by-id', tool: 'echo', resume_expr: { content: 'resume-named' } }));
  /** Keeps one event on `topic` and runs its (single) run. */
  const fire = async (topic: string, payload: unknown) => {
    const [id] = await h.keep(topic, payload);
    await h.executor.handle(id!);
    return (await h.stores.runs.get(id!))!;
  };
  return { h, echo, fire };
}

describe('executor: the parkable door', () => {
  it('a wait parks its run (no slot held); a later event resumes it, the payload is its result, kept for a take once', async () => {
    const { h, fire } = await setup();
    const waiting = await fire('opened', { pr: 'acme#1' });
    expect(waiting).toMatchObject({ status: 'parked', acted: 'start', lease: null });
    expect(h.executor.attempts()).toHaveLength(0);
    const [i] = waiting.parked_on;
    expect(await h.stores.interactions.get(i!)).toMatchObject({
      kind: 'wait',
      tool: 'wait',
      status: 'open',
      subject: { scope: 'conversation', kind: 'pr', key: 'acme#1' },
      on_timeout: 'fail',
      expires_at: new Date(h.clock.now() + 3_600_000).toISOString(),
    });
    expect(await counter(h.metrics.parkedTotal, { hook: 'waiter', kind: 'wait' })).toBe(1);

    // Another subject's event sees nothing in $parked and resumes nothing.
    expect(await fire('merged', { pr: 'acme#2' })).toMatchObject({ status: 'succeeded', acted: 'start', result: {} });

    const resumer = await fire('merged', { pr: 'acme#1', merged: true });
    expect(resumer).toMatchObject({ status: 'succeeded', acted: 'resume', acted_ids: [i], claim_intent: '', result: { resumed: [i] } });
    expect(resumer.history.map((e) => e.event)).toEqual(expect.arrayContaining(['claim_intent', 'acted']));
    expect(await h.stores.interactions.get(i!)).toMatchObject({
      status: 'resumed',
      resolution: { via: 'hook', by: `hook:resumer run:${resumer.id}`, payload: { merged: true }, extras: { note: 'from the answer' } },
    });
    expect((await h.stores.runs.get(waiting.id))?.status).toBe('pending');
    // The parked run's events: claimed, parked, then woken by the resumer (which announced it: the run was at hand).
    expect(h.events.filter((e) => e.run_id === waiting.id).map((e) => [e.event, e.status])).toEqual([
      ['started', 'running'],
      ['parked', 'parked'],
      ['woken', 'pending'],
    ]);

    await h.executor.handle(waiting.id);
    expect(await h.stores.runs.get(waiting.id)).toMatchObject({ status: 'succeeded', result: { merged: true } });

    const taker = await fire('take', { id: i });
    expect(taker).toMatchObject({ status: 'succeeded', acted: 'take', acted_ids: [i], result: { merged: true } });
    const again = await fire('take', { id: i });
    expect(again).toMatchObject({ status: 'failed', acted: '', error: { kind: 'conflict' } });
    expect(again.error?.message).toContain(`interaction ${i} was already taken (by hook:taker run:${taker.id}`);
  });

  it('cancel_expr cancels the open interactions on its subject; their parked runs end cancelled', async () => {
    const { h, fire } = await setup();
    const a = await fire('opened', { pr: 'acme#3' });
    // Ids sort by creation time: b is opened a millisecond later, so $parked lists a first.
    h.clock.advance(1);
    const b = await fire('opened', { pr: 'acme#3' });
    const c = await fire('closed', { pr: 'acme#3' });
    expect(c).toMatchObject({ status: 'succeeded', acted: 'cancel', result: { cancelled: [...a.parked_on, ...b.parked_on] } });
    for (const r of [a, b]) expect(await h.stores.runs.get(r.id)).toMatchObject({ status: 'cancelled', result: { cancelled: r.parked_on[0] } });
    expect(await counter(h.metrics.cancelled, { hook: 'waiter' })).toBe(2);
    // Nothing left open: the next close acts on nothing and starts its own tool.
    expect(await fire('closed', { pr: 'acme#3' })).toMatchObject({ status: 'succeeded', acted: 'start' });
  });

  it('bad input is a run error naming the id: unknown, already resolved, a verdict on an approval this hook may not answer', async () => {
    const { h, fire } = await setup({ 'verdict-hook': (p) => [{ id: (p as { id: string }).id, payload: { verdict: 'maybe' } }] });
    const ghost = `0000000000${'ab'.repeat(16)}00`;
    const unknown = await fire('by-id', { id: ghost });
    expect(unknown).toMatchObject({
      status: 'failed',
      acted: '',
      attempts: 1,
      error: { kind: 'not_found', message: `hook 'by-id' resume: interaction ${ghost} not found` },
    });

    const w = await fire('opened', { pr: 'acme#4' });
    const i = w.parked_on[0]!;
    await h.stores.interactions.resolve(i, { status: 'cancelled', by: 'operator:ops', via: 'api' }, h.clock.now());
    const late = await fire('by-id', { id: i });
    expect(late).toMatchObject({ status: 'failed', acted: '', error: { kind: 'conflict' } });
    expect(late.error?.message).toContain(`interaction ${i} is already cancelled (by operator:ops via api`);

    // An approval (parked directly here; the approval policy makes them) answered by a hook it does not list.
    await h.stores.hooks.putHook(hook({ name: 'deployer', topic: 'approve-me', tool: 'echo' }));
    const [r2] = await h.keep('approve-me', {});
    const claim = await h.stores.runs.claim(r2!, 'w', 30_000, h.clock.now());
    const { interaction: ap } = await h.stores.interactions.park({
      run: r2!,
      token: claim!.token,
      kind: 'approval',
      tool: 'echo',
      argsHash: 'x',
      answerHooks: ['slack'],
      expiresAt: h.clock.now() + 60_000,
      now: h.clock.now(),
    });
    const refused = await fire('by-id', { id: ap.id });
    expect(refused).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(refused.error?.message).toContain(`hook 'by-id' may not answer approval ${ap.id}`);
    await h.stores.hooks.putHook(hook({ name: 'slack', topic: 'slack', tool: 'echo', resume_expr: { content: 'verdict-hook' } }));
    // A listed hook acting on a verified event gets as far as the verdict.
    const [slackRun] = await h.keep('slack', { id: ap.id }, { door: 'http', verified: true });
    await h.executor.handle(slackRun!);
    const badVerdict = (await h.stores.runs.get(slackRun!))!;
    expect(badVerdict).toMatchObject({ status: 'failed', error: { kind: 'bad_input' } });
    expect(badVerdict.error?.message).toContain(`interaction ${ap.id} is an approval: resume it with payload.verdict "approve" or "deny", got "maybe"`);
    expect((await h.stores.interactions.get(ap.id))?.status).toBe('open');
  });

  it('a wait that expires: on_timeout fail holds the run failed (timeout), succeed ends it succeeded', async () => {
    const { h, fire } = await setup();
    await h.stores.hooks.putHook(hook({ name: 'patient', topic: 'patient', tool: 'wait', tool_kwargs: { timeout_seconds: 60, on_timeout: 'succeed' } }));
    const failing = await fire('opened', { pr: 'acme#5' });
    const ok = await fire('patient', {});
    h.clock.advance(3_600_000);
    const expired = await h.stores.interactions.expireDue(h.clock.now(), 10);
    expect(expired.map((i) => i.id).sort()).toEqual([...failing.parked_on, ...ok.parked_on].sort());
    await h.executor.handle(failing.id);
    await h.executor.handle(ok.id);
    const f = await h.stores.runs.get(failing.id);
    expect(f).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(f?.error?.message).toContain(`wait ${failing.parked_on[0]} expired at`);
    expect(await h.stores.runs.get(ok.id)).toMatchObject({ status: 'succeeded', result: { timed_out: true, interaction: ok.parked_on[0] } });
  });

  it('a run stopped mid-claim: still open -> the claim did not commit, it tries again; resolved -> held failed naming the ids', async () => {
    const { h, fire } = await setup();
    const policy = { maxAttempts: 5, retryDelayMs: 0 };
    const stopMidClaim = async (interaction: string) => {
      const [id] = await h.keep('by-id', { id: interaction });
      const c = await h.stores.runs.claim(id!, 'dead-worker', 1_000, h.clock.now());
      await h.stores.runs.setClaimIntent(id!, c!.token, `resume:${interaction}`, h.clock.now());
      h.clock.advance(2_000);
      await h.stores.runs.sweepLapsed(h.clock.now(), 10, policy);
      return id!;
    };
    const open = (await fire('opened', { pr: 'acme#6' })).parked_on[0]!;
    const retried = await stopMidClaim(open);
    await h.executor.handle(retried);
    const r = await h.stores.runs.get(retried);
    expect(r).toMatchObject({ status: 'succeeded', acted: 'resume', acted_ids: [open], attempts: 2 });
    expect(r?.history.find((e) => e.event === 'claim_checked')?.detail).toContain('still open: the claim did not commit');

    const gone = (await fire('opened', { pr: 'acme#7' })).parked_on[0]!;
    const held = await stopMidClaim(gone);
    await h.stores.interactions.resolve(gone, { status: 'cancelled', by: 'operator:ops', via: 'api' }, h.clock.now());
    await h.executor.handle(held);
    const failed = await h.stores.runs.get(held);
    expect(failed).toMatchObject({ status: 'failed', acted: '', error: { kind: 'conflict' } });
    expect(failed?.error?.message).toContain(`stopped while making a resume claim on ${gone}; ${gone} (cancelled) is no longer open`);
    expect(failed?.error?.message).toContain('the platform cannot tell whether this run');
  });

  it("an approval answered by an allowed hook's resume_expr: the tool is called once, with the extras it handed on", async () => {
    const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
    const h = harness({ jq: jq({ 'approve-named': (p) => [{ id: (p as { id: string }).id, payload: { verdict: 'approve' } }] }), tools: [deploy] });
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'approve', answer_hooks: ['slack'], timeout_seconds: 600 }], null, h.clock.now());
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'ship', tool: 'deploy', tool_kwargs: { env: 'prod' } }));
    await h.stores.hooks.putHook(
      hook({ name: 'slack', topic: 'slack', tool: 'deploy', resume_expr: { content: 'approve-named' }, extras_expr: { content: 'hand-on' } }),
    );
    const [ship] = await h.keep('ship', {});
    await h.executor.handle(ship!);
    const parkedRun = (await h.stores.runs.get(ship!))!;
    expect(parkedRun).toMatchObject({ status: 'parked', acted: '' });
    const [answer] = await h.keep('slack', { id: parkedRun.parked_on[0] }, { door: 'http', verified: true });
    await h.executor.handle(answer!);
    expect(await h.stores.runs.get(answer!)).toMatchObject({ status: 'succeeded', acted: 'resume', acted_ids: parkedRun.parked_on });
    await h.executor.handle(ship!);
    expect(await h.stores.runs.get(ship!)).toMatchObject({ status: 'succeeded', result: { deployed: { env: 'prod' } } });
    expect(deploy.calls).toHaveLength(1);
    expect(deploy.calls[0]!.ctx.extras).toMatchObject({ note: 'from the answer', 'tai42/idempotency_key': ship });
  });

  it('an approval is answered (resume or take) only from a verified event of a hook in answer_hooks; an unverified run is refused saying which door', async () => {
    const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
    const h = harness({ jq: jq({ 'approve-named': (p) => [{ id: (p as { id: string }).id, payload: { verdict: 'approve' } }] }), tools: [deploy] });
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'approve', answer_hooks: ['slack'], timeout_seconds: 600 }], null, h.clock.now());
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'ship', tool: 'deploy', tool_kwargs: { env: 'prod' } }));
    await h.stores.hooks.putHook(hook({ name: 'slack', topic: 'slack', tool: 'echo', resume_expr: { content: 'approve-named' } }));
    await h.stores.hooks.putHook(hook({ name: 'taker', topic: 'take', tool: 'echo', resume_expr: { content: 'take-named' } }));
    // The topic's binding no longer vouches for the run: only the run's own verification counts.
    await h.stores.hooks.putVerifier({ topic: 'slack', kind: 'slack', settings: {}, secrets: ['env:X'], created_at: '', updated_at: '' });
    const [ship] = await h.keep('ship', {});
    await h.executor.handle(ship!);
    const id = (await h.stores.runs.get(ship!))!.parked_on[0]!;
    const answer = async (topic: string, provenance: { door: 'http' | 'nats' | 'api'; verified: boolean }) => {
      const [r] = await h.keep(topic, { id }, provenance);
      await h.executor.handle(r!);
      return (await h.stores.runs.get(r!))!;
    };
    const unverified = await answer('slack', { door: 'api', verified: false });
    expect(unverified).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(unverified.error?.message).toBe(
      `hook 'slack' may not answer approval ${id}: run ${unverified.id} came through the api door unverified; only a verified event (a verifier binding checked its signature) may answer an approval`,
    );
    expect((await h.stores.interactions.get(id))?.status).toBe('open');
    expect(await answer('slack', { door: 'http', verified: true })).toMatchObject({ status: 'succeeded', acted: 'resume' });
    await h.executor.handle(ship!);
    expect((await h.stores.interactions.get(id))?.status).toBe('approved');

    // take: the same rule. A verified run of a hook the rule does not list, and an unverified run of one it does, are refused.
    const unlisted = await answer('take', { door: 'http', verified: true });
    expect(unlisted).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(unlisted.error?.message).toContain(`hook 'taker' may not answer approval ${id}: its rule 'deployment rule 1' lists answer_hooks ["slack"]`);
    await h.stores.hooks.putHook(hook({ name: 'slack', topic: 'slack', tool: 'echo', resume_expr: { content: 'take-named' } }));
    const notVerified = await answer('slack', { door: 'nats', verified: false });
    expect(notVerified).toMatchObject({ status: 'failed', acted: '', error: { kind: 'unauthorized' } });
    expect(notVerified.error?.message).toContain(`run ${notVerified.id} came through the nats door unverified`);
    expect((await h.stores.interactions.get(id))?.status).toBe('approved');
    expect(await answer('slack', { door: 'http', verified: true })).toMatchObject({ status: 'succeeded', acted: 'take' });
    expect((await h.stores.interactions.get(id))?.status).toBe('taken');
  });

  it('an extras_expr yielding a tai42/ key (the subject approval rules see) fails bad_input naming it, before acting', async () => {
    const { h, echo, fire } = await setup();
    await h.stores.hooks.putHook(hook({ name: 'spoofer', topic: 'spoof', tool: 'echo', extras_expr: { content: 'spoof-subject' } }));
    const run = await fire('spoof', {});
    expect(run).toMatchObject({ status: 'failed', acted: '', error: { kind: 'bad_input' } });
    expect(run.error!.message).toContain('"tai42/subject"');
    expect(echo.calls).toHaveLength(0);
    // Handed on to a resumed run, the same key is refused too: the answer fails, the parked run stays parked.
    await h.stores.hooks.putHook(
      hook({
        name: 'spoof-resumer',
        topic: 'spoof-merged',
        tool: 'echo',
        subject,
        resume_expr: { content: 'resume-first' },
        extras_expr: { content: 'spoof-subject' },
      }),
    );
    const waiting = await fire('opened', { pr: 'acme#9' });
    const answer = await fire('spoof-merged', { pr: 'acme#9' });
    expect(answer).toMatchObject({ status: 'failed', error: { kind: 'bad_input' } });
    expect(await h.stores.runs.get(waiting.id)).toMatchObject({ status: 'parked' });
  });

  it('start_expr null starts nothing', async () => {
    const { h, echo, fire } = await setup({ 'null-start': () => [null] });
    await h.stores.hooks.putHook(hook({ name: 'idle', topic: 'idle', tool: 'echo', start_expr: { content: 'null-start' } }));
    expect(await fire('idle', {})).toMatchObject({ status: 'skipped', result: { start: null }, acted: '' });
    expect(echo.calls).toHaveLength(0);
  });
});
