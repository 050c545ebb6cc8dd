/**
 * MCP tasks at /mcp with a tasks-capable SDK client: tools/call with
 * params.task answers a task handle once the call is kept (task id = run
 * id); tasks/get reports `working` naming the approval while it is parked,
 * then `completed` or `failed`; tasks/result gives the outcome; tasks/cancel
 * cancels the approval; a task is read from the run, so a new session of the
 * same agent finds it and another agent does not.
 */
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AGENT_DENY_ADVICE, type ApprovalRule } from '@hookyard/core';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const RULES: ApprovalRule[] = [
  { name: 'no drops', tools: ['drop_db'], action: 'deny', message: 'dropping databases is not allowed' },
  { name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy' },
];

async function callAsTask(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return r.task;
}

describe('/mcp tasks over kept runs', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  const setup = async () => {
    const deploy = countedTool('deploy', (a) => ({ deployed: a }));
    const drop = countedTool('drop_db');
    w = await startMcpWorld({ tools: [deploy, drop], executor: true, rules: RULES });
    const token = await w.agent('ci-bot', ['*']);
    const { client } = await w.client(token, { tasks: true });
    return { deploy, drop, token, client };
  };

  it('a gated call: a task handle at once, working with the approval named, completed with the result once approved; the tool called once', async () => {
    const { deploy, client } = await setup();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const task = await callAsTask(client, 'deploy', { n: 1 });
    expect(task).toMatchObject({ status: 'working', ttl: null });
    const run = await w.stores.runs.get(task.taskId);
    expect(run).toMatchObject({ door: 'agent', hook: 'agent:ci-bot' });
    await until(async () => (await w.stores.runs.get(task.taskId))?.status === 'parked', 15_000, 'the park');
    const parked = await client.experimental.tasks.getTask(task.taskId);
    const approval = (await w.stores.runs.get(task.taskId))!.interaction!;
    expect(parked.status).toBe('working');
    expect(parked.statusMessage).toContain(`approval ${approval} (rule 'deploys need a person')`);

    const answered = await fetch(`${w.url}/api/interactions/${approval}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    // tasks/result blocks until the task ends, then answers the tool's result.
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ deployed: { n: 1 } });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    expect(deploy.calls).toHaveLength(1);
  });

  it("a denied call's task fails with the denial's sentence", async () => {
    const { drop, client } = await setup();
    const task = await callAsTask(client, 'drop_db', {});
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain(`dropping databases is not allowed. ${AGENT_DENY_ADVICE.charAt(0).toUpperCase()}`);
    const got = await client.experimental.tasks.getTask(task.taskId);
    expect(got.status).toBe('failed');
    expect(got.statusMessage).toContain('dropping databases is not allowed');
    expect(drop.calls).toHaveLength(0);
  });

  it('tasks/cancel cancels the approval: the run ends cancelled, answered by the agent, and the tool is never called', async () => {
    const { deploy, client } = await setup();
    const task = await callAsTask(client, 'deploy', { n: 2 });
    await until(async () => (await w.stores.runs.get(task.taskId))?.status === 'parked', 15_000, 'the park');
    const approval = (await w.stores.runs.get(task.taskId))!.interaction!;
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(await w.stores.runs.get(task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(await w.stores.interactions.get(approval)).toMatchObject({ status: 'cancelled', resolution: { by: 'agent:ci-bot', via: 'api' } });
    // An ended task cannot be cancelled again.
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect(deploy.calls).toHaveLength(0);
  });

  it("a task lives in the run: a new session of the same agent finds it, another agent's does not", async () => {
    const { token, client } = await setup();
    const task = await callAsTask(client, 'deploy', { n: 3 });
    await client.close();
    const { client: again } = await w.client(token, { tasks: true });
    expect((await again.experimental.tasks.getTask(task.taskId)).taskId).toBe(task.taskId);
    expect((await again.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    const { client: other } = await w.client(await w.agent('other', ['*']), { tasks: true });
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
  });
});
