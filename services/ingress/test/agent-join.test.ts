/**
 * A repeated call joins the one still open (issue 34). A model controls only
 * a call's arguments: MCP `_meta` belongs to the host, and a vendor's call id
 * is new every turn. So while a call of an agent is not finished, an
 * identical one (same tool, same arguments) attaches to it whatever its key:
 * one run, one approval, one tool call, and the answer says it joined. Once
 * the call has finished, an identical call is a new one. A client that sent a
 * progressToken is kept waiting through the approval with progress
 * notifications, and gets the outcome in the same request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { agentHookName, loadSettings, type ApprovalRule } from '@hookyard/core';
import { TOKENS } from './support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';
import {
  anthropicBlock,
  asChatToolMessage,
  asFunctionCallOutput,
  asFunctionResponsePart,
  asToolResult,
  chatMessage,
  chatToolCall,
  geminiPart,
  responsesCall,
} from './support/vendor-calls';

const RULES: ApprovalRule[] = [{ name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve', message: 'an agent wants to deploy' }];

type TextResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };

const REPEAT = 'make the same call again (same tool, same arguments) to get its outcome';

describe('an identical call joins the open one', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  const tools = () => ({ deploy: countedTool('deploy', (a) => ({ deployed: a })), echo: countedTool('echo', (a) => ({ echoed: a })) });

  /** POST /api/calls as agent `token`; `query` e.g. `?wait_seconds=0`. */
  const post = async (token: string, body: unknown, query = '') => {
    const res = await fetch(`${w.url}/api/calls${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, id: res.headers.get('hookyard-call-id'), body: (await res.json()) as Record<string, any> };
  };
  const approve = async (interaction: string) => {
    const res = await fetch(`${w.url}/api/interactions/${interaction}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
  };
  const runsOf = async (agent: string) => (await w.stores.runs.list({ hook: agentHookName(agent) }, 50)).runs;
  /** Waits until the run is parked and answers its approval. */
  const parkedOn = async (run: string) => {
    await until(async () => (await w.stores.runs.get(run))?.status === 'parked', 15_000, `run ${run} parked`);
    return (await w.stores.runs.get(run))!.interaction!;
  };

  it('MCP: two identical calls with different keys make one run and one approval; the second says it joined; once finished, the same call is a new one', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 200 } });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const first = (await client.callTool({ name: 'deploy', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'turn-1' } })) as TextResult;
    expect(first._meta).not.toHaveProperty('hookyard/joined');
    expect(first.content[0]!.text).toContain(REPEAT);
    const run = first._meta!['hookyard/run'] as string;
    const approval = await parkedOn(run);

    const second = (await client.callTool({ name: 'deploy', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'turn-2' } })) as TextResult;
    expect(second._meta).toMatchObject({
      'hookyard/run': run,
      'hookyard/interaction': approval,
      'hookyard/joined': true,
      'hookyard/idempotency_key': 'turn-2',
    });
    expect(second.content[0]!.text).toMatch(new RegExp(`^This call joined the identical call ${run} \\(same tool, same arguments\\)`));
    // No key at all: the door makes one up, and the call joins all the same.
    const third = (await client.callTool({ name: 'deploy', arguments: { n: 1 } })) as TextResult;
    expect(third._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/joined': true });
    // Other arguments are another call.
    const other = (await client.callTool({ name: 'deploy', arguments: { n: 2 } })) as TextResult;
    expect(other._meta!['hookyard/run']).not.toBe(run);
    expect(await runsOf('ci-bot')).toHaveLength(2);
    expect((await w.stores.interactions.list({}, 10)).interactions).toHaveLength(2);

    await approve(approval);
    await until(async () => (await w.stores.runs.get(run))?.status === 'succeeded', 15_000, 'the approved run');
    // The joining key names the run: repeating it answers the one outcome.
    const again = (await client.callTool({ name: 'deploy', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'turn-2' } })) as TextResult;
    expect(again._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/status': 'succeeded' });
    expect(again._meta).not.toHaveProperty('hookyard/joined');
    expect(again.structuredContent).toEqual({ deployed: { n: 1 } });
    expect(t.deploy.calls).toEqual([{ n: 1 }]);

    // Finished: an identical call with a new key is a new call (a new approval).
    const later = (await client.callTool({ name: 'deploy', arguments: { n: 1 }, _meta: { 'hookyard/idempotency_key': 'turn-9' } })) as TextResult;
    expect(later._meta!['hookyard/run']).not.toBe(run);
    expect(later._meta).toMatchObject({ 'hookyard/status': 'parked' });
    expect(later._meta).not.toHaveProperty('hookyard/joined');
    expect(await runsOf('ci-bot')).toHaveLength(3);
  });

  it('POST /api/calls: two identical calls with different keys make one run and one approval, the second answers joined: true; once finished, the same call is a new one', async () => {
    const t = tools();
    w = await startMcpWorld({ tools: Object.values(t), executor: true, rules: RULES, settings: { agentWaitMs: 200 } });
    const token = await w.agent('http-bot', ['*']);
    const first = await post(token, { tool: 'deploy', arguments: { n: 1 }, idempotency_key: 'k-1' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ done: false });
    expect(first.body).not.toHaveProperty('joined');
    expect(first.body.sentence).toContain(REPEAT);
    const run = first.body.id as string;
    const approval = await parkedOn(run);

    const second = await post(token, { tool: 'deploy', arguments: { n: 1 }, idempotency_key: 'k-2' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ id: run, status: 'parked', joined: true, interaction: { id: approval } });
    expect(second.body.sentence).toMatch(new RegExp(`^This call joined the identical call ${run} \\(same tool, same arguments\\)`));
    expect(second.body.sentence).toContain(REPEAT);
    expect(await runsOf('http-bot')).toHaveLength(1);
    expect((await w.stores.interactions.list({}, 10)).interactions).toHaveLength(1);

    await approve(approval);
    await until(async () => (await w.stores.runs.get(run))?.status === 'succeeded', 15_000, 'the approved run');
    const byKey = await post(token, { tool: 'deploy', arguments: { n: 1 }, idempotency_key: 'k-2' });
    expect(byKey).toMatchObject({ status: 200, id: run, body: { status: 'succeeded', result: { deployed: { n: 1 } } } });
    expect(byKey.body).not.toHaveProperty('joined');
    expect(t.deploy.calls).toHaveLength(1);

    // An ungated tool: each identical call after the last one finished is a call of its own.
    const e1 = await post(token, { tool: 'echo', arguments: { n: 5 } });
    await until(async () => (await w.stores.runs.get(e1.id!))?.status === 'succeeded', 15_000, 'the first echo');
    const e2 = await post(token, { tool: 'echo', arguments: { n: 5 } });
    expect(e2.id).not.toBe(e1.id);
    expect(e2.body).not.toHaveProperty('joined');
    await until(async () => (await w.stores.runs.get(e2.id!))?.status === 'succeeded', 15_000, 'the second echo');
    expect(t.echo.calls).toHaveLength(2);
  });

  it('MCP with a progressToken: the call waits through the approval with progress notifications, and the same request answers the result', async () => {
    const t = tools();
    // The plain wait is short; a client that sent a progressToken is told every 100 ms and kept waiting.
    w = await startMcpWorld({
      tools: Object.values(t),
      executor: true,
      rules: RULES,
      settings: { agentWaitMs: 100, agentProgressMs: 100, agentProgressMaxWaitMs: 120_000 },
    });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const progress: { progress: number; message?: string }[] = [];
    const answer = client.callTool({ name: 'deploy', arguments: { n: 3 } }, undefined, {
      onprogress: (p) => void progress.push(p),
      resetTimeoutOnProgress: true,
      // Far shorter than the wait: only progress keeps the request alive.
      timeout: 5_000,
    }) as Promise<TextResult>;
    let settled = false;
    void answer.then(
      () => (settled = true),
      () => (settled = true),
    );
    const parked = async () => (await runsOf('ci-bot'))[0];
    await until(async () => (await parked())?.status === 'parked', 15_000, 'the parked run');
    const run = (await parked())!;
    // Several intervals pass with the call still parked: each says so, naming the approval.
    const naming = () => progress.filter((p) => p.message?.includes(`approval ${run.interaction!}`)).length;
    await until(() => naming() >= 3, 15_000, 'progress notifications while parked');
    expect(settled).toBe(false);
    expect(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress)).toBe(true);

    await approve(run.interaction!);
    const done = await answer;
    expect(done.isError).toBeUndefined();
    expect(done._meta).toMatchObject({ 'hookyard/run': run.id, 'hookyard/status': 'succeeded' });
    expect(done.structuredContent).toEqual({ deployed: { n: 3 } });
    expect(t.deploy.calls).toHaveLength(1);
    expect(await runsOf('ci-bot')).toHaveLength(1);
  });

  it('MCP with a progressToken stops waiting at HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS and answers that the call still waits', async () => {
    const t = tools();
    w = await startMcpWorld({
      tools: Object.values(t),
      executor: true,
      rules: RULES,
      settings: { agentWaitMs: 100, agentProgressMs: 100, agentProgressMaxWaitMs: 600 },
    });
    const { client } = await w.client(await w.agent('ci-bot', ['*']));
    const progress: number[] = [];
    const r = (await client.callTool({ name: 'deploy', arguments: { n: 4 } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
      resetTimeoutOnProgress: true,
    })) as TextResult;
    expect(r._meta).toMatchObject({ 'hookyard/status': 'parked' });
    expect(r.content[0]!.text).toContain(REPEAT);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(t.deploy.calls).toHaveLength(0);
  });
});

describe('the scripted model loop: an approval-gated tool, "waiting", identical repeats with fresh call ids in every shape, one approval, one tool call', () => {
  let w: McpWorld;
  afterEach(async () => w.close());

  it('every repeat (MCP, Hookyard, each vendor, a message of two parallel calls) joins the one run in its exact shape; approved, every repeat answers the outcome', async () => {
    const deploy = countedTool('deploy', (a) => ({ deployed: a }));
    w = await startMcpWorld({ tools: [deploy], executor: true, rules: RULES, settings: { agentWaitMs: 200, agentProgressMs: 100 } });
    const token = await w.agent('model', ['*']);
    const { client } = await w.client(token);
    const args = { n: 42 };
    const result = { deployed: args };
    /** POST /api/calls; the run ids and statuses from the headers, one per call in order. */
    const post = async (body: unknown) => {
      const res = await fetch(`${w.url}/api/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const split = (h: string) => (res.headers.get(h) ?? '').split(',').filter(Boolean);
      // Parsed here (not by fetch's realm), so toStrictEqual can hold the answer to exactly the vendor's keys.
      const answer = JSON.parse(await res.text());
      return { status: res.status, runIds: split('hookyard-run-id'), statuses: split('hookyard-run-status'), body: answer };
    };

    // Turn 1: the model calls the tool (MCP, no tasks, no key: the host owns _meta) and reads "waiting".
    const first = (await client.callTool({ name: 'deploy', arguments: args })) as TextResult;
    expect(first.isError).toBeUndefined();
    expect(first.content[0]!.text).toContain(REPEAT);
    const run = first._meta!['hookyard/run'] as string;
    await until(async () => (await w.stores.runs.get(run))?.status === 'parked', 15_000, 'the parked run');
    const approval = (await w.stores.runs.get(run))!.interaction!;
    /** What every repeat reads while the run waits: it joined the one run, and is told to make the same call again. */
    const joined = expect.stringMatching(
      new RegExp(`^This call joined the identical call ${escape(run)} \\(same tool, same arguments\\)[\\s\\S]*${escape(REPEAT)}`),
    );

    // The same call as each vendor's SDK types it, each with a fresh call id (the model's, new every turn).
    const vendors = [
      { shape: 'OpenAI Chat Completions tool call', call: chatToolCall('call_turn4', 'deploy', args) },
      { shape: 'OpenAI Responses function_call item', call: responsesCall('call_turn5', 'deploy', args) },
      { shape: 'Anthropic tool_use block from a response (with caller)', call: anthropicBlock('toolu_turn6', 'deploy', args) },
      { shape: 'Gemini functionCall part', call: geminiPart('deploy', args, 'fc-turn7') },
    ];
    // A whole assistant message with two parallel calls of the same tool and arguments (models do emit duplicates).
    const message = chatMessage([chatToolCall('call_turn8a', 'deploy', args), chatToolCall('call_turn8b', 'deploy', args)]);
    /** Each vendor's result message for `content` (a string; Gemini's output as it is), exactly: no key beside the vendor's. */
    const answers = (content: unknown, text: unknown) => [
      { role: 'tool', tool_call_id: 'call_turn4', content: text },
      { type: 'function_call_output', call_id: 'call_turn5', output: text },
      { type: 'tool_result', tool_use_id: 'toolu_turn6', content: text, is_error: false },
      { functionResponse: { id: 'fc-turn7', name: 'deploy', response: { output: content } } },
    ];

    // Turns 2-9: it does what it was told, through MCP, Hookyard's body, every vendor shape and a message, a fresh id each time.
    const mcp = (await client.callTool({ name: 'deploy', arguments: args })) as TextResult;
    expect(mcp._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/interaction': approval, 'hookyard/joined': true });
    expect(mcp.content[0]!.text).toEqual(joined);
    const own = await post({ tool: 'deploy', arguments: args, idempotency_key: 'turn-3' });
    expect(own).toMatchObject({ status: 202, runIds: [run], statuses: ['parked'], body: { id: run, joined: true, interaction: { id: approval } } });
    expect(own.body.sentence).toEqual(joined);
    const waiting = await Promise.all(vendors.map(async (v) => ({ shape: v.shape, ...(await post(v.call)) })));
    const expected = answers(joined, joined);
    waiting.forEach((r, i) => {
      expect({ shape: r.shape, status: r.status, runIds: r.runIds, statuses: r.statuses }).toEqual({
        shape: vendors[i]!.shape,
        status: 202,
        runIds: [run],
        statuses: ['parked'],
      });
      expect(r.body).toStrictEqual(expected[i]);
    });
    const both = await post(message);
    expect(both).toMatchObject({ status: 202, runIds: [run, run], statuses: ['parked', 'parked'] });
    expect(both.body).toStrictEqual([
      { role: 'tool', tool_call_id: 'call_turn8a', content: joined },
      { role: 'tool', tool_call_id: 'call_turn8b', content: joined },
    ]);
    const mcpAgain = (await client.callTool({ name: 'deploy', arguments: args })) as TextResult;
    expect(mcpAgain._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/joined': true });
    expect(mcpAgain.content[0]!.text).toEqual(joined);
    expect(await w.stores.runs.list({ hook: agentHookName('model') }, 50)).toMatchObject({ runs: [{ id: run, status: 'parked' }] });
    expect((await w.stores.interactions.list({}, 10)).interactions.map((i) => i.id)).toEqual([approval]);
    expect(deploy.calls).toHaveLength(0);

    // Turn 10: a host that sends a progressToken keeps the repeat open; the operator approves meanwhile.
    const progress: number[] = [];
    const inFlight = client.callTool({ name: 'deploy', arguments: args }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
      resetTimeoutOnProgress: true,
    }) as Promise<TextResult>;
    await until(() => progress.length >= 2, 15_000, 'the repeat waiting with progress');
    const answered = await fetch(`${w.url}/api/interactions/${approval}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    const outcome = await inFlight;
    expect(outcome._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/status': 'succeeded', 'hookyard/joined': true });
    expect(outcome.structuredContent).toEqual(result);

    // A runtime that sends a call id again (its own retry, not the model's) reads the one outcome, each in its vendor's result shape.
    const done = await Promise.all(vendors.map(async (v) => ({ shape: v.shape, ...(await post(v.call)) })));
    const outcomes = answers(result, JSON.stringify(result));
    done.forEach((r, i) => {
      expect({ shape: r.shape, status: r.status, runIds: r.runIds, statuses: r.statuses }).toEqual({
        shape: vendors[i]!.shape,
        status: 200,
        runIds: [run],
        statuses: ['succeeded'],
      });
      expect(r.body).toStrictEqual(outcomes[i]);
    });
    // Typed as the vendors take them back.
    expect(asChatToolMessage(done[0]!.body).content).toBe(JSON.stringify(result));
    expect(asFunctionCallOutput(done[1]!.body).output).toBe(JSON.stringify(result));
    expect(asToolResult(done[2]!.body).is_error).toBe(false);
    expect(asFunctionResponsePart(done[3]!.body).functionResponse?.response).toEqual({ output: result });
    const bothDone = await post(message);
    expect(bothDone).toMatchObject({ status: 200, runIds: [run, run], statuses: ['succeeded', 'succeeded'] });
    expect(bothDone.body).toStrictEqual([
      { role: 'tool', tool_call_id: 'call_turn8a', content: JSON.stringify(result) },
      { role: 'tool', tool_call_id: 'call_turn8b', content: JSON.stringify(result) },
    ]);
    const ownDone = await post({ tool: 'deploy', arguments: args, idempotency_key: 'turn-3' });
    expect(ownDone).toMatchObject({ status: 200, runIds: [run], statuses: ['succeeded'], body: { id: run, status: 'succeeded', result } });
    const read = await fetch(`${w.url}/api/calls/${run}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await read.json()).toMatchObject({ status: 'succeeded', result });

    // One run, one approval, one tool call.
    expect((await w.stores.runs.list({ hook: agentHookName('model') }, 50)).runs.map((r) => r.id)).toEqual([run]);
    expect((await w.stores.interactions.list({}, 10)).interactions).toHaveLength(1);
    expect(deploy.calls).toEqual([args]);
  });
});

/** `s` as a literal inside a regular expression. */
function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** mcp-remote, the stdio proxy desktop hosts launch for a remote server. */
const MCP_REMOTE = join(__dirname, '..', 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

/** A free loopback port (mcp-remote takes one for an OAuth callback it does not need here). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('the same loop through mcp-remote over stdio, as a desktop host drives it', () => {
  let w: McpWorld;
  let home: string;
  let transport: StdioClientTransport | undefined;
  afterEach(async () => {
    await transport?.close();
    await w.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('the first call waits, five repeats join it, the repeat with a progressToken gets the outcome once approved: one run, one approval, one tool call', async () => {
    const deploy = countedTool('deploy', (a) => ({ deployed: a }));
    w = await startMcpWorld({ tools: [deploy], executor: true, rules: RULES, settings: { agentWaitMs: 200, agentProgressMs: 100 } });
    const token = await w.agent('desk-model', ['*']);
    home = mkdtempSync(join(tmpdir(), 'hookyard-join-'));
    let log = '';
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, `${w.url}/mcp`, String(await freePort()), '--allow-http', '--transport', 'http-only', '--header', `Authorization:Bearer ${token}`],
      env: { ...process.env, HOME: home, BROWSER: 'true' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    const client = new Client({ name: 'desktop-host', version: '1.0.0' });
    await client.connect(transport, { timeout: 60_000 }).catch((err: unknown) => {
      throw new Error(`mcp-remote did not connect: ${String(err)}; its log: ${log}`);
    });
    const args = { n: 7 };

    const first = (await client.callTool({ name: 'deploy', arguments: args })) as TextResult;
    expect(first.content[0]!.text).toContain(REPEAT);
    const run = first._meta!['hookyard/run'] as string;
    await until(async () => (await w.stores.runs.get(run))?.status === 'parked', 15_000, 'the parked run');
    const approval = (await w.stores.runs.get(run))!.interaction!;
    for (let i = 0; i < 5; i += 1) {
      const again = (await client.callTool({ name: 'deploy', arguments: args })) as TextResult;
      expect(again._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/interaction': approval, 'hookyard/joined': true });
      expect(again.content[0]!.text).toContain(REPEAT);
    }
    expect(deploy.calls).toHaveLength(0);

    const progress: number[] = [];
    const inFlight = client.callTool({ name: 'deploy', arguments: args }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
      resetTimeoutOnProgress: true,
    }) as Promise<TextResult>;
    await until(() => progress.length >= 2, 15_000, 'progress through mcp-remote');
    const answered = await fetch(`${w.url}/api/interactions/${approval}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answered.status).toBe(200);
    const outcome = await inFlight;
    expect(outcome._meta).toMatchObject({ 'hookyard/run': run, 'hookyard/status': 'succeeded', 'hookyard/joined': true });
    expect(outcome.structuredContent).toEqual({ deployed: args });

    expect((await w.stores.runs.list({ hook: agentHookName('desk-model') }, 50)).runs.map((r) => r.id)).toEqual([run]);
    expect((await w.stores.interactions.list({}, 10)).interactions).toHaveLength(1);
    expect(deploy.calls).toEqual([args]);
  }, 90_000);
});

describe('HOOKS_AGENT_PROGRESS_SECONDS and HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS', () => {
  it('default to 15 s and 3600 s; the interval takes 0.05 to 300, the longest wait 0 to 86400', () => {
    expect(loadSettings({})).toMatchObject({ agentProgressMs: 15_000, agentProgressMaxWaitMs: 3_600_000 });
    expect(loadSettings({ HOOKS_AGENT_PROGRESS_SECONDS: '0.5', HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS: '0' })).toMatchObject({
      agentProgressMs: 500,
      agentProgressMaxWaitMs: 0,
    });
    expect(() => loadSettings({ HOOKS_AGENT_PROGRESS_SECONDS: '0' })).toThrow('HOOKS_AGENT_PROGRESS_SECONDS: must be >= 0.05');
    expect(() => loadSettings({ HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS: '86401' })).toThrow('HOOKS_AGENT_PROGRESS_MAX_WAIT_SECONDS: must be <= 86400');
  });
});
