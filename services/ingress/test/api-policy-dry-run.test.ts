import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { AGENT_CALL_TOPIC, agentHookName, type ApprovalRule } from '@hookyard/core';
import { evaluateRules, stricter, type ApprovalDecision, type PolicyCall } from '@hookyard/tools';
import { hook, startHarness, type Harness } from './support/harness';

/**
 * `POST /api/approval-policy/dry-run`: what the policy (candidate rules or the
 * kept ones) decides about one call, a hook's run or an agent's, compared with
 * the executor's evaluation (deployment rules first, made stricter by the
 * hook's own) over the real jq engine; bad input, roles; nothing is kept.
 */
describe('approval policy dry run API', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  let agentToken: string;
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ jq });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'admin', json: hook('deploys', 'ci') })).status).toBe(201);
    const strict = hook('strict', 'ci', { approval: [{ name: 'hook says ask', tools: ['echo'], action: 'approve', timeout_seconds: 60 }] });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'admin', json: strict })).status).toBe(201);
    const agent = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'ci-bot', tools_allow: ['*'] } });
    expect(agent.status).toBe(201);
    agentToken = agent.body.token;
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  const dry = (json: unknown, role: 'reader' | 'operator' | 'admin' = 'operator') => h.call('/api/approval-policy/dry-run', { method: 'POST', role, json });

  const RULES: ApprovalRule[] = [
    { name: 'bots never print', tools: ['print'], agents: ['*'], action: 'deny', message: 'agents may not print' },
    { name: 'ci-bot asks', tools: ['echo'], agents: ['ci-bot'], when: '.args.env == "prod"', action: 'approve', approver: 'caller', timeout_seconds: 90 },
    { tools: ['echo'], when: '.args.env == "prod" and .topic == "ci"', action: 'approve', answer_hooks: ['deploys'], on_timeout: 'allow' },
    { name: 'boom', tools: ['echo'], when: 'if .args.boom then error("kaboom") else false end', action: 'allow' },
    { tools: ['*', '!echo', '!print'], action: 'deny' },
  ];

  /** What the executor decides: the deployment's rules, then (unless denied) the hook's own, the stricter winning. */
  async function executorDecision(rules: ApprovalRule[], call: PolicyCall, hookRules: ApprovalRule[], version: number): Promise<ApprovalDecision> {
    const defaults = { timeoutSeconds: h.settings.approvalTimeoutMs / 1000 };
    const d = await evaluateRules(rules, call, 'deployment', version, jq, h.settings.jqTimeoutMs, defaults);
    if (d.action === 'deny' || hookRules.length === 0) return d;
    return stricter(d, await evaluateRules(hookRules, call, 'hook', version, jq, h.settings.jqTimeoutMs, defaults));
  }

  it('decides each call as the executor would, naming the rule that matched and what would happen', async () => {
    const version = (await h.call('/api/approval-policy', { role: 'reader' })).body.version as number;
    const hookCall = (name: string, tool: string, args: Record<string, unknown>): PolicyCall => ({
      tool,
      args,
      hook: name,
      topic: 'ci',
      subject: null,
      agent: null,
    });
    const agentCall = (tool: string, args: Record<string, unknown>): PolicyCall => ({
      tool,
      args,
      hook: agentHookName('ci-bot'),
      topic: AGENT_CALL_TOPIC,
      subject: null,
      agent: 'ci-bot',
    });
    const cases: Array<{ call: Record<string, unknown>; expected: PolicyCall; hookRules: ApprovalRule[]; action: string; rule: string | null }> = [
      // A hook's run: agent rules never match it; the third rule asks, with its answer hook.
      {
        call: { hook: 'deploys', args: { env: 'prod' } },
        expected: hookCall('deploys', 'echo', { env: 'prod' }),
        hookRules: [],
        action: 'approve',
        rule: 'deployment rule 3',
      },
      { call: { hook: 'deploys', args: { env: 'dev' } }, expected: hookCall('deploys', 'echo', { env: 'dev' }), hookRules: [], action: 'allow', rule: null },
      { call: { hook: 'deploys', tool: 'print', args: {} }, expected: hookCall('deploys', 'print', {}), hookRules: [], action: 'allow', rule: null },
      {
        call: { hook: 'deploys', tool: 'other', args: {} },
        expected: hookCall('deploys', 'other', {}),
        hookRules: [],
        action: 'deny',
        rule: 'deployment rule 5',
      },
      // The hook's own rule makes an allowed call ask.
      {
        call: { hook: 'strict', args: { env: 'dev' } },
        expected: hookCall('strict', 'echo', { env: 'dev' }),
        hookRules: [{ name: 'hook says ask', tools: ['echo'], action: 'approve', timeout_seconds: 60 }],
        action: 'approve',
        rule: 'hook says ask',
      },
      // An agent's call: the agent rules apply.
      { call: { agent: 'ci-bot', tool: 'print', args: {} }, expected: agentCall('print', {}), hookRules: [], action: 'deny', rule: 'bots never print' },
      {
        call: { agent: 'ci-bot', tool: 'echo', args: { env: 'prod' } },
        expected: agentCall('echo', { env: 'prod' }),
        hookRules: [],
        action: 'approve',
        rule: 'ci-bot asks',
      },
      {
        call: { agent: 'other-bot', tool: 'print' },
        expected: { ...agentCall('print', {}), hook: agentHookName('other-bot'), agent: 'other-bot' },
        hookRules: [],
        action: 'deny',
        rule: 'bots never print',
      },
      // A `when` that fails denies (fail closed), naming the rule.
      {
        call: { agent: 'ci-bot', tool: 'echo', args: { boom: true } },
        expected: agentCall('echo', { boom: true }),
        hookRules: [],
        action: 'deny',
        rule: 'boom',
      },
    ];
    for (const c of cases) {
      const r = await dry({ rules: RULES, call: c.call });
      expect({ call: c.call, status: r.status }).toEqual({ call: c.call, status: 200 });
      const want = await executorDecision(RULES, c.expected, c.hookRules, version);
      expect({ call: c.call, decision: r.body.decision }).toEqual({ call: c.call, decision: want });
      expect({ call: c.call, action: r.body.decision.action, rule: r.body.decision.rule }).toEqual({ call: c.call, action: c.action, rule: c.rule });
      expect(r.body.call).toEqual(c.expected);
      expect(r.body.rules_from).toBe('body');
      expect(r.body.hook_rules).toBe(c.hookRules.length);
      expect(r.body.outcome).toBe(c.action === 'approve' ? 'approval' : c.action);
    }
    // What would happen, said in a sentence: who may answer, for how long.
    const asks = (await dry({ rules: RULES, call: { hook: 'deploys', args: { env: 'prod' } } })).body;
    expect(asks.summary).toBe(
      'approval needed by deployment rule 3 (deployment rules): the run would park until an operator (console, API or CLI), a signed approval link, ' +
        'the answer hook(s) deploys answers, for at most 3600 s (then allowed)',
    );
    const agentAsks = (await dry({ rules: RULES, call: { agent: 'ci-bot', tool: 'echo', args: { env: 'prod' } } })).body;
    expect(agentAsks.summary).toContain("the agent's own user (MCP elicitation)");
    expect(agentAsks.decision).toMatchObject({ timeout_seconds: 90, approver: 'caller', on_timeout: 'deny' });
    const denied = (await dry({ rules: RULES, call: { agent: 'ci-bot', tool: 'print' } })).body;
    expect(denied.summary).toBe(
      'denied by bots never print (deployment rules): the tool would not be called; the run\'s result would say "agents may not print"',
    );
    const boom = (await dry({ rules: RULES, call: { agent: 'ci-bot', tool: 'echo', args: { boom: true } } })).body;
    expect(boom.decision.error.message).toContain('kaboom');
  });

  it('without rules it reads the kept policy; a dry run never changes it', async () => {
    const kept = await h.call('/api/approval-policy', {
      method: 'PUT',
      role: 'admin',
      json: { rules: [{ name: 'kept deny', tools: ['echo'], action: 'deny' }] },
    });
    expect(kept.status).toBe(200);
    const r = await dry({ call: { hook: 'deploys' } });
    expect(r.body).toMatchObject({ outcome: 'deny', rules_from: 'kept', decision: { rule: 'kept deny', policy_version: kept.body.version } });
    // Candidate rules answer for themselves and are not saved.
    const candidate = await dry({ rules: [], call: { hook: 'deploys' } }, 'admin');
    expect(candidate.body).toMatchObject({
      outcome: 'allow',
      rules_from: 'body',
      summary: 'no rule matched: the call is allowed and the tool would be called',
    });
    expect((await h.call('/api/approval-policy', { role: 'reader' })).body).toEqual(kept.body);
    await h.call('/api/approval-policy', { method: 'PUT', role: 'admin', json: { rules: [] } });
  });

  it('refuses a bad policy or call with a 400 naming each field and quoting what it got', async () => {
    const bad = await dry({
      rules: [
        { tools: ['echo'], when: '.args | (', action: 'deny' },
        { tools: ['*'], action: 'ask' },
      ],
      call: { hook: 'deploys' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.kind).toBe('bad_input');
    expect(bad.body.error.message).toBe('policy dry run refused');
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([expect.stringMatching(/^rules\[0\]\.when does not compile: /), expect.stringMatching(/^rules\[1\]\.action /)]),
    );
    const lines = async (json: unknown) => {
      const r = await dry(json);
      expect(r.status).toBe(400);
      return r.body.error.details as string[];
    };
    expect(await lines({ call: 'deploys' })).toEqual(['call must be an object {hook | agent, tool, args?, subject?}, got "deploys"']);
    expect(await lines({ rules: {}, call: { hook: 'deploys' }, version: 3 })).toEqual([
      "unknown field 'version'",
      'rules must be an array of rules {tools, when?, action, ...}',
    ]);
    expect(await lines({ call: { tool: 'echo' } })).toEqual(["call.hook or call.agent is required: the call is a hook's run or an agent's call"]);
    expect(await lines({ call: { hook: 'deploys', agent: 'ci-bot' } })).toEqual([
      "call.hook and call.agent cannot both be set: a call is either a hook's run or an agent's call",
    ]);
    expect(await lines({ call: { hook: 'nope' } })).toEqual([
      'call.hook "nope" is not a registered hook',
      "call.tool is required (for a hook's run it defaults to the hook's tool)",
    ]);
    expect(await lines({ call: { agent: 'Bad Name', tool: 'echo', args: [1], colour: 'red' } })).toEqual([
      "unknown field 'call.colour'",
      'call.agent "Bad Name" must match ^[a-z0-9][a-z0-9_-]*$',
      "call.args must be an object (the tool's arguments), got [1]",
    ]);
    expect(await lines({ call: { agent: 'ci-bot', tool: 'echo', subject: { scope: 'a', kind: 'b', key: 'c' } } })).toEqual([
      "call.subject is for a hook's run only: an agent's call has no subject",
    ]);
    expect(await lines({ call: { hook: 'deploys', tool: 'Echo!', subject: { scope: 1 } } })).toEqual([
      'call.tool "Echo!" must be a tool name (^[a-z0-9][a-z0-9_-]*$, at most 64 characters)',
      'call.subject must be {scope, kind, key} (strings) or null, got {"scope":1}',
    ]);
    // A hook's subject is what its rules' `when` read as .subject.
    const subject = { scope: 'repo', kind: 'pr', key: 'web#1' };
    const r = await dry({ rules: [{ tools: ['*'], when: '.subject.key == "web#1"', action: 'deny' }], call: { hook: 'deploys', subject } });
    expect(r.body).toMatchObject({ outcome: 'deny', call: { subject } });
  });

  it('needs the operator role; an agent token is refused', async () => {
    const body = { call: { hook: 'deploys' } };
    expect((await dry(body, 'reader')).status).toBe(403);
    expect((await dry(body, 'operator')).status).toBe(200);
    expect((await dry(body, 'admin')).status).toBe(200);
    expect((await h.call('/api/approval-policy/dry-run', { method: 'POST', json: body })).status).toBe(401);
    const agent = await h.call('/api/approval-policy/dry-run', { method: 'POST', json: body, headers: { authorization: `Bearer ${agentToken}` } });
    expect(agent.status).toBe(403);
  });
});
