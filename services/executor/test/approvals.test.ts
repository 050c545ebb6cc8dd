import {
  DEFAULT_DENY_MESSAGE,
  HOOKS_APPROVAL_REQUESTED_TOPIC,
  approvalLinkValid,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  argsHash,
  type ApprovalRule,
} from '@hookyard/core';
import { counter, harness, hook, tableJq, testTool } from './fixtures';

const payload = { env: 'prod', service: 'api' };

function jq() {
  return tableJq({
    '{service, env}': (p) => [{ service: (p as typeof payload).service, env: (p as typeof payload).env }],
    '.args.env == "prod"': (call) => [(call as { args: { env?: string } }).args.env === 'prod'],
  });
}

async function setup(rules: ApprovalRule[], hookRules?: ApprovalRule[], settings: Parameters<typeof harness>[0]['settings'] = {}) {
  const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
  const notify = testTool('notify', async () => 'posted');
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
      tool: 'deploy',
      args: kwargs,
      rule: 'prod deploys',
      message: 'deploy to prod?',
      policy_version: 1,
      answer_hooks: [],
      on_timeout: 'deny',
      expires_at: interaction!.expires_at,
      subject: null,
      approve_url: null,
      deny_url: null,
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

  it('with HOOKS_PUBLIC_URL and HOOKS_APPROVAL_LINK_SECRET, the event carries signed approve and deny links', async () => {
    process.env.HOOKS_SECRET_TEST_LINK_KEY = 'link-key-0123456789abcdef';
    try {
      const { h, id } = await setup([approveRule], undefined, {
        publicUrl: 'https://hooks.example.test',
        approvalLinkSecret: 'env:HOOKS_SECRET_TEST_LINK_KEY',
      });
      const [i] = (await h.stores.interactions.list({ run: id }, 10)).interactions;
      const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
      const { approve_url, deny_url } = event!.payload as { approve_url: string; deny_url: string };
      const key = Buffer.from(process.env.HOOKS_SECRET_TEST_LINK_KEY);
      for (const [url, verdict] of [
        [approve_url, 'approve'],
        [deny_url, 'deny'],
      ] as const) {
        const u = new URL(url);
        expect(`${u.origin}${u.pathname}`).toBe(`https://hooks.example.test/approvals/${i!.id}/${verdict}`);
        expect(approvalLinkValid(key, i!.id, verdict, i!.expires_at, u.searchParams.get('sig'))).toBe(true);
        // A deny link's signature does not make an approve link.
        expect(approvalLinkValid(key, i!.id, verdict === 'approve' ? 'deny' : 'approve', i!.expires_at, u.searchParams.get('sig'))).toBe(false);
      }
    } finally {
      delete process.env.HOOKS_SECRET_TEST_LINK_KEY;
    }
  });

  it('a link key that cannot be read: no links (logged), the approval is still requested', async () => {
    const { h, id } = await setup([approveRule], undefined, { publicUrl: 'https://hooks.example.test', approvalLinkSecret: 'env:HOOKS_SECRET_TEST_UNSET_KEY' });
    const [event] = (await h.stores.runs.list({ topic: HOOKS_APPROVAL_REQUESTED_TOPIC }, 10)).runs;
    expect(event!.payload).toMatchObject({ run: id, approve_url: null, deny_url: null });
    expect(h.lines.some((l) => l.msg.includes('approval links not signed') && String(l.err).includes('HOOKS_SECRET_TEST_UNSET_KEY'))).toBe(true);
  });
});
