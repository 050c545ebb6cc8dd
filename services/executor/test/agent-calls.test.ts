import {
  AGENT_CALL_TOPIC,
  HOOKS_APPROVAL_REQUESTED_TOPIC,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  agentTokenHash,
  argsHash,
  type AgentCallPayload,
  type ApprovalRule,
} from '@hookyard/core';
import { counter, harness, hook, tableJq, testTool } from './fixtures';

function jq() {
  return tableJq({
    '.agent == "ci-bot" and .args.env == "prod"': (call) => {
      const c = call as { agent: string | null; args: { env?: string } };
      return [c.agent === 'ci-bot' && c.args.env === 'prod'];
    },
  });
}

async function setup(opts: { rules?: ApprovalRule[]; agentAllow?: string[]; toolsAllow?: string[] } = {}) {
  const deploy = testTool('deploy', async ({ args }) => ({ deployed: args }));
  const notify = testTool('notify', async () => 'posted');
  const h = harness({ jq: jq(), tools: [deploy, notify], settings: opts.toolsAllow ? { toolsAllow: opts.toolsAllow } : {} });
  await h.stores.hooks.putApprovalPolicy(opts.rules ?? [], null, h.clock.now());
  await h.stores.agents.create({ name: 'ci-bot', description: null, tools_allow: opts.agentAllow ?? ['*'], tokenHash: agentTokenHash('hya_x') }, h.clock.now());
  const call = async (tool: string, args: Record<string, unknown>, more: Partial<AgentCallPayload> = {}, agent = 'ci-bot') => {
    const payload: AgentCallPayload = {
      agent_id: (await h.stores.agents.get(agent))?.id ?? agent,
      tool,
      arguments: args,
      args_sha256: argsHash(args),
      tools_allow: null,
      idempotency_key: `k-${Math.random()}`,
      via: 'mcp',
      ...more,
    };
    const kept = await h.stores.runs.keepAgentCall({ agent, call: payload, now: h.clock.now(), dispatchGraceMs: 5000, keyTtlMs: 60_000 });
    await h.executor.handle(kept.id);
    return (await h.stores.runs.get(kept.id))!;
  };
  return { h, deploy, notify, call };
}

const args = { service: 'api', env: 'prod' };

describe('executor: an agent call (door agent) is a run like a hook run', () => {
  it('allowed: the tool is called once with the call arguments and the run id as idempotency key; the run keeps the result', async () => {
    const { h, deploy, call } = await setup();
    const run = await call('deploy', args);
    expect(run).toMatchObject({
      status: 'succeeded',
      door: 'agent',
      hook: 'agent:ci-bot',
      topic: AGENT_CALL_TOPIC,
      acted: 'start',
      input: args,
      result: { deployed: args },
    });
    expect(deploy.calls).toHaveLength(1);
    expect(deploy.calls[0]!.args).toEqual(args);
    expect(deploy.calls[0]!.ctx.extras[TOOL_EXTRA_IDEMPOTENCY_KEY]).toBe(run.id);
    expect(await counter(h.metrics.agentCalls, { agent: 'ci-bot', tool: 'deploy', status: 'succeeded' })).toBe(1);
    expect(run.history[0]!.detail).toMatch(/^call of tool deploy by agent ci-bot \(id [0-9a-f-]{36}\) through the agent door \(mcp\), idempotency key k-/);
  });

  it("a tool outside the agent's allowlist is refused and never called (held: no retry changes it)", async () => {
    const { h, deploy, call } = await setup({ agentAllow: ['notify'] });
    const run = await call('deploy', args);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ kind: 'unauthorized' });
    expect(run.error!.message).toBe("tool 'deploy' is not allowed for agent 'ci-bot' (allowlist [notify])");
    expect(await counter(h.metrics.agentCalls, { agent: 'ci-bot', tool: 'deploy', status: 'failed' })).toBe(1);
    expect(deploy.calls).toHaveLength(0);
  });

  it("the deployment's allowlist and the call's runtime allowlist narrow it too; none widens", async () => {
    const a = await setup({ toolsAllow: ['*', '!deploy'] });
    expect((await a.call('deploy', args)).error).toMatchObject({ kind: 'unauthorized' });
    expect(a.deploy.calls).toHaveLength(0);
    const b = await setup({ agentAllow: ['deploy', 'notify'] });
    expect((await b.call('deploy', args, { tools_allow: ['notify'] })).error).toMatchObject({ kind: 'unauthorized' });
    expect((await b.call('notify', {}, { tools_allow: ['notify'] })).status).toBe('succeeded');
    // A runtime list naming more than the agent's own allows nothing more.
    const c = await setup({ agentAllow: ['notify'] });
    expect((await c.call('deploy', args, { tools_allow: ['*'] })).error).toMatchObject({ kind: 'unauthorized' });
    expect(c.deploy.calls).toHaveLength(0);
  });

  it("a rule naming agents matches that agent's calls only, never a hook's run; `when` reads .agent", async () => {
    const rules: ApprovalRule[] = [
      {
        name: 'bots stay off prod',
        tools: ['deploy'],
        agents: ['ci-bot'],
        when: '.agent == "ci-bot" and .args.env == "prod"',
        action: 'deny',
        message: 'bots do not deploy to prod',
      },
    ];
    const { h, deploy, call } = await setup({ rules });
    const run = await call('deploy', args);
    expect(run).toMatchObject({ status: 'denied', result: { message: 'bots do not deploy to prod', rule: 'bots stay off prod' } });
    expect(deploy.calls).toHaveLength(0);
    // Another agent: the rule does not cover it.
    await h.stores.agents.create({ name: 'other', description: null, tools_allow: ['*'], tokenHash: agentTokenHash('hya_y') }, h.clock.now());
    expect((await call('deploy', args, {}, 'other')).status).toBe('succeeded');
    // A hook's run of the same tool: not an agent's call, so the agents rule never matches it.
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'github', tool: 'deploy', tool_kwargs: args }));
    const [id] = await h.keep('github', {});
    await h.executor.handle(id!);
    expect((await h.stores.runs.get(id!))!.status).toBe('succeeded');
    expect(deploy.calls).toHaveLength(2);
  });

  it('approve: the call parks on an approval naming the agent; approved, the tool is called once with the approved arguments', async () => {
    const rules: ApprovalRule[] = [{ name: 'agent deploys', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy' }];
    const { h, deploy, call } = await setup({ rules });
    await h.stores.hooks.putHook(hook({ name: 'ask-humans', topic: HOOKS_APPROVAL_REQUESTED_TOPIC, tool: 'notify' }));
    const parked = await call('deploy', args);
    expect(parked).toMatchObject({ status: 'parked', acted: '' });
    expect(deploy.calls).toHaveLength(0);
    const i = (await h.stores.interactions.get(parked.interaction!))!;
    expect(i).toMatchObject({ kind: 'approval', status: 'open', tool: 'deploy', rule: 'agent deploys' });
    // The platform's approval request names the agent, so a deployment can route it.
    const asked = (await h.stores.runs.list({ hook: 'ask-humans' }, 10)).runs[0]!;
    expect(asked.payload).toMatchObject({ run: parked.id, hook: 'agent:ci-bot', agent: 'ci-bot', tool: 'deploy', args });
    await h.stores.interactions.resolve(i.id, { status: 'approved', by: 'operator:ada', via: 'api' }, h.clock.now());
    await h.executor.handle(parked.id);
    const run = (await h.stores.runs.get(parked.id))!;
    expect(run).toMatchObject({ status: 'succeeded', result: { deployed: args } });
    expect(deploy.calls).toHaveLength(1);
    await h.executor.handle(parked.id);
    expect(deploy.calls).toHaveLength(1);
  });

  it('arguments that no longer match the SHA-256 the door kept are refused (held), the tool never called', async () => {
    const { h, deploy } = await setup();
    const payload: AgentCallPayload = {
      agent_id: (await h.stores.agents.get('ci-bot'))!.id,
      tool: 'deploy',
      arguments: args,
      args_sha256: argsHash({ other: 1 }),
      tools_allow: null,
      idempotency_key: 'k2',
      via: 'http',
    };
    const kept = await h.stores.runs.keepAgentCall({ agent: 'ci-bot', call: payload, now: h.clock.now(), dispatchGraceMs: 5000, keyTtlMs: 60_000 });
    await h.executor.handle(kept.id);
    const run = (await h.stores.runs.get(kept.id))!;
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ kind: 'bad_input' });
    expect(run.error!.message).toMatch(/arguments no longer match the SHA-256 kept with the call/);
    expect(deploy.calls).toHaveLength(0);
  });

  it("approver caller reaches an agent call's approval; a hook's run parked by the same rule keeps no approver (it has no caller)", async () => {
    const rules: ApprovalRule[] = [{ name: 'deploys', tools: ['deploy'], action: 'approve', approver: 'caller' }];
    const { h, call } = await setup({ rules });
    const parked = await call('deploy', args);
    expect(await h.stores.interactions.get(parked.interaction!)).toMatchObject({ kind: 'approval', status: 'open', approver: 'caller' });
    await h.stores.hooks.putHook(hook({ name: 'ship', topic: 'github', tool: 'deploy', tool_kwargs: args }));
    const [id] = await h.keep('github', {});
    await h.executor.handle(id!);
    const run = (await h.stores.runs.get(id!))!;
    expect(run.status).toBe('parked');
    expect(await h.stores.interactions.get(run.interaction!)).toMatchObject({ kind: 'approval', status: 'open', approver: null });
  });

  it('an agent revoked after its call was kept: the run is denied saying so, and the tool is never called', async () => {
    const { h, deploy } = await setup();
    const agentId = (await h.stores.agents.get('ci-bot'))!.id;
    const payload: AgentCallPayload = {
      agent_id: agentId,
      tool: 'deploy',
      arguments: args,
      args_sha256: argsHash(args),
      tools_allow: null,
      idempotency_key: 'k1',
      via: 'http',
    };
    const kept = await h.stores.runs.keepAgentCall({ agent: 'ci-bot', call: payload, now: h.clock.now(), dispatchGraceMs: 5000, keyTtlMs: 60_000 });
    await h.stores.agents.remove('ci-bot');
    await h.executor.handle(kept.id);
    expect(await h.stores.runs.get(kept.id)).toMatchObject({
      status: 'denied',
      result: { message: "agent revoked: agent 'ci-bot' was revoked before this call ran, so tool 'deploy' was not called" },
    });
    expect(deploy.calls).toHaveLength(0);
  });

  it("an agent revoked and made again under its name: the first one's kept call is denied (agent revoked), never run as the new agent's", async () => {
    const { h, deploy } = await setup();
    const first = (await h.stores.agents.get('ci-bot'))!;
    const payload: AgentCallPayload = {
      agent_id: first.id,
      tool: 'deploy',
      arguments: args,
      args_sha256: argsHash(args),
      tools_allow: null,
      idempotency_key: 'k1',
      via: 'http',
    };
    const kept = await h.stores.runs.keepAgentCall({ agent: 'ci-bot', call: payload, now: h.clock.now(), dispatchGraceMs: 5000, keyTtlMs: 60_000 });
    await h.stores.agents.remove('ci-bot');
    await h.stores.agents.create({ name: 'ci-bot', description: null, tools_allow: ['*'], tokenHash: agentTokenHash('hya_again') }, h.clock.now());
    await h.executor.handle(kept.id);
    const run = (await h.stores.runs.get(kept.id))!;
    expect(run).toMatchObject({ status: 'denied', result: { message: expect.stringMatching(/^agent revoked: agent 'ci-bot' was revoked/) } });
    expect(run.history.map((l) => l.event)).toContain('agent');
    expect(deploy.calls).toHaveLength(0);
  });
});
