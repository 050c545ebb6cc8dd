/**
 * MCP tools/call end to end: the SDK's client -> /mcp -> a kept run (door
 * `agent`) -> an executor in the same process -> the outcome as an MCP
 * result. Allowed, denied, and approved after a park (answered by an
 * operator, fetched by repeating the call with the same key); the tool is
 * called exactly once throughout.
 */
import { AGENT_DENY_ADVICE, agentHookName, type ApprovalRule } from '@hookyard/core';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const RULES: ApprovalRule[] = [
  { name: 'no drops', tools: ['drop_db'], action: 'deny', message: 'dropping databases is not allowed' },
  { name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy' },
];

type TextResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };

describe('/mcp tools/call through an embedded executor', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  const tools = () => ({
    echo: countedTool('echo', (a) => ({ echoed: a })),
    deploy: countedTool('deploy', (a) => ({ deployed: a })),
    drop: countedTool('drop_db'),
  });

  it('allowed: the result comes back as text and structuredContent, from a run kept with door agent; the tool is called once', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const r = (await client.callTool({ name: 'echo', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'k-echo-1' } })) as TextResult;
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ echoed: { n: 1 } });
    expect(JSON.parse(r.content[0]!.text)).toEqual({ echoed: { n: 1 } });
    const id = r._meta!['hookyard/run'] as string;
    expect(r._meta).toMatchObject({ 'hookyard/status': 'succeeded', 'hookyard/idempotency_key': 'k-echo-1' });
    const run = await w.stores.runs.get(id);
    expect(run).toMatchObject({ door: 'agent', hook: agentHookName('ci-bot'), status: 'succeeded', payload: { tool: 'echo', via: 'mcp' } });
    // The same key again: the same run's outcome, the tool not called again.
    const again = (await client.callTool({ name: 'echo', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'k-echo-1' } })) as TextResult;
    expect(again._meta!['hookyard/run']).toBe(id);
    expect(t.echo.calls).toHaveLength(1);
  });

  it('denied: an isError result carrying the rule message and the advice, never a protocol error; the tool is not called', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const r = (await client.callTool({ name: 'drop_db', arguments: {} })) as TextResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toBe(`dropping databases is not allowed. ${AGENT_DENY_ADVICE.charAt(0).toUpperCase()}${AGENT_DENY_ADVICE.slice(1)}.`);
    expect(t.drop.calls).toHaveLength(0);
  });

  it('approve: progress names the approval, the answer says it awaits approval; once approved the same call and key return the result, the tool called once', async () => {
    const t = tools();
    // A client with a progressToken (onprogress) is kept waiting through the approval up to HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS: 0 here, so the plain wait.
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 300, agentProgressMaxWaitMs: 0 } });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const progress: string[] = [];
    const call = { name: 'deploy', arguments: { n: 7 }, _meta: { 'hookyard/idempotency_key': 'deploy-7' } };
    const parked = (await client.callTool(call, undefined, { onprogress: (p) => void progress.push(p.message ?? '') })) as TextResult;
    expect(parked.isError).toBeUndefined();
    const runId = parked._meta!['hookyard/run'] as string;
    const approval = parked._meta!['hookyard/interaction'] as string;
    expect(parked._meta).toMatchObject({ 'hookyard/status': 'parked', 'hookyard/idempotency_key': 'deploy-7' });
    const text = parked.content[0]!.text;
    expect(text).toContain(`awaits approval ${approval}`);
    expect(text).toContain(`run ${runId}`);
    // What a model can do: the same call again (it controls only the arguments), never "the same key".
    expect(text).toContain('make the same call again (same tool, same arguments) to get its outcome');
    expect(text).not.toContain('idempotency key');
    expect(progress.some((m) => m.includes(`approval ${approval} (rule 'deploys need a person')`))).toBe(true);
    expect(t.deploy.calls).toHaveLength(0);

    // An operator approves (the API publishes the woken run); the executor runs it.
    const answered = await fetch(`${w.url}/api/interactions/${approval}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    await until(async () => (await w.stores.runs.get(runId))?.status === 'succeeded', 15_000, 'the approved run');
    const done = (await client.callTool(call)) as TextResult;
    expect(done._meta!['hookyard/run']).toBe(runId);
    expect(done.structuredContent).toEqual({ deployed: { n: 7 } });
    expect(t.deploy.calls).toHaveLength(1);
  });

  it('a client that gives up mid-wait (request cancelled) loses nothing: the run is kept, and the same key later gets the one outcome', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 30_000 } });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const call = { name: 'deploy', arguments: { n: 9 }, _meta: { 'hookyard/idempotency_key': 'deploy-9' } };
    const giveUp = new AbortController();
    const waiting = client.callTool(call, undefined, { signal: giveUp.signal });
    const kept = async () => (await w.stores.runs.list({ hook: agentHookName('ci-bot') }, 10)).runs[0];
    await until(async () => (await kept())?.status === 'parked', 15_000, 'the parked run');
    giveUp.abort();
    await expect(waiting).rejects.toThrow();
    const run = (await kept())!;
    const answered = await fetch(`${w.url}/api/interactions/${run.interaction!}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    await until(async () => (await w.stores.runs.get(run.id))?.status === 'succeeded', 15_000, 'the approved run');
    const done = (await client.callTool(call)) as TextResult;
    expect(done._meta!['hookyard/run']).toBe(run.id);
    expect(done.structuredContent).toEqual({ deployed: { n: 9 } });
    expect((await w.stores.runs.list({ hook: agentHookName('ci-bot') }, 10)).runs).toHaveLength(1);
    expect(t.deploy.calls).toHaveLength(1);
  });

  it('a call still parked past the wait, repeated with its key, attaches to the same run: one approval, no second run', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 100 } });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const first = (await client.callTool({ name: 'deploy', arguments: {} })) as TextResult;
    // No key given: the door made one up and says which.
    const key = first._meta!['hookyard/idempotency_key'] as string;
    expect(key).toMatch(/^hy-/);
    const second = (await client.callTool({ name: 'deploy', arguments: {}, _meta: { 'hookyard/idempotency_key': key } })) as TextResult;
    expect(second._meta!['hookyard/run']).toBe(first._meta!['hookyard/run']);
    expect(second._meta!['hookyard/interaction']).toBe(first._meta!['hookyard/interaction']);
    expect((await w.stores.runs.list({ hook: agentHookName('ci-bot') }, 10)).runs).toHaveLength(1);
    expect((await w.stores.interactions.list({}, 10)).interactions).toHaveLength(1);
    expect(t.deploy.calls).toHaveLength(0);
  });
});
