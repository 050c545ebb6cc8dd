/**
 * An approval whose rule names `approver: "caller"`, asked of the agent's own
 * user through MCP elicitation (form mode) while the tools/call waits: an
 * approving answer runs the tool once and the call answers its result; a
 * decline denies it; a client that cannot be asked, or a rule that does not
 * name the caller, gets no elicitation and the call awaits an operator.
 */
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalRule } from '@hookyard/core';
import { ELICITATION_DECLINED } from '../src/agent/mcp-elicit';
import { countedTool, startMcpWorld, type McpWorld } from './support/mcp-world';

const RULES: ApprovalRule[] = [
  { name: 'deploys need the user', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy', approver: 'caller' },
  { name: 'restarts need an operator', tools: ['restart'], agents: ['*'], action: 'approve', message: 'an agent wants to restart' },
];

type TextResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };

describe('/mcp approvals answered by the agent user (elicitation)', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  const tools = () => ({ deploy: countedTool('deploy', (a) => ({ deployed: a })), restart: countedTool('restart', (a) => ({ restarted: a })) });

  async function elicitingClient(answer: (req: ElicitRequest) => ElicitResult) {
    const { client } = await w.client(await w.agent('ci-bot', ['*']), { elicitation: true });
    const asked: ElicitRequest[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req);
      return answer(req);
    });
    return { client, asked };
  }

  it('approve: the user is asked once with the tool, arguments and rule; the tool runs once; resolved by agent:ci-bot:user via elicitation', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 10_000 } });
    const { client, asked } = await elicitingClient(() => ({ action: 'accept', content: { approve: true, reason: 'looks right' } }));
    const r = (await client.callTool({ name: 'deploy', arguments: { n: 7 } })) as TextResult;
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ deployed: { n: 7 } });
    expect(t.deploy.calls).toEqual([{ n: 7 }]);
    expect(asked).toHaveLength(1);
    const params = asked[0]!.params as {
      mode?: string;
      message: string;
      requestedSchema: { required?: string[]; properties: Record<string, { type: string }> };
    };
    expect(params.mode).toBe('form');
    expect(params.message).toContain('deploy');
    expect(params.message).toContain('{"n":7}');
    expect(params.message).toContain("'deploys need the user'");
    expect(params.message).toContain('an agent wants to deploy');
    expect(params.requestedSchema.required).toEqual(['approve']);
    expect(params.requestedSchema.properties.approve!.type).toBe('boolean');
    expect(params.requestedSchema.properties.reason!.type).toBe('string');
    const run = await w.stores.runs.get(r._meta!['hookyard/run'] as string);
    const [interaction] = (await w.stores.interactions.list({ run: run!.id }, 10)).interactions;
    expect(interaction).toMatchObject({
      approver: 'caller',
      status: 'approved',
      resolution: { by: 'agent:ci-bot:user', via: 'elicitation', reason: 'looks right' },
    });
  });

  it('decline: the call is denied with the sentence (isError), the tool never called', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 10_000 } });
    const { client, asked } = await elicitingClient(() => ({ action: 'decline' }));
    const r = (await client.callTool({ name: 'deploy', arguments: { n: 1 } })) as TextResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain(ELICITATION_DECLINED);
    expect(r._meta!['hookyard/status']).toBe('denied');
    expect(t.deploy.calls).toEqual([]);
    expect(asked).toHaveLength(1);
    const [interaction] = (await w.stores.interactions.list({ run: r._meta!['hookyard/run'] as string }, 10)).interactions;
    expect(interaction).toMatchObject({ status: 'denied', resolution: { by: 'agent:ci-bot:user', via: 'elicitation', reason: ELICITATION_DECLINED } });
  });

  it('accept with approve false denies with the reason given; cancel leaves the approval open', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 10_000 } });
    let n = 0;
    const { client } = await elicitingClient(() => {
      n += 1;
      return n === 1 ? { action: 'accept', content: { approve: false, reason: 'not on a Friday' } } : { action: 'cancel' };
    });
    const denied = (await client.callTool({ name: 'deploy', arguments: { n: 1 } })) as TextResult;
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toContain('not on a Friday');

    w.settings.agentWaitMs = 300;
    const open = (await client.callTool({ name: 'deploy', arguments: { n: 2 } })) as TextResult;
    expect(open.isError).toBeUndefined();
    expect(open.content[0]!.text).toContain('awaits approval');
    const i = await w.stores.interactions.get(open._meta!['hookyard/interaction'] as string);
    expect(i).toMatchObject({ status: 'open', resolution: null });
    expect(n).toBe(2);
    expect(t.deploy.calls).toEqual([]);
  });

  it('a client without the elicitation capability is not asked: the call awaits approval as without the approver', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 300 } });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const requests: string[] = [];
    client.fallbackRequestHandler = async (req) => {
      requests.push(req.method);
      throw new Error('unexpected request');
    };
    const r = (await client.callTool({ name: 'deploy', arguments: { n: 1 } })) as TextResult;
    expect(r.content[0]!.text).toContain('awaits approval');
    expect(requests).toEqual([]);
    const i = await w.stores.interactions.get(r._meta!['hookyard/interaction'] as string);
    expect(i).toMatchObject({ approver: 'caller', status: 'open' });
    expect(t.deploy.calls).toEqual([]);
  });

  it('a rule that does not name the caller never elicits, even from a client that can be asked', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 300 } });
    const { client, asked } = await elicitingClient(() => ({ action: 'accept', content: { approve: true } }));
    const r = (await client.callTool({ name: 'restart', arguments: { n: 1 } })) as TextResult;
    expect(r.content[0]!.text).toContain('awaits approval');
    expect(asked).toEqual([]);
    const i = await w.stores.interactions.get(r._meta!['hookyard/interaction'] as string);
    expect(i).toMatchObject({ approver: null, status: 'open' });
    expect(t.restart.calls).toEqual([]);
  });
});
