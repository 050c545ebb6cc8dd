/**
 * An agent is an id, not its name: calls, idempotency keys, tasks and
 * sessions belong to the immutable id `POST /api/agents` made, so an agent
 * made again under a revoked one's name inherits nothing; a revoke ends the
 * agent's calls waiting on approval as denied ("agent revoked"), and no
 * later approval runs them. Agents and calls kept before ids (Redis written
 * the old way) keep working for their own agent only.
 */
import Redis from 'ioredis';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { agentTokenHash, argsHash, type ApprovalRule } from '@hookyard/core';
import { createRedisStores, type Stores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../../../test/support/services';
import { TOKENS, startHarness, type Harness } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const RULES: ApprovalRule[] = [{ name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy' }];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A request to the running ingress: an admin's or operator's API token, or an agent's bearer token. */
async function api(url: string, path: string, init: { method?: string; json?: unknown; bearer?: string } = {}) {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.bearer ?? TOKENS.admin}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('an agent is an id (running ingress, embedded executor)', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  const makeAgent = async (name: string) => {
    const made = await api(w.url, '/api/agents', { method: 'POST', json: { name, tools_allow: ['*'] } });
    expect(made.status).toBe(201);
    return made.body as { agent: { id: string; name: string }; token: string };
  };

  it("an agent made again under a revoked agent's name sees none of its calls, tasks or idempotency keys: a repeated key makes a new call", async () => {
    const echo = countedTool('echo');
    w = await startMcpWorld({ tools: [echo], executor: true });
    const first = await makeAgent('ci-bot');
    expect(first.agent.id).toMatch(UUID);
    const call = { tool: 'echo', arguments: { n: 1 }, idempotency_key: 'k-1' };
    const old = await api(w.url, '/api/calls', { method: 'POST', json: call, bearer: first.token });
    expect(old.body).toMatchObject({ agent: 'ci-bot', status: 'succeeded' });
    expect((await w.stores.runs.get(old.body.id))?.payload).toMatchObject({ agent_id: first.agent.id });
    const oldClient = (await w.client(first.token, { tasks: true })).client;
    expect((await oldClient.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([old.body.id]);

    expect((await api(w.url, '/api/agents/ci-bot', { method: 'DELETE' })).status).toBe(204);
    const second = await makeAgent('ci-bot');
    expect(second.agent.id).toMatch(UUID);
    expect(second.agent.id).not.toBe(first.agent.id);
    expect((await api(w.url, '/api/agents/ci-bot')).body.id).toBe(second.agent.id);

    // The old call is 404 to the new agent, as another agent's call is.
    const seen = await api(w.url, `/api/calls/${old.body.id}`, { bearer: second.token });
    expect(seen.status).toBe(404);
    expect(seen.body.error.message).toBe(`no call "${old.body.id}" of agent 'ci-bot'`);
    // Its task neither: not listed, not found.
    const { client } = await w.client(second.token, { tasks: true });
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await expect(client.experimental.tasks.getTask(old.body.id)).rejects.toMatchObject({ code: -32602 });
    // The same key is the new agent's own: a new call, the tool called again.
    const again = await api(w.url, '/api/calls', { method: 'POST', json: call, bearer: second.token });
    expect(again.body).toMatchObject({ agent: 'ci-bot', status: 'succeeded' });
    expect(again.body.id).not.toBe(old.body.id);
    expect(echo.calls).toHaveLength(2);
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([again.body.id]);
  });

  it('revoking an agent ends its call parked on approval as denied ("agent revoked"), recorded; the tool is never called, even when an operator approves then', async () => {
    const deploy = countedTool('deploy');
    w = await startMcpWorld({ tools: [deploy], executor: true, rules: RULES });
    const { agent, token } = await makeAgent('ci-bot');
    const { client } = await w.client(token, { tasks: true });
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'deploy', arguments: { n: 1 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    await until(async () => (await w.stores.runs.get(task.taskId))?.status === 'parked', 15_000, 'the park');
    const approval = (await w.stores.runs.get(task.taskId))!.interaction!;

    expect((await api(w.url, '/api/agents/ci-bot', { method: 'DELETE' })).status).toBe(204);
    // The approval is answered by the revoke: denied, with the reason, by the admin who revoked.
    expect(await w.stores.interactions.get(approval)).toMatchObject({
      status: 'denied',
      resolution: { reason: 'agent revoked', via: 'api', by: expect.stringMatching(/^admin:/) },
    });
    await until(async () => (await w.stores.runs.get(task.taskId))?.status === 'denied', 15_000, 'the denial');
    const run = (await w.stores.runs.get(task.taskId))!;
    expect(run.result).toMatchObject({ message: expect.stringMatching(/^agent revoked: agent 'ci-bot' was revoked before this call ran/) });
    expect(run.history.map((l) => l.detail)).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^interaction ${approval} denied by admin:`)), expect.stringMatching(/^agent revoked: /)]),
    );
    // An operator's approval now is refused (it was answered); made again under the name, nothing changes.
    await makeAgent('ci-bot');
    const late = await api(w.url, `/api/interactions/${approval}/approve`, { method: 'POST', json: {} });
    expect(late.status).toBe(409);
    expect((await w.stores.runs.get(task.taskId))?.status).toBe('denied');
    expect(deploy.calls).toHaveLength(0);
    // The audit entry of the revoke names the agent's id and the approvals it ended.
    await until(async () => (await api(w.url, '/api/audit?action=agent.remove')).body.entries.length === 1, 15_000, 'the audit entry');
    const [entry] = (await api(w.url, '/api/audit?action=agent.remove')).body.entries;
    expect(entry).toMatchObject({
      target: 'ci-bot',
      status: 204,
      detail: { agent_id: agent.id, approvals_denied: 1, interactions: [approval], left_open: [] },
    });
  });
});

describe('agents and calls kept before agents had ids (Redis written the old way)', () => {
  let url: string;
  let prefix: string;
  let stores: Stores;
  let h: Harness;
  beforeAll(async () => {
    url = await requireRedis();
    prefix = uniquePrefix('agent-id');
    stores = await createRedisStores({ url, prefix, partitions: 2 });
    h = await startHarness({ stores, deps: { limiter: null } });
  });
  afterAll(async () => {
    await h.close();
    await stores.close();
    await deleteRedisKeys(prefix, url);
  });

  const as = (token: string, path: string, json?: unknown) =>
    h.call(path, { method: json === undefined ? 'GET' : 'POST', ...(json !== undefined ? { json } : {}), headers: { authorization: `Bearer ${token}` } });

  it('the old agent keeps its call and key under its name as id; an agent made again under its name after a revoke sees neither', async () => {
    const token = 'hya_legacy-agent-token-0123456789abcdef0123';
    const at = new Date().toISOString();
    const record = { name: 'old-bot', description: null, tools_allow: ['*'], token_id: agentTokenHash(token).slice(0, 8), created_at: at, updated_at: at };
    const admin = new Redis(url);
    try {
      await admin.hset(`{${prefix}}:agents`, 'old-bot', JSON.stringify({ ...record, token_hash: agentTokenHash(token) }));
      await admin.hset(`{${prefix}}:agent-tokens`, agentTokenHash(token), 'old-bot');
    } finally {
      admin.disconnect();
    }
    // A call as the code before ids kept it: no agent_id, its key under the agent's name.
    const args = { n: 1 };
    const call = { tool: 'echo', arguments: args, args_sha256: argsHash(args), tools_allow: null, idempotency_key: 'k-old', via: 'http' as const };
    const kept = await stores.runs.keepAgentCall({ agent: 'old-bot', call, now: Date.now() + 1, dispatchGraceMs: 60_000, keyTtlMs: 3_600_000 });

    // Its usage counts the call kept under its name.
    expect((await h.call('/api/agents/old-bot', { role: 'admin' })).body).toEqual({ id: 'old-bot', ...record, usage: expect.objectContaining({ calls: 1 }) });
    const seen = await as(token, `/api/calls/${kept.id}`);
    expect(seen.status).toBe(202);
    expect(seen.body).toMatchObject({ id: kept.id, agent: 'old-bot', status: 'pending' });
    const repeated = await as(token, '/api/calls?wait_seconds=0', { tool: 'echo', arguments: args, idempotency_key: 'k-old' });
    expect(repeated.body.id).toBe(kept.id);

    expect((await h.call('/api/agents/old-bot', { method: 'DELETE', role: 'admin' })).status).toBe(204);
    const made = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'old-bot', tools_allow: ['*'] } });
    expect(made.body.agent.id).toMatch(UUID);
    const fresh = made.body.token as string;
    expect((await as(fresh, `/api/calls/${kept.id}`)).status).toBe(404);
    const own = await as(fresh, '/api/calls?wait_seconds=0', { tool: 'echo', arguments: args, idempotency_key: 'k-old' });
    expect(own.status).toBe(202);
    expect(own.body.id).not.toBe(kept.id);
    expect((await stores.runs.get(own.body.id))?.payload).toMatchObject({ agent_id: made.body.agent.id });
  });
});
