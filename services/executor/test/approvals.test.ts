import {
  DEFAULT_DENY_MESSAGE,
  HOOKS_APPROVAL_REQUESTED_TOPIC,
  approvalLinkValid,
  TOOL_EXTRA_APPROVE_URL,
  TOOL_EXTRA_DENY_URL,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  TOOL_EXTRA_LINKS_EXPIRE_AT,
  argsHash,
  unavailable,
  type ApprovalRule,
} from '@hookyard/core';
import { counter, gate, harness, hook, tableJq, testTool, until } from './fixtures';

const payload = { env: 'prod', service: 'api' };

function jq() {
  return tableJq({
    '{service, env}': (p) => [{ service: (p as typeof payload).service, env: (p as typeof payload).env }],
    '.args.env == "prod"': (call) => [(call as { args: { env?: string } }).args.env === 'prod'],
  });
}

async function setup(
  rules: ApprovalRule[],
  hookRules?: ApprovalRule[],
  settings: Parameters<typeof harness>[0]['settings'] = {},
  tools: { deploy?: ReturnType<typeof testTool>; notify?: ReturnType<typeof testTool> } = {},
) {
  const deploy = tools.deploy ?? testTool('deploy', async ({ args }) => ({ deployed: args }));
  const notify = tools.notify ?? testTool('notify', async () => 'posted');
  const h = harness({ jq: jq(), tools: [deploy, notify], settings });
  await h.stores.hooks.putApprovalPolicy(rules, null, h.clock.now());
  await h.stores.hooks.putHook(
    hook({
      name: 'ship',
      topic: 'github',
      tool: 'deploy',
      start_expr: { content: '{service, env}' },
      tool_kwargs: { ref: 'main' },
      ...(hookRules ? { approval: hookRules } : {}),
    }),
  );
  // Routes approval requests somewhere (as a deployment would, e.g. to Slack through the webhook tool).
  await h.stores.hooks.putHook(hook({ name: 'ask-humans', topic: HOOKS_APPROVAL_REQUESTED_TOPIC, tool: 'notify' }));
  const [id] = await h.keep('github', payload);
  await h.executor.handle(id!);
  return { h, deploy, notify, id: id! };
}

const approveRule: ApprovalRule = {
  name: 'prod deploys',
  tools: ['deploy'],
  when: '.args.env == "prod"',
  action: 'approve',
  message: 'deploy to prod?',
  timeout_seconds: 600,
};
const kwargs = { service: 'api', env: 'prod', ref: 'main' };

describe('executor: the approval policy around the tool call', () => {
  it('deny: the tool is never called; the run ends denied with a sentence, not retried, counted', async () => {
    const { h, deploy, id } = await setup([{ tools: ['deploy'], action: 'deny' }]);
    const run = (await h.stores.runs.get(id))!;
    expect(run).toMatchObject({
      status: 'denied',
      acted: '',
      attempts: 1,
      error: null,
      result: { message: DEFAULT_DENY_MESSAGE, rule: 'deployment rule 1', policy_version: 1 },
    });
    expect(deploy.calls).toHaveLength(0);
    expect(run.history.map((l) => l.event)).toContain('approval policy');
    expect(run.history.find((l) => l.event === 'approval policy')!.detail).toContain('denied by deployment rule 1');
    expect(await counter(h.metrics.denied, { hook: 'ship' })).toBe(1);
    expect(h.events.map((e) => [e.event, e.status])).toEqual([
      ['started', 'running'],
      ['finished', 'denied'],
    ]);
  });

  it("a hook's own rule makes an allowed call stricter (deny, with its message)", async () => {
    const { h, deploy, id } = await setup(
      [{ tools: ['*'], action: 'allow' }],
      [{ tools: ['deploy'], action: 'deny', message: 'this hook never deploys: open a ticket' }],
    );
    expect(await h.stores.runs.get(id)).toMatchObject({ status: 'denied', result: { message: 'this hook never deploys: open a ticket', rule: 'hook rule 1' } });
    expect(deploy.calls).toHaveLength(0);
  });

  it("a hook's own allow cannot loosen a deployment deny", async () => {
    const { h, deploy, id } = await setup([{ tools: ['deploy'], action: 'deny', message: 'frozen' }], [{ tools: ['*'], action: 'allow' }]);
    expect(await h.stores.runs.get(id)).toMatchObject({ status: 'denied', result: { message: 'frozen' } });
    expect(deploy.calls).toHaveLength(0);
  });

  it('allow (and no match): the tool is called, through the gate, with the topic in its context', async () => {
    const { h, deploy, id } = await setup([{ tools: ['deploy'], when: '.args.env == "prod"', action: 'deny' }]);
    expect((await h.stores.runs.get(id))!.status).toBe('denied');
    const [staging] = await h.keep('github', { env: 'staging', service: 'api' });
    await h.executor.handle(staging!);
    expect((await h.stores.runs.get(staging!))!.status).toBe('succeeded');
    expect(deploy.calls).toHaveLength(1);
    expect(deploy.calls[0]!.ctx.topic).toBe('github');
  });

  it('approve: parks on an approval bound to tool, args hash, rule, policy version and expiry; fires hooks_approval_requested', async () => {
    const { h, deploy, notify, id } = await setup([approveRule]);
    const run = (await h.stores.runs.get(id))!;
    expect(run).toMatchObject({ status: 'parked', acted: '', lease: null });
    expect(deploy.calls).toHaveLength(0);
    const [interaction] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
    expect(interaction).toMatchObject({
      kind: 'approval',
      status: 'open',
      run: id,
      hook: 'ship',
      topic: 'github',
      tool: 'deploy',
      args_hash: argsHash(kwargs),
      rule: 'prod deploys',
      // The rule's message, kept for the approver (the Approvals page, the story, the CLI).
      message: 'deploy to prod?',
      policy_version: 1,
      on_timeout: 'deny',
      answer_hooks: [],
      expires_at: new Date(h.clock.now() + 600_000).toISOString(),
    });
    expect(run.history.find((l) => l.event === 'approval requested')!.detail).toBe('by prod deploys (deployment rules, policy version 1): deploy to prod?');
    expect(await counter(h.metrics.parkedTotal, { hook: 'ship', kind: 'approval' })).toBe(1);

    // The platform event: one run of the hook on hooks_approval_requested, carrying what a person needs to decide.
    const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
    expect(event!.payload).toEqual({
      interaction: interaction!.id,
      run: id,
      hook: 'ship',
      topic: 'github',
      agent: null,
      tool: 'deploy',
      args: kwargs,
      rule: 'prod deploys',
      message: 'deploy to prod?',
      policy_version: 1,
      answer_hooks: [],
      on_timeout: 'deny',
      expires_at: interaction!.expires_at,
      subject: null,
    });
    // Announced: the claim, the park (with its interaction), and the platform event's run as accepted.
    expect(h.events.map((e) => [e.run_id, e.event, e.status])).toEqual([
      [id, 'started', 'running'],
      [id, 'parked', 'parked'],
      [event!.id, 'accepted', 'pending'],
    ]);
    expect(h.events[2]).toMatchObject({ hook: 'ask-humans', topic: HOOKS_APPROVAL_REQUESTED_TOPIC, attempts: 0, created_at: event!.created_at });
    await h.executor.handle(event!.id);
    expect(notify.calls).toHaveLength(1);
  });

  it('approved: the woken run hashes the arguments again and calls the tool once, with the original arguments and idempotency key', async () => {
    const { h, deploy, id } = await setup([approveRule]);
    const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
    // The policy changes meanwhile: the approval, not the new policy, decides this call.
    await h.stores.hooks.putApprovalPolicy([{ tools: ['*'], action: 'approve' }], null, h.clock.now());
    await h.stores.interactions.resolve(i!.id, { status: 'approved', by: 'operator:ada', via: 'api', reason: 'looks good' }, h.clock.now());
    await h.executor.handle(id);
    const run = (await h.stores.runs.get(id))!;
    expect(run).toMatchObject({ status: 'succeeded', acted: 'start', input: kwargs, result: { deployed: kwargs } });
    expect(deploy.calls).toHaveLength(1);
    expect(deploy.calls[0]!.args).toEqual(kwargs);
    expect(deploy.calls[0]!.ctx.extras[TOOL_EXTRA_IDEMPOTENCY_KEY]).toBe(id);
    expect(run.history.find((l) => l.event === 'approval policy')!.detail).toBe('approved by operator:ada via api');
    // Handled again (a duplicate delivery): nothing more.
    await h.executor.handle(id);
    expect(deploy.calls).toHaveLength(1);
  });

  it('denied by a person: the run ends denied, naming who said no and why; the tool is never called', async () => {
    const { h, deploy, id } = await setup([approveRule]);
    const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
    await h.stores.interactions.resolve(i!.id, { status: 'denied', by: 'operator:bob', via: 'link', reason: 'not on a Friday' }, h.clock.now());
    await h.executor.handle(id);
    expect(await h.stores.runs.get(id)).toMatchObject({
      status: 'denied',
      result: {
        message: 'this call was denied by operator:bob via link (not on a Friday): ask for clarification or try a less destructive approach',
        interaction: i!.id,
        by: 'operator:bob',
        via: 'link',
        rule: 'prod deploys',
        policy_version: 1,
      },
    });
    expect(deploy.calls).toHaveLength(0);
  });

  it('arguments changed before the approval (the hook was re-registered): refused, the run ends denied saying why', async () => {
    const { h, deploy, id } = await setup([approveRule]);
    const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
    const ship = (await h.stores.hooks.getHook('ship'))!;
    await h.stores.hooks.putHook({ ...ship, tool_kwargs: { ref: 'hotfix' } });
    await h.stores.interactions.resolve(i!.id, { status: 'approved', by: 'operator:ada', via: 'api' }, h.clock.now());
    await h.executor.handle(id);
    const run = (await h.stores.runs.get(id))!;
    expect(run.status).toBe('denied');
    expect((run.result as { message: string }).message).toMatch(
      /^this call was not made: the arguments changed \(approved [0-9a-f]{12}…, now [0-9a-f]{12}…\) since the approval was asked/,
    );
    expect(deploy.calls).toHaveLength(0);
  });

  it.each([
    ['deny', 'denied', 0],
    ['allow', 'succeeded', 1],
  ] as const)('expiry with on_timeout %s: the run ends %s', async (onTimeout, status, calls) => {
    const { h, deploy, id } = await setup([{ ...approveRule, on_timeout: onTimeout }]);
    h.clock.advance(600_001);
    const expired = await h.stores.interactions.expireDue(h.clock.now(), 10);
    expect(expired.map((e) => e.run)).toEqual([id]);
    await h.executor.handle(id);
    const run = (await h.stores.runs.get(id))!;
    expect(run.status).toBe(status);
    expect(deploy.calls).toHaveLength(calls);
    if (status === 'denied') expect((run.result as { message: string }).message).toMatch(/^this call was not approved before its approval expired at /);
  });

  it('a run on hooks_approval_requested that itself needs approval parks but fires no second event (no loops)', async () => {
    const { h, id } = await setup([{ tools: ['*'], action: 'approve' }]);
    const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
    await h.executor.handle(event!.id);
    expect((await h.stores.runs.get(event!.id))!.status).toBe('parked');
    expect((await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs).toHaveLength(1);
    expect((await h.stores.runs.get(id))!.status).toBe('parked');
  });

  it('signed links reach the hook on hooks_approval_requested as extras only: never in its payload, input, result, error or history', async () => {
    process.env.HOOKS_SECRET_TEST_LINK_KEY = 'link-key-0123456789abcdef';
    try {
      // A chat API echoes the message it posted: the kept result must not carry the link either.
      const notify = testTool('notify', async ({ ctx }) => ({ ok: true, message: { text: `approve: <${String(ctx.extras[TOOL_EXTRA_APPROVE_URL])}|here>` } }));
      const { h, id } = await setup(
        [approveRule],
        undefined,
        { publicUrl: 'https://hooks.example.test', approvalLinkSecret: 'env:HOOKS_SECRET_TEST_LINK_KEY', approvalLinkTtlMs: 60_000 },
        { notify },
      );
      const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
      const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
      expect(Object.keys(event!.payload as object)).not.toEqual(expect.arrayContaining(['approve_url']));
      expect(Object.keys(event!.payload as object)).not.toEqual(expect.arrayContaining(['deny_url']));
      const madeAt = h.clock.now();
      await h.executor.handle(event!.id);
      expect(notify.calls).toHaveLength(1);
      const extras = notify.calls[0]!.ctx.extras;
      const key = Buffer.from(process.env.HOOKS_SECRET_TEST_LINK_KEY);
      const sigs: string[] = [];
      for (const [url, verdict] of [
        [extras[TOOL_EXTRA_APPROVE_URL], 'approve'],
        [extras[TOOL_EXTRA_DENY_URL], 'deny'],
      ] as const) {
        const u = new URL(String(url));
        expect(`${u.origin}${u.pathname}`).toBe(`https://hooks.example.test/approvals/${i!.id}/${verdict}`);
        // The link's own expiry: HOOKS_APPROVAL_LINK_TTL_SECONDS (60 s here) from now, shorter than the approval's 600 s.
        const exp = u.searchParams.get('exp');
        expect(Number(exp) * 1000).toBe(Math.floor((madeAt + 60_000) / 1000) * 1000);
        const q = { exp, by: u.searchParams.get('by'), sig: u.searchParams.get('sig') };
        expect(approvalLinkValid(key, i!.id, verdict, q)).toEqual({ expiresAtMs: Number(exp) * 1000, issuer: 'hook:ask-humans' });
        // A deny link's signature does not make an approve link.
        expect(approvalLinkValid(key, i!.id, verdict === 'approve' ? 'deny' : 'approve', q)).toBe(false);
        sigs.push(u.searchParams.get('sig')!);
      }
      expect(extras[TOOL_EXTRA_LINKS_EXPIRE_AT]).toBe(new Date(Math.floor((madeAt + 60_000) / 1000) * 1000).toISOString());
      // Nothing a reader can read holds a link: the run (payload, input, result, history) and the interaction.
      const kept = (await h.stores.runs.get(event!.id))!;
      expect(kept.status).toBe('succeeded');
      expect(kept.result).toEqual({
        ok: true,
        message: {
          text:
            'approve: <https://hooks.example.test/approvals/' +
            i!.id +
            '/approve?exp=' +
            String(new URL(String(extras[TOOL_EXTRA_APPROVE_URL])).searchParams.get('exp')) +
            '&by=hook:ask-humans&sig=[approval link signature removed]|here>',
        },
      });
      const readable = JSON.stringify([kept, await h.stores.runs.get(id), await h.stores.interactions.get(i!.id), (await h.stores.runs.list({}, 50)).runs]);
      for (const sig of sigs) expect(readable).not.toContain(sig);
      expect(readable).not.toContain('approve_url');
    } finally {
      delete process.env.HOOKS_SECRET_TEST_LINK_KEY;
    }
  });

  it("the platform event's links are issued to the hook handed them (hook:ask-humans), signed: another issuer does not verify", async () => {
    process.env.HOOKS_SECRET_TEST_LINK_KEY = 'link-key-0123456789abcdef';
    try {
      const { h, notify, id } = await setup([approveRule], undefined, {
        publicUrl: 'https://hooks.example.test',
        approvalLinkSecret: 'env:HOOKS_SECRET_TEST_LINK_KEY',
      });
      const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
      const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
      await h.executor.handle(event!.id);
      const key = Buffer.from(process.env.HOOKS_SECRET_TEST_LINK_KEY);
      for (const [url, verdict] of [
        [notify.calls[0]!.ctx.extras[TOOL_EXTRA_APPROVE_URL], 'approve'],
        [notify.calls[0]!.ctx.extras[TOOL_EXTRA_DENY_URL], 'deny'],
      ] as const) {
        const u = new URL(String(url));
        // The hook on hooks_approval_requested that was handed the links, not the hook whose call waits (ship).
        expect(u.searchParams.get('by')).toBe('hook:ask-humans');
        const q = { exp: u.searchParams.get('exp'), sig: u.searchParams.get('sig') };
        expect(approvalLinkValid(key, i!.id, verdict, { ...q, by: 'hook:ask-humans' })).toMatchObject({ issuer: 'hook:ask-humans' });
        for (const by of ['hook:ship', 'operator:0badc0de', undefined]) expect(approvalLinkValid(key, i!.id, verdict, { ...q, by })).toBe(false);
      }
    } finally {
      delete process.env.HOOKS_SECRET_TEST_LINK_KEY;
    }
  });

  it('a link never outlives its approval: the link expiry is min(HOOKS_APPROVAL_LINK_TTL_SECONDS, expires_at)', async () => {
    process.env.HOOKS_SECRET_TEST_LINK_KEY = 'link-key-0123456789abcdef';
    try {
      const { h, notify, id } = await setup([approveRule], undefined, {
        publicUrl: 'https://hooks.example.test',
        approvalLinkSecret: 'env:HOOKS_SECRET_TEST_LINK_KEY',
      });
      const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
      const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
      await h.executor.handle(event!.id);
      // Default TTL one hour, the approval 600 s: the approval's expiry wins.
      expect(notify.calls[0]!.ctx.extras[TOOL_EXTRA_LINKS_EXPIRE_AT]).toBe(i!.expires_at);
    } finally {
      delete process.env.HOOKS_SECRET_TEST_LINK_KEY;
    }
  });

  it('an outside copy of the request event (kept through a verified HTTP door, same interaction and run) gets no links', async () => {
    process.env.HOOKS_SECRET_TEST_LINK_KEY = 'link-key-0123456789abcdef';
    try {
      const { h, notify } = await setup([approveRule], undefined, {
        publicUrl: 'https://hooks.example.test',
        approvalLinkSecret: 'env:HOOKS_SECRET_TEST_LINK_KEY',
      });
      const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
      expect(event!.door).toBe('platform');
      // A sender who learned the ids (they travel in chat buttons) replays the event's payload.
      const [forged] = await h.keep(HOOKS_APPROVAL_REQUESTED_TOPIC, event!.payload, { door: 'http', verified: true });
      await h.executor.handle(forged!);
      expect(notify.calls).toHaveLength(1);
      expect(notify.calls[0]!.ctx.extras[TOOL_EXTRA_APPROVE_URL]).toBeUndefined();
      expect(notify.calls[0]!.ctx.extras[TOOL_EXTRA_DENY_URL]).toBeUndefined();
      // The platform's own event still gets them.
      await h.executor.handle(event!.id);
      expect(String(notify.calls[1]!.ctx.extras[TOOL_EXTRA_APPROVE_URL])).toContain('/approve?exp=');
    } finally {
      delete process.env.HOOKS_SECRET_TEST_LINK_KEY;
    }
  });

  it('a link key that cannot be read: no links (logged), the approval is still requested', async () => {
    const { h, notify, id } = await setup([approveRule], undefined, {
      publicUrl: 'https://hooks.example.test',
      approvalLinkSecret: 'env:HOOKS_SECRET_TEST_UNSET_KEY',
    });
    const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
    expect(event!.payload).toMatchObject({ run: id });
    await h.executor.handle(event!.id);
    expect(notify.calls[0]!.ctx.extras[TOOL_EXTRA_APPROVE_URL]).toBeUndefined();
    expect(h.lines.some((l) => l.msg.includes('approval links not signed') && String(l.err).includes('HOOKS_SECRET_TEST_UNSET_KEY'))).toBe(true);
  });
});

describe('executor: an approval covers exactly one acted call', () => {
  /** A deploy that fails after it started (held failed: the platform adds no attempts after acting). */
  const failingDeploy = () =>
    testTool('deploy', async () => {
      throw unavailable('deploy service answered 503');
    });

  async function approve(h: Awaited<ReturnType<typeof setup>>['h'], run: string) {
    const open = (await h.stores.interactions.list({ run, status: 'open' }, 10)).interactions;
    expect(open).toHaveLength(1);
    await h.stores.interactions.resolve(open[0]!.id, { status: 'approved', by: 'operator:ada', via: 'api' }, h.clock.now());
    return open[0]!.id;
  }

  it('an operator retry of a run whose approved call failed parks on a new approval; after the policy changes to deny it ends denied; the old approval never calls again', async () => {
    const deploy = failingDeploy();
    const { h, id } = await setup([approveRule], undefined, {}, { deploy });
    const first = await approve(h, id);
    await h.executor.handle(id);
    expect(await h.stores.runs.get(id)).toMatchObject({ status: 'failed', acted: 'start', error: { kind: 'unavailable' } });
    expect(deploy.calls).toHaveLength(1);

    // Retry: the approval was used by that call; the policy (still approve) asks again.
    await h.stores.runs.retry(id, h.clock.now());
    await h.executor.handle(id);
    const parked = (await h.stores.runs.get(id))!;
    expect(parked).toMatchObject({ status: 'parked', acted: 'start' });
    expect(parked.interaction).not.toBe(first);
    expect(deploy.calls).toHaveLength(1);
    const second = (await h.stores.interactions.get(parked.interaction!))!;
    expect(second).toMatchObject({ kind: 'approval', status: 'open', args_hash: argsHash(kwargs), rule: 'prod deploys' });
    // A new request went out for the new approval.
    const asks = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs.map((r) => (r.payload as { interaction: string }).interaction);
    expect(asks.sort()).toEqual([first, second.id].sort());

    // Approved again: called once more, with the same input and idempotency key; it fails again.
    await approve(h, id);
    await h.executor.handle(id);
    expect(deploy.calls).toHaveLength(2);
    expect(deploy.calls[1]!.args).toEqual(kwargs);
    expect(deploy.calls[1]!.ctx.extras[TOOL_EXTRA_IDEMPOTENCY_KEY]).toBe(id);
    expect((await h.stores.runs.get(id))!.status).toBe('failed');

    // An admin changes the policy to deny; the next retry is denied and calls nothing.
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'deny', message: 'deploys are frozen' }], null, h.clock.now());
    await h.stores.runs.retry(id, h.clock.now());
    await h.executor.handle(id);
    expect(await h.stores.runs.get(id)).toMatchObject({ status: 'denied', result: { message: 'deploys are frozen' } });
    expect(deploy.calls).toHaveLength(2);
  });

  it('a retry after the policy changed to allow calls without asking', async () => {
    const deploy = failingDeploy();
    const { h, id } = await setup([approveRule], undefined, {}, { deploy });
    await approve(h, id);
    await h.executor.handle(id);
    await h.stores.hooks.putApprovalPolicy([{ tools: ['deploy'], action: 'allow' }], null, h.clock.now());
    await h.stores.runs.retry(id, h.clock.now());
    await h.executor.handle(id);
    expect(deploy.calls).toHaveLength(2);
    expect((await h.stores.interactions.list({ run: id }, 10)).interactions).toHaveLength(1);
  });

  it('a crash-resumable replay of the approved start is the same call: it asks nothing again', async () => {
    const hold = gate<unknown>();
    let n = 0;
    const deploy = testTool('deploy', async () => (++n === 1 ? hold.promise : { deployed: 'replayed' }), { crashResumable: true });
    const { h, id } = await setup([approveRule], undefined, {}, { deploy });
    await approve(h, id);
    void h.executor.handle(id);
    await until(() => deploy.calls.length === 1);
    h.clock.advance(h.settings.leaseMs + 1);
    expect(await h.stores.runs.sweepLapsed(h.clock.now(), 10, { maxAttempts: 5, retryDelayMs: 0 })).toEqual([
      expect.objectContaining({ id, outcome: 'replay' }),
    ]);
    await h.executor.handle(id);
    expect(await h.stores.runs.get(id)).toMatchObject({ status: 'succeeded', result: { deployed: 'replayed' } });
    expect(deploy.calls.map((c) => c.ctx.idempotencyKey)).toEqual([id, id]);
    expect((await h.stores.interactions.list({ run: id }, 10)).interactions).toHaveLength(1);
    hold.open(null);
  });
});
