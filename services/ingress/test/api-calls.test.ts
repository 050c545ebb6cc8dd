import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentTokenHash, argsHash, createMetrics, loadSettings, silentLogger, systemClock, type AgentClient, type Run } from '@hookyard/core';
import { createMemoryBus, createRunEventHub, summarizeRun } from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createToolRepo } from '@hookyard/tools';
import { startExecutor, type ExecutorHandle } from '../../executor/src/start';
import { AgentCalls, type CallView } from '../src/agent/calls';
import { createIngressApp } from '../src/start';
import { newTraceparent, parentOf, startInMemoryTracing } from '../../../test/support/tracing';
import { startHarness, type Harness } from './support/harness';

/**
 * The HTTP call API (`POST /api/calls`, `GET /api/calls/{id}`) and the
 * framework-neutral AgentCalls under it. An executor is simulated through the
 * run store's own claim/complete/park/fail, so every outcome an executor can
 * write is driven exactly.
 */

const BOT = 'hya_calls-test-bot-token-0123456789abcdef';
const NARROW = 'hya_calls-test-narrow-token-0123456789ab';

async function addAgent(stores: Stores, name: string, token: string, toolsAllow: string[]): Promise<AgentClient> {
  return stores.agents.create({ name, description: null, tools_allow: toolsAllow, tokenHash: agentTokenHash(token) }, Date.now());
}

/** Waits (polling, with a deadline) for the agent's newest run, as an executor would see it. */
async function runOf(stores: Stores, agent: string, exclude: readonly string[] = []): Promise<Run> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await stores.runs.list({ hook: `agent:${agent}` }, 50);
    const run = page.runs.find((r) => !exclude.includes(r.id));
    if (run) return run;
    if (Date.now() > deadline) throw new Error(`no run of agent ${agent} appeared`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An executor's attempt, through the store: claim, then the outcome. */
async function claim(stores: Stores, id: string): Promise<number> {
  const c = await stores.runs.claim(id, 'test-executor', 30_000, Date.now());
  if (!c) throw new Error(`run ${id} could not be claimed`);
  return c.token;
}
async function succeed(stores: Stores, id: string, result: unknown): Promise<void> {
  await stores.runs.complete(id, await claim(stores, id), 'succeeded', result, Date.now());
}
async function deny(stores: Stores, id: string): Promise<void> {
  await stores.runs.complete(id, await claim(stores, id), 'denied', { message: 'no deleting on Fridays', rule: 'fridays', policy_version: 1 }, Date.now());
}

describe('HTTP call API', () => {
  let h: Harness;
  const bot = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${BOT}`, ...headers });
  const post = (json: unknown, query = '', headers: Record<string, string> = {}) =>
    h.call(`/api/calls${query}`, { method: 'POST', json, headers: bot(headers) });

  beforeAll(async () => {
    h = await startHarness({ settings: { agentWaitMs: 10_000 } });
    await addAgent(h.stores, 'bot', BOT, ['*', '!local_shell']);
    await addAgent(h.stores, 'narrow', NARROW, ['echo']);
  });
  afterAll(() => h.close());

  it('keeps the call as a run of the agent and answers 202 with the view when the wait is 0', async () => {
    const r = await post({ tool: 'echo', arguments: { text: 'hi' }, idempotency_key: 'k-202', wait_seconds: 0 });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ agent: 'bot', tool: 'echo', status: 'pending', done: false });
    expect(r.body.sentence).toMatch(/make the same call again \(same tool, same arguments\) to get its outcome/);
    expect(r.headers.get('hookyard-call-id')).toBe(r.body.id);
    const run = await h.stores.runs.get(r.body.id);
    expect(run).toMatchObject({ door: 'agent', hook: 'agent:bot', topic: 'tools/call', status: 'pending' });
    expect(run!.payload).toEqual({
      agent_id: (await h.stores.agents.get('bot'))!.id,
      tool: 'echo',
      arguments: { text: 'hi' },
      args_sha256: argsHash({ text: 'hi' }),
      tools_allow: null,
      idempotency_key: 'k-202',
      via: 'http',
    });
    expect(h.bus.published).toContainEqual([r.body.id]);
  });

  it('waits for the outcome and answers 200 with the result', async () => {
    const before = await existing();
    const answer = post({ tool: 'echo', arguments: { text: 'later' }, idempotency_key: 'k-wait' });
    const run = await runOf(h.stores, 'bot', before);
    await succeed(h.stores, run.id, { echoed: 'later' });
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: run.id,
      agent: 'bot',
      tool: 'echo',
      status: 'succeeded',
      done: true,
      result: { echoed: 'later' },
      sentence: 'The call to echo succeeded.',
    });
    expect(await h.call(`/api/calls/${run.id}`, { headers: bot() })).toMatchObject({ status: 200, body: r.body });
  });

  it('the same key twice is one run; the same key for another call is 409 naming the run', async () => {
    const a = await post({ tool: 'echo', arguments: { n: 1 }, idempotency_key: 'k-once', wait_seconds: 0 });
    const b = await post({ tool: 'echo', arguments: { n: 1 }, wait_seconds: 0 }, '', { 'Idempotency-Key': 'k-once' });
    expect(b.body.id).toBe(a.body.id);
    const runs = (await h.stores.runs.list({ hook: 'agent:bot' }, 500)).runs.filter((r) => (r.payload as any).idempotency_key === 'k-once');
    expect(runs.map((r) => r.id)).toEqual([a.body.id]);
    const other = await post({ tool: 'echo', arguments: { n: 2 }, idempotency_key: 'k-once', wait_seconds: 0 });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toContain(`already names call ${a.body.id}, with other arguments`);
    const otherTool = await post({ tool: 'wait', arguments: { n: 1 }, idempotency_key: 'k-once', wait_seconds: 0 });
    expect(otherTool.body.error.message).toContain("of tool 'echo'");
  });

  it('an OpenAI tool call is answered as a tool message, the run in the headers; its id is the key', async () => {
    const call = { id: 'call_abc', type: 'function', function: { name: 'echo', arguments: '{"text":"o"}' } };
    const first = await post(call, '?wait_seconds=0');
    expect(first.status).toBe(202);
    // Exactly the vendor's message: the run id and status travel in headers.
    expect(first.body).toEqual({
      role: 'tool',
      tool_call_id: 'call_abc',
      content: expect.stringMatching(/make the same call again \(same tool, same arguments\)/),
    });
    const id = first.headers.get('hookyard-run-id')!;
    expect(first.headers.get('hookyard-run-status')).toBe('pending');
    expect(first.headers.get('hookyard-call-id')).toBe(id);
    await succeed(h.stores, id, { echoed: 'o' });
    const again = await post(call, '?wait_seconds=0');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ role: 'tool', tool_call_id: 'call_abc', content: '{"echoed":"o"}' });
    expect([again.headers.get('hookyard-run-id'), again.headers.get('hookyard-run-status')]).toEqual([id, 'succeeded']);
  });

  it('a denied call is 200 with the sentence; the Anthropic shape says is_error', async () => {
    const block = { type: 'tool_use', id: 'toolu_01', name: 'echo', input: { text: 'rm' } };
    const first = await post(block, '?wait_seconds=0');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: expect.stringMatching(/make the same call again \(same tool, same arguments\)/),
      is_error: false,
    });
    const id = first.headers.get('hookyard-run-id')!;
    await deny(h.stores, id);
    const sentence = 'no deleting on Fridays. Please ask for clarification or try a different, less destructive approach.';
    const denied = await post(block, '?wait_seconds=0');
    expect(denied.body).toEqual({ type: 'tool_result', tool_use_id: 'toolu_01', content: sentence, is_error: true });
    expect(denied.headers.get('hookyard-run-status')).toBe('denied');
    const view = await h.call(`/api/calls/${id}`, { headers: bot() });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ status: 'denied', done: true, denial: { message: 'no deleting on Fridays', rule: 'fridays' }, sentence });
  });

  it('a parked call is 202 naming the approval and the rule; a failed one 200 with what failed', async () => {
    const parked = await post({ tool: 'echo', arguments: { p: 1 }, wait_seconds: 0 });
    const token = await claim(h.stores, parked.body.id);
    const expiresAt = Date.now() + 3_600_000;
    const { interaction } = await h.stores.interactions.park({
      run: parked.body.id,
      token,
      kind: 'approval',
      tool: 'echo',
      argsHash: argsHash({ p: 1 }),
      rule: 'needs a person',
      policyVersion: 7,
      expiresAt,
      now: Date.now(),
    });
    const p = await h.call(`/api/calls/${parked.body.id}?wait_seconds=5`, { headers: bot() });
    expect(p.status).toBe(202);
    expect(p.body).toMatchObject({
      status: 'parked',
      done: false,
      interaction: { id: interaction.id, rule: 'needs a person', message: null, expires_at: new Date(expiresAt).toISOString() },
    });
    expect(p.body.sentence).toContain(`awaits approval ${interaction.id} by rule 'needs a person'`);

    const failing = await post({ tool: 'echo', arguments: { f: 1 }, wait_seconds: 0 });
    await h.stores.runs.fail(failing.body.id, await claim(h.stores, failing.body.id), { kind: 'unavailable', message: 'the service is down' }, Date.now());
    const f = await h.call(`/api/calls/${failing.body.id}`, { headers: bot() });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ status: 'failed', done: true, error: { kind: 'unavailable', message: 'the service is down' } });
    expect(f.body.sentence).toBe(
      'The call to echo failed (unavailable): the service is down. A retry may help later: make the call again with a new idempotency key (the same key answers this outcome again).',
    );
  });

  it('a tool outside the allowlists is 404 and nothing is kept; the runtime header only narrows', async () => {
    const before = await existing();
    const shell = await post({ tool: 'local_shell', arguments: {} });
    expect(shell.status).toBe(404);
    expect(shell.body.error.message).toBe("tool 'local_shell' is not available to agent 'bot'");
    const narrowed = await post({ tool: 'wait', arguments: {} }, '', { [`Hookyard-Tools-Allow`]: 'echo' });
    expect(narrowed.status).toBe(404);
    const widened = await h.call('/api/calls', {
      method: 'POST',
      json: { tool: 'wait', arguments: {} },
      headers: { authorization: `Bearer ${NARROW}`, 'Hookyard-Tools-Allow': '*' },
    });
    expect(widened.status).toBe(404);
    expect(await existing()).toEqual(before);
  });

  it("another agent's call is 404 with the same answer as no call at all", async () => {
    const mine = await post({ tool: 'echo', arguments: {}, wait_seconds: 0 });
    const theirs = await h.call(`/api/calls/${mine.body.id}`, { headers: { authorization: `Bearer ${NARROW}` } });
    const none = await h.call('/api/calls/00000000000000000000000000', { headers: { authorization: `Bearer ${NARROW}` } });
    expect([theirs.status, none.status]).toEqual([404, 404]);
    expect(theirs.body.error.message.replace(mine.body.id, 'ID')).toBe(none.body.error.message.replace('00000000000000000000000000', 'ID'));
  });

  it.each([
    [{ tool: 'echo', arguments: [] }, '', /^arguments must be a JSON object/],
    [{ tool: 'Bad Name' }, '', /^tool "Bad Name" must match/],
    [{ tool: 'echo', arguments: {}, colour: 'red' }, '', /^unknown field 'colour'/],
    [{ tool: 'echo', idempotency_key: 'k'.repeat(201) }, '', /at most 200/],
    [{ tool: 'echo', wait_seconds: 11 }, '', /HOOKS_AGENT_WAIT_SECONDS 10/],
    [{ tool: 'echo', wait_seconds: -1 }, '', /^wait_seconds must be a number/],
    [{ tool: 'echo', wait_seconds: 1 }, '?wait_seconds=1', /once/],
    [{ tool: 'echo' }, '?verbose=1', /^unknown query parameter 'verbose'/],
    [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{nope' } }, '', /^function.arguments is not valid JSON/],
    [{ type: 'tool_use', id: 'x', name: 'echo', input: [] }, '', /^input must be a JSON object/],
    [{ type: 'image' }, '', /is not a call shape/],
  ])('refuses %j%s with 400', async (json, query, message) => {
    const r = await post(json, query);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(message);
  });

  it('refuses a bad runtime allowlist header, a management token and no token', async () => {
    const bad = await post({ tool: 'echo' }, '', { 'Hookyard-Tools-Allow': 'echo, bad name' });
    expect(bad).toMatchObject({ status: 400, body: { error: { details: ['entry "bad name"'] } } });
    const admin = await h.call('/api/calls', { method: 'POST', json: { tool: 'echo' }, role: 'admin' });
    expect(admin.status).toBe(403);
    expect((await h.call('/api/calls', { method: 'POST', json: { tool: 'echo' } })).status).toBe(401);
    expect((await h.call('/api/calls', { method: 'POST', json: { tool: 'echo' }, headers: { authorization: 'Bearer hya_nobody' } })).status).toBe(401);
  });

  async function existing(): Promise<string[]> {
    return (await h.stores.runs.list({}, 500)).runs.map((r) => r.id);
  }
});

describe('AgentCalls.wait', () => {
  const settings = loadSettings({}, { agentWaitMs: 10_000 });

  it('is woken by run events and reports each status change before the outcome', async () => {
    const stores = createMemoryStores();
    const hub = createRunEventHub();
    const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger(), runEvents: hub });
    const agent = await addAgent(stores, 'waiter', 'hya_waiter-token-0123456789abcdef', ['*']);
    const { id, created, idempotencyKey } = await calls.submit(agent, { tool: 'echo', arguments: { a: 1 }, via: 'mcp' });
    expect(created).toBe(true);
    expect(idempotencyKey).toMatch(/^hy-/);
    const seen: CallView[] = [];
    let progressed!: () => void;
    const running = new Promise<void>((r) => (progressed = r));
    const outcome = calls.wait(agent, id, 10_000, {
      onProgress: (v) => {
        seen.push(v);
        progressed();
      },
    });
    const token = await claim(stores, id);
    await hub.publish(summarizeRun((await stores.runs.get(id))!, 'started'));
    await running;
    const head = await stores.runs.complete(id, token, 'succeeded', 'done', Date.now());
    await hub.publish(summarizeRun(head, 'finished'));
    expect(await outcome).toMatchObject({ status: 'succeeded', done: true, result: 'done' });
    expect(seen.map((v) => v.status)).toEqual(['running']);
  });

  it('answers at once when aborted, and the call stays kept', async () => {
    const stores = createMemoryStores();
    const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger() });
    const agent = await addAgent(stores, 'quitter', 'hya_quitter-token-0123456789abcdef', ['*']);
    const { id } = await calls.submit(agent, { tool: 'echo', arguments: {}, idempotencyKey: 'q', via: 'http' });
    const ac = new AbortController();
    const waiting = calls.wait(agent, id, 10_000, { signal: ac.signal });
    ac.abort();
    expect(await waiting).toMatchObject({ id, status: 'pending', done: false });
    expect((await stores.runs.get(id))!.status).toBe('pending');
  });

  it('lists only what the deployment, the agent and the runtime allow together', () => {
    const calls = new AgentCalls({
      settings: loadSettings({ HOOKS_TOOLS_ALLOW: '*,!webhook' }),
      stores: createMemoryStores(),
      bus: createMemoryBus(),
      clock: systemClock,
      logger: silentLogger(),
    });
    const agent = { name: 'a', tools_allow: ['echo', 'webhook', 'wait', 'state_get'] } as AgentClient;
    const names = ['echo', 'webhook', 'wait', 'state_get', 'local_shell'];
    expect(calls.visible(agent, null, names)).toEqual(['echo', 'wait', 'state_get']);
    expect(calls.visible(agent, ['echo', 'local_shell', '!wait'], names)).toEqual(['echo']);
  });
});

describe('HOOKS_AGENT_WAIT_SECONDS', () => {
  it('defaults to 30 s, takes 0 to 300', () => {
    expect(loadSettings({}).agentWaitMs).toBe(30_000);
    expect(loadSettings({ HOOKS_AGENT_WAIT_SECONDS: '0' }).agentWaitMs).toBe(0);
    expect(loadSettings({ HOOKS_AGENT_WAIT_SECONDS: '2.5' }).agentWaitMs).toBe(2500);
    expect(() => loadSettings({ HOOKS_AGENT_WAIT_SECONDS: '301' })).toThrow('HOOKS_AGENT_WAIT_SECONDS: must be <= 300');
  });
});

describe('HTTP call API with a real executor in this process (echo)', () => {
  const TOKEN = 'hya_calls-test-real-executor-0123456789ab';
  const ADMIN = 'calls-real-admin-token-0123456789';
  let server: Server;
  let url = '';
  let stores: Stores;
  let executor: ExecutorHandle;
  let jq: Awaited<ReturnType<typeof createJqEngine>>;
  let tools: ReturnType<typeof createToolRepo>;

  beforeAll(async () => {
    const settings = loadSettings({}, { apiTokens: [{ role: 'admin', token: ADMIN }], agentWaitMs: 10_000 });
    const logger = silentLogger();
    stores = createMemoryStores();
    const bus = createMemoryBus();
    const hub = createRunEventHub();
    jq = await createJqEngine({ workers: 1 });
    tools = createToolRepo({ settings, toolStore: stores.tools, logger });
    const metrics = createMetrics({ defaultMetrics: false });
    const base = { settings, stores, bus, jq, tools, metrics, logger, events: hub };
    executor = await startExecutor(base);
    // Answers held to their declared shapes.
    const app = createIngressApp({ ...base, runEvents: hub, validateAnswers: true });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await stores.hooks.putApprovalPolicy(
      [
        { name: 'no shouting', tools: ['echo'], when: '.args.shout == true', action: 'deny', message: 'say it quietly' },
        { name: 'risky needs a person', tools: ['echo'], when: '.args.risky == true', action: 'approve', message: 'a person checks risky echoes' },
      ],
      null,
      Date.now(),
    );
    await addAgent(stores, 'live', TOKEN, ['echo']);
  });
  afterAll(async () => {
    await executor?.stop(1000);
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await tools?.close();
    await jq?.close();
  });

  const call = async (json: unknown, query = '') => {
    const res = await fetch(`${url}/api/calls${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const runsOfKey = async (key: string) =>
    (await stores.runs.list({ hook: 'agent:live' }, 500)).runs.filter((r) => (r.payload as { idempotency_key?: string }).idempotency_key === key);

  it('an allowed call is 200 with the result; the same key again is the same run, the tool called once', async () => {
    const first = await call({ tool: 'echo', arguments: { text: 'hello' }, idempotency_key: 'live-1' });
    expect(first).toEqual({
      status: 200,
      body: {
        id: expect.any(String),
        agent: 'live',
        tool: 'echo',
        status: 'succeeded',
        done: true,
        result: { text: 'hello' },
        sentence: 'The call to echo succeeded.',
      },
    });
    const again = await call({ tool: 'echo', arguments: { text: 'hello' }, idempotency_key: 'live-1' });
    expect(again).toEqual(first);
    const runs = await runsOfKey('live-1');
    expect(runs.map((r) => r.id)).toEqual([first.body.id]);
    expect(runs[0]).toMatchObject({ status: 'succeeded', attempts: 1, acted: 'start' });
  });

  it('a denied call is 200 with the sentence; the Anthropic shape says is_error', async () => {
    const r = await call({ type: 'tool_use', id: 'toolu_live', name: 'echo', input: { text: 'HI', shout: true } });
    expect(r).toEqual({
      status: 200,
      body: {
        type: 'tool_result',
        tool_use_id: 'toolu_live',
        content: 'say it quietly. Please ask for clarification or try a different, less destructive approach.',
        is_error: true,
      },
    });
    expect((await runsOfKey('toolu_live')).map((x) => x.status)).toEqual(['denied']);
  });

  it('an OpenAI tool call is answered as a tool message with the result as JSON text', async () => {
    const r = await call({ id: 'call_live', type: 'function', function: { name: 'echo', arguments: '{"n":3}' } });
    expect(r).toEqual({ status: 200, body: { role: 'tool', tool_call_id: 'call_live', content: '{"n":3}' } });
  });

  it('a tool outside the agent allowlist is 404 and nothing is kept', async () => {
    const before = (await stores.runs.list({}, 500)).runs.length;
    const r = await call({ tool: 'wait', arguments: {} });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe("tool 'wait' is not available to agent 'live'");
    expect((await stores.runs.list({}, 500)).runs.length).toBe(before);
  });

  it('a wait of 0 answers 202 at once; the call is still run, and GET answers its outcome later', async () => {
    const r = await call({ tool: 'echo', arguments: { later: true }, wait_seconds: 0 });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: expect.stringMatching(/^(pending|running)$/), done: false });
    const later = await fetch(`${url}/api/calls/${r.body.id}?wait_seconds=10`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ id: r.body.id, status: 'succeeded', result: { later: true } });
  });

  it('a gated call parks (202 naming the approval and the rule), and once an operator approves, the same call answers the result', async () => {
    const call1 = { tool: 'echo', arguments: { risky: true }, idempotency_key: 'live-risky' };
    const parked = await call(call1);
    expect(parked.status).toBe(202);
    expect(parked.body).toMatchObject({
      status: 'parked',
      done: false,
      interaction: { id: expect.any(String), rule: 'risky needs a person', message: 'a person checks risky echoes' },
    });
    expect(parked.body.sentence).toContain(`awaits approval ${parked.body.interaction.id} by rule 'risky needs a person'`);
    const approved = await fetch(`${url}/api/interactions/${parked.body.interaction.id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(approved.status).toBe(200);
    const outcome = await call(call1, '?wait_seconds=10');
    expect(outcome).toMatchObject({ status: 200, body: { id: parked.body.id, status: 'succeeded', result: { risky: true } } });
  });
});

describe('HTTP call API with tracing on', () => {
  let tracing: ReturnType<typeof startInMemoryTracing>;
  let h: Harness;
  beforeAll(async () => {
    tracing = startInMemoryTracing();
    h = await startHarness();
    await addAgent(h.stores, 'traced', BOT, ['echo']);
  });
  afterAll(async () => {
    await h.close();
    await tracing.stop();
  });

  it("the run keeps its POST /api/calls span's traceparent, a child of the caller's", async () => {
    const caller = newTraceparent();
    const r = await h.call('/api/calls', {
      method: 'POST',
      json: { tool: 'echo', arguments: {}, wait_seconds: 0 },
      headers: { authorization: `Bearer ${BOT}`, traceparent: caller.traceparent },
    });
    expect(r.status).toBe(202);
    const span = tracing.spans().find((s) => s.name === 'POST /api/calls');
    expect(span).toBeDefined();
    expect(span!.spanContext().traceId).toBe(caller.traceId);
    expect(parentOf(span!)).toBe(caller.spanId);
    expect(span!.attributes).toMatchObject({ 'hookyard.agent': 'traced', 'hookyard.tool': 'echo' });
    expect((await h.stores.runs.get(r.body.id))!.traceparent).toBe(`00-${caller.traceId}-${span!.spanContext().spanId}-01`);
  });
});
