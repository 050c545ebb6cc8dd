import fc from 'fast-check';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS, DEFAULT_DENY_MESSAGE, type ApprovalPolicy, type ApprovalRule } from '@hookyard/core';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { ApprovalRepo, PolicyRefusal } from '../src/approval/approval-repo';
import { evaluateRules, stricter, type PolicyCall } from '../src/approval/evaluate';
import { validateApprovalRules } from '../src/approval/rules';
import { echoTool } from '../src/local/echo';
import { LocalRepo } from '../src/local/local-repo';
import { printTool } from '../src/local/print';
import type { ToolRepo } from '../src/types';
import { testContext } from './support/context';

let jq: HookyardJqEngine;
beforeAll(async () => {
  jq = await createJqEngine({ timeoutMs: 2000, workers: 1 });
});
afterAll(async () => {
  await jq.close();
});

const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({
  tool: 'deploy',
  args: { env: 'prod', service: 'api' },
  hook: 'pr-merged',
  topic: 'github',
  subject: { scope: 'repo', kind: 'pr', key: 'acme/api#7' },
  ...over,
});
const evaluate = (rules: ApprovalRule[], c = call(), source: 'deployment' | 'hook' = 'deployment') => evaluateRules(rules, c, source, 3, jq, 2000);

describe('evaluateRules: first match wins, no match allows, an error denies', () => {
  it('no rules allows, naming no rule', async () => {
    expect(await evaluate([])).toEqual({ action: 'allow', rule: null, source: null, policy_version: 3, message: '' });
  });

  it('the first matching rule decides, whatever comes after', async () => {
    const rules: ApprovalRule[] = [
      { tools: ['echo'], action: 'deny' },
      {
        name: 'prod deploys',
        tools: ['deploy'],
        when: '.args.env == "prod"',
        action: 'approve',
        timeout_seconds: 600,
        answer_hooks: ['slack-answers'],
        approver: 'caller',
      },
      { tools: ['*'], action: 'deny' },
    ];
    expect(await evaluate(rules)).toEqual({
      action: 'approve',
      rule: 'prod deploys',
      source: 'deployment',
      policy_version: 3,
      message: '',
      timeout_seconds: 600,
      on_timeout: 'deny',
      answer_hooks: ['slack-answers'],
      approver: 'caller',
    });
    // The when does not match staging: the catch-all after it decides.
    const staging = await evaluate(rules, call({ args: { env: 'staging' } }));
    expect([staging.action, staging.rule, staging.message]).toEqual(['deny', 'deployment rule 3', DEFAULT_DENY_MESSAGE]);
    // Nothing covers print: allowed.
    expect((await evaluate(rules.slice(0, 2), call({ tool: 'print' }))).action).toBe('allow');
  });

  it('tools use the allowlist grammar: *, names, !name', async () => {
    const rules: ApprovalRule[] = [{ tools: ['*', '!echo'], action: 'deny', message: 'no' }];
    expect((await evaluate(rules, call({ tool: 'echo' }))).action).toBe('allow');
    expect(await evaluate(rules, call({ tool: 'local_shell' }))).toMatchObject({ action: 'deny', message: 'no' });
  });

  it('when reads tool, args, hook, topic and subject; false, null and no output do not match', async () => {
    const on = (when: string) => evaluate([{ tools: ['*'], when, action: 'deny' }]).then((d) => d.action);
    expect(await on('.tool == "deploy" and .hook == "pr-merged" and .topic == "github"')).toBe('deny');
    expect(await on('.subject.key | startswith("acme/")')).toBe('deny');
    expect(await on('.args.service == "web"')).toBe('allow');
    expect(await on('null')).toBe('allow');
    expect(await on('empty')).toBe('allow');
    expect(await on('.args.env')).toBe('deny'); // a string is truthy
    expect(await evaluate([{ tools: ['*'], when: '.subject == null', action: 'deny' }], call({ subject: null }))).toMatchObject({ action: 'deny' });
  });

  it('a when that raises denies (fail closed), naming the rule and quoting the error', async () => {
    const d = await evaluate([
      { tools: ['*'], when: '.args.env | error("boom \\(.)")', action: 'allow' },
      { tools: ['*'], action: 'allow' },
    ]);
    expect(d.action).toBe('deny');
    expect(d.rule).toBe('deployment rule 1');
    expect(d.error).toEqual({ kind: 'bad_input', message: expect.stringContaining('boom prod') });
    expect(d.message).toContain(DEFAULT_DENY_MESSAGE);
    expect(d.message).toContain("deployment rule 1 'when' failed");
  });

  it('a runaway when is stopped by the time bound and denies', async () => {
    const d = await evaluateRules([{ tools: ['*'], when: '[range(1e12)] | length > 0', action: 'allow' }], call(), 'hook', 1, jq, 200);
    expect(d).toMatchObject({ action: 'deny', rule: 'hook rule 1', source: 'hook' });
  });

  it('approve fills in the defaults: one hour, deny on expiry, no answer hooks', async () => {
    expect(await evaluate([{ tools: ['deploy'], action: 'approve', message: 'ship it?' }])).toEqual({
      action: 'approve',
      rule: 'deployment rule 1',
      source: 'deployment',
      policy_version: 3,
      message: 'ship it?',
      timeout_seconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      on_timeout: 'deny',
      answer_hooks: [],
    });
  });
});

describe('a hook rule can only make a call stricter', () => {
  const d = (action: 'allow' | 'approve' | 'deny', source: 'deployment' | 'hook', extra = {}) => ({
    action,
    rule: `${source} r`,
    source,
    policy_version: 5,
    message: source,
    ...extra,
  });

  it.each([
    ['allow', 'approve', 'approve', 'hook'],
    ['allow', 'deny', 'deny', 'hook'],
    ['approve', 'deny', 'deny', 'hook'],
    ['approve', 'allow', 'approve', 'deployment'],
    ['deny', 'allow', 'deny', 'deployment'],
    ['deny', 'approve', 'deny', 'deployment'],
    ['approve', 'approve', 'approve', 'deployment'],
  ] as const)('deployment %s + hook %s = %s (from the %s rules)', (dep, hook, action, source) => {
    const out = stricter(d(dep, 'deployment'), d(hook, 'hook'));
    expect([out.action, out.source, out.policy_version]).toEqual([action, source, 5]);
  });

  it('a tie on approve keeps the deployment timeout, expiry action and answer hooks', () => {
    const dep = d('approve', 'deployment', { timeout_seconds: 60, on_timeout: 'deny', answer_hooks: ['a'] });
    const hook = d('approve', 'hook', { timeout_seconds: 86400, on_timeout: 'allow', answer_hooks: ['a', 'b'] });
    expect(stricter(dep, hook)).toBe(dep);
  });

  it('for any rules, the combined decision is never looser than the deployment alone (property)', async () => {
    const rank = { allow: 0, approve: 1, deny: 2 } as const;
    const rule = fc.record({
      tools: fc.constantFrom(['*'], ['deploy'], ['!deploy'], ['echo']),
      action: fc.constantFrom('allow' as const, 'approve' as const, 'deny' as const),
      when: fc.option(fc.constantFrom('.args.env == "prod"', '.args.env == "dev"', 'true', '.nope.x | error'), { nil: undefined }),
    });
    const policies = { version: 1, rules: [] as ApprovalRule[], updated_at: null };
    const gate = new ApprovalRepo(new LocalRepo([echoTool]), { policies: { getApprovalPolicy: async () => policies }, jq, jqTimeoutMs: 2000 });
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 3 }), fc.array(rule, { maxLength: 3 }), async (deployment, hook) => {
        const clean = (rs: typeof deployment): ApprovalRule[] =>
          rs.map(({ tools, action, when }) => ({ tools: [...tools], action, ...(when !== undefined ? { when } : {}) }));
        policies.rules = clean(deployment);
        const alone = await gate.decide(call());
        const both = await gate.decide(call(), clean(hook));
        expect(rank[both.action]).toBeGreaterThanOrEqual(rank[alone.action]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('validateApprovalRules: one line per bad rule', () => {
  it('accepts a good list and the empty list', async () => {
    expect(await validateApprovalRules([], 'rules', jq)).toEqual([]);
    expect(
      await validateApprovalRules(
        [
          {
            name: 'prod deploys',
            tools: ['deploy', '!deploy_dry'],
            when: '.args.env == "prod"',
            action: 'approve',
            message: 'ok?',
            timeout_seconds: 900,
            on_timeout: 'allow',
            answer_hooks: ['slack-answers'],
            approver: 'caller',
          },
          { tools: ['*'], action: 'deny', message: 'never' },
          { tools: ['echo'], action: 'allow' },
        ],
        'rules',
        jq,
      ),
    ).toEqual([]);
  });

  it('names every miss: allowlist, jq, action, approve-only fields, unknown fields, shapes', async () => {
    const lines = await validateApprovalRules(
      [
        { tools: ['de ploy'], action: 'deny' },
        { tools: ['*'], when: '.args | ', action: 'deny' },
        { tools: ['*'], action: 'maybe' },
        { tools: ['*'], action: 'deny', timeout_seconds: 60, answer_hooks: ['x'] },
        { tools: [], action: 'allow', colour: 'red' },
        { tools: ['*'], action: 'approve', timeout_seconds: 0, on_timeout: 'retry', answer_hooks: ['Bad Hook'] },
        'not a rule',
        { tools: ['*'], agents: [], action: 'deny' },
        { tools: ['*'], agents: ['ci-bot', 'bad bot'], action: 'deny' },
        { tools: ['*'], action: 'approve', approver: 'operator' },
        { tools: ['*'], action: 'allow', approver: 'caller' },
      ],
      'rules',
      jq,
    );
    expect(lines).toEqual([
      'rules[0].tools[0] "de ploy" must be *, a tool name or !name',
      expect.stringMatching(/^rules\[1\]\.when does not compile: /),
      '    .args |',
      '           ^',
      'rules[2].action "maybe" must be one of allow, approve, deny',
      'rules[3].timeout_seconds applies only to action approve (the rule\'s action is "deny")',
      'rules[3].answer_hooks applies only to action approve (the rule\'s action is "deny")',
      "rules[4] has unknown field 'colour'",
      'rules[4].tools must be a non-empty allowlist (*, tool names, !name)',
      'rules[5].timeout_seconds 0 must be an integer from 1 to 2592000',
      'rules[5].on_timeout "retry" must be one of deny, allow',
      'rules[5].answer_hooks[0] "Bad Hook" must match ^[a-z0-9][a-z0-9_-]*$',
      'rules[6] must be an object {tools, when?, action, ...}',
      'rules[7].agents must be a non-empty allowlist of agent names (*, names, !name)',
      'rules[8].agents[1] "bad bot" must be *, an agent name or !name',
      'rules[9].approver "operator" must be "caller" (the agent\'s own user answers through MCP elicitation) or left out',
      'rules[10].approver applies only to action approve (the rule\'s action is "allow")',
    ]);
    expect(await validateApprovalRules({ tools: ['*'] }, 'approval', jq)).toEqual(['approval must be an array of rules {tools, when?, action, ...}']);
  });
});

describe('ApprovalRepo: every provider behind one gate', () => {
  let policy: ApprovalPolicy;
  let calls: string[];
  let gate: ApprovalRepo;
  beforeEach(() => {
    policy = { version: 1, rules: [], updated_at: null };
    calls = [];
    const inner: ToolRepo = new LocalRepo([echoTool, printTool]);
    const counting: ToolRepo = {
      exec: async (name, args, ctx) => {
        calls.push(name);
        return inner.exec(name, args, ctx);
      },
      names: () => inner.names(),
      schema: (n) => inner.schema(n),
      tools: (n) => inner.tools(n),
    };
    gate = new ApprovalRepo(counting, { policies: { getApprovalPolicy: async () => policy }, jq, jqTimeoutMs: 2000 });
  });

  it('a call without a decision is decided on the deployment policy: deny is a PolicyRefusal, the tool not called', async () => {
    policy = { version: 2, rules: [{ tools: ['echo'], when: '.topic == "open"', action: 'deny', message: 'not from an open topic' }], updated_at: 'x' };
    const err = await gate.exec('echo', { a: 1 }, testContext({ topic: 'open' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PolicyRefusal);
    expect(err).toMatchObject({ kind: 'forbidden', message: 'not from an open topic', decision: { action: 'deny', policy_version: 2 } });
    expect(calls).toEqual([]);
    expect(await gate.exec('echo', { a: 1 }, testContext({ topic: 'github' }))).toEqual({ a: 1 });
    expect(calls).toEqual(['echo']);
  });

  it('an approve without an approval is refused too', async () => {
    policy = { version: 1, rules: [{ tools: ['*'], action: 'approve' }], updated_at: 'x' };
    await expect(gate.exec('print', {}, testContext())).rejects.toMatchObject({ kind: 'forbidden', decision: { action: 'approve' } });
    expect(calls).toEqual([]);
  });

  it('an issued allow passes once decided, even if the policy changes before the call', async () => {
    const decision = await gate.decide({ ...call(), tool: 'echo', args: { x: 1 } });
    policy = { version: 2, rules: [{ tools: ['*'], action: 'deny' }], updated_at: 'x' };
    expect(await gate.exec('echo', { x: 1 }, testContext({ approval: decision }))).toEqual({ x: 1 });
    expect(calls).toEqual(['echo']);
  });

  it('a forged decision, or one issued for other arguments or another tool, is decided again', async () => {
    const issued = await gate.decide({ ...call(), tool: 'echo', args: { x: 1 } });
    policy = { version: 2, rules: [{ tools: ['*'], action: 'deny' }], updated_at: 'x' };
    const forged = { ...issued };
    await expect(gate.exec('echo', { x: 1 }, testContext({ approval: forged }))).rejects.toBeInstanceOf(PolicyRefusal);
    await expect(gate.exec('echo', { x: 2 }, testContext({ approval: issued }))).rejects.toBeInstanceOf(PolicyRefusal);
    await expect(gate.exec('print', { x: 1 }, testContext({ approval: issued }))).rejects.toBeInstanceOf(PolicyRefusal);
    expect(calls).toEqual([]);
  });

  it('an issued deny stays a deny', async () => {
    policy = { version: 1, rules: [{ tools: ['echo'], action: 'deny' }], updated_at: 'x' };
    const decision = await gate.decide({ ...call(), tool: 'echo', args: {} });
    await expect(gate.exec('echo', {}, testContext({ approval: decision }))).rejects.toMatchObject({ message: DEFAULT_DENY_MESSAGE });
    expect(calls).toEqual([]);
  });

  it('names, schemas and tools pass through', async () => {
    expect((await gate.names()).sort()).toEqual(['echo', 'print']);
    expect(await gate.schema('echo')).toBeDefined();
    expect((await gate.tools('print')).map((t) => t.name)).toEqual(['print']);
  });
});
