/**
 * An agent's MCP call held with an unknown outcome (its non-resumable tool
 * started and the attempt's lease lapsed: simulated through the run store,
 * no executor) and an operator's verdict, as an MCP SDK client reads them:
 * the task fails with the unknown sentence (never "a new key"), tasks/result
 * is an isError result saying so; once an operator resolves the run
 * (`POST /api/hook-runs/{id}/resolve`), the same task is completed with the
 * verdict's result, and the same call made again with its key answers it.
 */
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCallPayload } from '@hookyard/core';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, type McpWorld } from './support/mcp-world';

describe('/mcp: a call whose outcome is unknown, then resolved by an operator', () => {
  let w: McpWorld;
  afterAll(async () => w?.close());

  it('the task fails saying the outcome is unknown; after the verdict it is completed with the result, and a repeat answers it', async () => {
    const deploy = countedTool('deploy');
    w = await startMcpWorld({ tools: [deploy] });
    const { client } = await w.client(await w.agent('ci-bot', ['deploy']), { tasks: true });
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'deploy', arguments: { env: 'prod' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const id = task.taskId;
    // An executor took it, started the tool (no crash-resume) and died: the lease lapsed.
    const now = Date.now();
    const claimed = await w.stores.runs.claim(id, 'exec-1', 1_000, now);
    await w.stores.runs.act(id, claimed!.token, { acted: 'start', actedIds: [], input: { env: 'prod' }, resumable: false }, now);
    await w.stores.runs.sweepLapsed(now + 1_001, 10, { maxAttempts: 5, retryDelayMs: 1_000 });

    const held = await client.experimental.tasks.getTask(id);
    expect(held.status).toBe('failed');
    expect(held.statusMessage).toMatch(/^The outcome of the call to deploy is unknown: .*the tool may have acted\. An operator has been asked to check/);
    const unknown = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect(unknown.isError).toBe(true);
    const text = (unknown.content[0] as { text: string }).text;
    expect(text).toBe(held.statusMessage);
    expect(text).toContain('Make the same call again (same tool, same arguments)');
    expect(text).not.toMatch(/retry may help|again with a new idempotency key/i);

    const resolved = await fetch(`${w.url}/api/hook-runs/${id}/resolve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'succeeded', result: { deployed: 'prod' }, note: 'checked the deploy' }),
    });
    expect(resolved.status).toBe(200);

    expect((await client.experimental.tasks.getTask(id)).status).toBe('completed');
    const verdict = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect([verdict.isError, verdict.structuredContent]).toEqual([undefined, { deployed: 'prod' }]);
    // The call made again with its key (the one the door gave the task's call) answers the verdict; the tool is never called.
    const key = ((await w.stores.runs.get(id))!.payload as AgentCallPayload).idempotency_key;
    const again = await client.callTool({ name: 'deploy', arguments: { env: 'prod' }, _meta: { 'hookyard/idempotency_key': key } });
    expect([again.isError, again.structuredContent, (again._meta as Record<string, unknown>)['hookyard/run']]).toEqual([undefined, { deployed: 'prod' }, id]);
    expect(deploy.calls).toHaveLength(0);
  });
});
