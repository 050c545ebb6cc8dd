import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentTokenHash, loadSettings, createMetrics, silentLogger } from '@hookyard/core';
import { createMemoryBus, createRunEventHub } from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createToolRepo } from '@hookyard/tools';
import { startExecutor, type ExecutorHandle } from '../../executor/src/start';
import { createIngressApp } from '../src/start';
import { manualSection } from '../../../test/support/manual';
import {
  anthropicBlock,
  anthropicBlockParam,
  anthropicMessage,
  asChatToolMessage,
  asFunctionCallOutput,
  asFunctionResponsePart,
  asToolResult,
  chatMessage,
  chatToolCall,
  geminiContent,
  geminiPart,
  responsesCall,
  responsesOutput,
  type GeminiDeclaration,
  type ResponsesTool,
} from './support/vendor-calls';

/**
 * `POST /api/calls` with each model vendor's tool call exactly as its
 * official SDK types it (fixtures in support/vendor-calls), against a real
 * executor in this process (the local `echo` tool) and a real approval
 * policy: each is answered with exactly the vendor's result message (no key
 * of Hookyard's; run id and status in headers), a whole message or an array
 * with the results in order, and every outcome — a denial, still waiting, a
 * tool the agent may not call, a reused id — is a message the runtime can
 * append, the HTTP status saying what happened. Answers are held to their
 * declared shapes (validateAnswers), and those shapes to the vendors' input
 * types at compile time (support/vendor-calls).
 */

const TOKEN = 'hya_vendor-shapes-test-token-0123456789ab';
const ADMIN = 'vendor-shapes-admin-token-0123456789';

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
  await stores.agents.create({ name: 'model', description: null, tools_allow: ['echo'], tokenHash: agentTokenHash(TOKEN) }, Date.now());
});
afterAll(async () => {
  await executor?.stop(1000);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await tools?.close();
  await jq?.close();
});

interface Answer {
  status: number;
  body: any;
  runIds: string[];
  statuses: string[];
}

async function call(json: unknown, query = '', headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${url}/api/calls${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });
  const split = (h: string) => (res.headers.get(h) ?? '').split(',').filter(Boolean);
  return { status: res.status, body: await res.json(), runIds: split('hookyard-run-id'), statuses: split('hookyard-run-status') };
}

const runsOfKey = async (key: string) =>
  (await stores.runs.list({ hook: 'agent:model' }, 500)).runs.filter((r) => (r.payload as { idempotency_key?: string }).idempotency_key === key);

const DENIED = 'say it quietly. Please ask for clarification or try a different, less destructive approach.';
const NOT_AVAILABLE = "Tool 'wait' is not available to agent 'model': call only the tools you were given; this one cannot be called.";

describe('one call of each vendor, as its SDK types it', () => {
  it('OpenAI Chat Completions tool call: a tool message, nothing else; the run in the headers', async () => {
    const r = await call(chatToolCall('call_c1', 'echo', { text: 'hi' }));
    expect(r.status).toBe(200);
    expect(asChatToolMessage(r.body)).toEqual({ role: 'tool', tool_call_id: 'call_c1', content: '{"text":"hi"}' });
    expect(r.statuses).toEqual(['succeeded']);
    expect(r.runIds).toEqual((await runsOfKey('call_c1')).map((x) => x.id));
  });

  it('OpenAI Responses function_call item (with its item id and status): a function_call_output keyed by call_id', async () => {
    const r = await call(responsesCall('call_r1', 'echo', { text: 'hi' }));
    expect(r.status).toBe(200);
    expect(asFunctionCallOutput(r.body)).toEqual({ type: 'function_call_output', call_id: 'call_r1', output: '{"text":"hi"}' });
    expect(r.runIds).toEqual((await runsOfKey('call_r1')).map((x) => x.id));
  });

  it('Anthropic tool_use block from a response (caller, toolset_name) and from a request (cache_control): a tool_result; unknown fields ignored', async () => {
    const fromResponse = await call(anthropicBlock('toolu_a1', 'echo', { text: 'hi' }));
    expect(fromResponse.status).toBe(200);
    expect(asToolResult(fromResponse.body)).toEqual({ type: 'tool_result', tool_use_id: 'toolu_a1', content: '{"text":"hi"}', is_error: false });
    const fromRequest = await call({ ...anthropicBlockParam('toolu_a2', 'echo', { text: 'yo' }), some_future_field: { x: 1 } });
    expect(fromRequest.body).toEqual({ type: 'tool_result', tool_use_id: 'toolu_a2', content: '{"text":"yo"}', is_error: false });
  });

  it('Gemini functionCall part: a functionResponse part with the id and name, the result under output', async () => {
    const r = await call(geminiPart('echo', { text: 'hi' }, 'fc-g1'));
    expect(r.status).toBe(200);
    expect(asFunctionResponsePart(r.body)).toEqual({ functionResponse: { id: 'fc-g1', name: 'echo', response: { output: { text: 'hi' } } } });
    expect(r.runIds).toEqual((await runsOfKey('fc-g1')).map((x) => x.id));
    // Without an id there is no key to echo: the answer has none either.
    const bare = await call(geminiPart('echo', { text: 'no id' }));
    expect(bare.body).toEqual({ functionResponse: { name: 'echo', response: { output: { text: 'no id' } } } });
  });

  it('a denial is the vendor message with the sentence, flagged as an error where the vendor has a flag (200)', async () => {
    const shout = { text: 'HI', shout: true };
    const answers = await Promise.all([
      call(chatToolCall('call_d', 'echo', shout)),
      call(responsesCall('call_dr', 'echo', shout)),
      call(anthropicBlock('toolu_d', 'echo', shout)),
      call(geminiPart('echo', shout, 'fc-d')),
    ]);
    expect(answers.map((a) => [a.status, a.statuses])).toEqual(Array(4).fill([200, ['denied']]));
    expect(answers.map((a) => a.body)).toEqual([
      { role: 'tool', tool_call_id: 'call_d', content: DENIED },
      { type: 'function_call_output', call_id: 'call_dr', output: DENIED },
      { type: 'tool_result', tool_use_id: 'toolu_d', content: DENIED, is_error: true },
      { functionResponse: { id: 'fc-d', name: 'echo', response: { error: DENIED } } },
    ]);
  });

  it('a tool the agent may not call: 404 with a result message saying so, and nothing kept', async () => {
    const before = (await stores.runs.list({}, 500)).runs.length;
    const answers = await Promise.all([
      call(chatToolCall('call_n', 'wait', {})),
      call(responsesCall('call_nr', 'wait', {})),
      call(anthropicBlock('toolu_n', 'wait', {})),
      call(geminiPart('wait', {}, 'fc-n')),
    ]);
    expect(answers.map((a) => [a.status, a.runIds, a.statuses])).toEqual(Array(4).fill([404, ['-'], ['not_found']]));
    expect(answers.map((a) => a.body)).toEqual([
      { role: 'tool', tool_call_id: 'call_n', content: NOT_AVAILABLE },
      { type: 'function_call_output', call_id: 'call_nr', output: NOT_AVAILABLE },
      { type: 'tool_result', tool_use_id: 'toolu_n', content: NOT_AVAILABLE, is_error: true },
      { functionResponse: { id: 'fc-n', name: 'wait', response: { error: NOT_AVAILABLE } } },
    ]);
    expect((await stores.runs.list({}, 500)).runs.length).toBe(before);
    // Hookyard's own body keeps its error answer.
    const own = await call({ tool: 'wait', arguments: {} });
    expect(own).toMatchObject({ status: 404, body: { error: { kind: 'not_found', message: "tool 'wait' is not available to agent 'model'" } } });
  });

  it('a model id reused for another call: 409 with a result message naming the run', async () => {
    const first = await call(responsesCall('call_same', 'echo', { n: 1 }));
    const other = await call(responsesCall('call_same', 'echo', { n: 2 }));
    expect(other.status).toBe(409);
    expect(other.statuses).toEqual(['conflict']);
    expect(other.body).toEqual({
      type: 'function_call_output',
      call_id: 'call_same',
      output: expect.stringContaining(`already names call ${first.runIds[0]!}, with other arguments`),
    });
  });

  it('still waiting on an approval: 202 with the sentence as the message, no Hookyard key; approved, the same call answers the result', async () => {
    const block = anthropicBlock('toolu_wait', 'echo', { risky: true });
    const parked = await call(block);
    expect(parked.status).toBe(202);
    expect(parked.statuses).toEqual(['parked']);
    expect(parked.body).toEqual({ type: 'tool_result', tool_use_id: 'toolu_wait', content: expect.stringContaining('awaits approval'), is_error: false });
    const gemini = await call(geminiPart('echo', { risky: true, g: 1 }, 'fc-wait'));
    expect(gemini.status).toBe(202);
    expect(gemini.body).toEqual({ functionResponse: { id: 'fc-wait', name: 'echo', response: { output: expect.stringContaining('awaits approval') } } });
    const run = await stores.runs.get(parked.runIds[0]!);
    const approved = await fetch(`${url}/api/interactions/${run!.interaction!}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(approved.status).toBe(200);
    const outcome = await call(block, '?wait_seconds=10');
    expect(outcome).toMatchObject({ status: 200, runIds: parked.runIds, statuses: ['succeeded'] });
    expect(outcome.body).toEqual({ type: 'tool_result', tool_use_id: 'toolu_wait', content: '{"risky":true}', is_error: false });
  });
});

describe('a whole message or an array: the results in order', () => {
  it('an OpenAI Chat Completions assistant message: the tool messages in order, headers comma-separated', async () => {
    const r = await call(chatMessage([chatToolCall('call_m1', 'echo', { i: 1 }), chatToolCall('call_m2', 'echo', { i: 2, shout: true })]));
    expect(r.status).toBe(200);
    expect((r.body as any[]).map(asChatToolMessage)).toEqual([
      { role: 'tool', tool_call_id: 'call_m1', content: '{"i":1}' },
      { role: 'tool', tool_call_id: 'call_m2', content: DENIED },
    ]);
    expect(r.statuses).toEqual(['succeeded', 'denied']);
    expect(r.runIds).toEqual([(await runsOfKey('call_m1'))[0]!.id, (await runsOfKey('call_m2'))[0]!.id]);
  });

  it('an OpenAI Responses output array as it comes (a reasoning item first): the function_call_output items', async () => {
    const r = await call(responsesOutput([responsesCall('call_o1', 'echo', { i: 1 }), responsesCall('call_o2', 'echo', { i: 2 })]));
    expect(r.status).toBe(200);
    expect((r.body as any[]).map(asFunctionCallOutput)).toEqual([
      { type: 'function_call_output', call_id: 'call_o1', output: '{"i":1}' },
      { type: 'function_call_output', call_id: 'call_o2', output: '{"i":2}' },
    ]);
  });

  it('an Anthropic response Message (text, then tool_use blocks): the tool_result blocks', async () => {
    const r = await call(anthropicMessage([anthropicBlock('toolu_m1', 'echo', { i: 1 }), anthropicBlock('toolu_m2', 'echo', { i: 2 })]));
    expect(r.status).toBe(200);
    expect((r.body as any[]).map(asToolResult)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_m1', content: '{"i":1}', is_error: false },
      { type: 'tool_result', tool_use_id: 'toolu_m2', content: '{"i":2}', is_error: false },
    ]);
  });

  it('a Gemini content (a text part, then functionCall parts): the functionResponse parts', async () => {
    const r = await call(geminiContent([geminiPart('echo', { i: 1 }, 'fc-m1'), geminiPart('echo', { i: 2 }, 'fc-m2')]));
    expect(r.status).toBe(200);
    expect((r.body as any[]).map(asFunctionResponsePart)).toEqual([
      { functionResponse: { id: 'fc-m1', name: 'echo', response: { output: { i: 1 } } } },
      { functionResponse: { id: 'fc-m2', name: 'echo', response: { output: { i: 2 } } } },
    ]);
  });

  it('an array with a tool not available: 207, that call answered as not taken, the others run', async () => {
    const r = await call([chatToolCall('call_p1', 'echo', { p: 1 }), chatToolCall('call_p2', 'wait', {}), chatToolCall('call_p3', 'echo', { p: 3 })]);
    expect(r.status).toBe(207);
    expect(r.statuses).toEqual(['succeeded', 'not_found', 'succeeded']);
    expect(r.runIds[1]).toBe('-');
    expect(r.body).toEqual([
      { role: 'tool', tool_call_id: 'call_p1', content: '{"p":1}' },
      { role: 'tool', tool_call_id: 'call_p2', content: NOT_AVAILABLE },
      { role: 'tool', tool_call_id: 'call_p3', content: '{"p":3}' },
    ]);
  });

  it('an array with a call still waiting: 202; repeated once approved, 200 with the same runs', async () => {
    const calls = [responsesCall('call_w1', 'echo', { w: 1 }), responsesCall('call_w2', 'echo', { w: 2, risky: true })];
    const first = await call(calls);
    expect(first.status).toBe(202);
    expect(first.statuses).toEqual(['succeeded', 'parked']);
    expect(first.body[1]).toEqual({ type: 'function_call_output', call_id: 'call_w2', output: expect.stringContaining('awaits approval') });
    const run = await stores.runs.get(first.runIds[1]!);
    const approved = await fetch(`${url}/api/interactions/${run!.interaction!}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(approved.status).toBe(200);
    const again = await call(calls, '?wait_seconds=10');
    expect(again).toMatchObject({ status: 200, runIds: first.runIds, statuses: ['succeeded', 'succeeded'] });
    expect(again.body[1]).toEqual({ type: 'function_call_output', call_id: 'call_w2', output: '{"w":2,"risky":true}' });
  });
});

describe('a body that matches no shape: 400 naming what is wrong', () => {
  it.each([
    ['a Responses call without call_id', { type: 'function_call', name: 'echo', arguments: '{}' }, /^call_id must be a non-empty string/],
    [
      'bad JSON arguments in a message',
      chatMessage([{ ...chatToolCall('c', 'echo', {}), function: { name: 'echo', arguments: '{' } }]),
      /^tool_calls\[0\]\.function\.arguments is not valid JSON/,
    ],
    ['arguments that are not an object', responsesCall('c', 'echo', {}), null],
    ['an array of only reasoning', [{ type: 'reasoning', id: 'rs', summary: [] }], /^the array holds no tool call \(it holds reasoning items\)/],
    ['a message without calls', { role: 'assistant', content: 'hi', tool_calls: null }, /^the assistant message has no tool_calls/],
    ['a Gemini part without a name', { functionCall: { args: {} } }, /^functionCall\.name must be a string/],
    [
      'a bad name in the second block',
      anthropicMessage([anthropicBlock('t1', 'echo', {}), anthropicBlock('t2', 'Bad Name', {})]),
      /^content\[2\]\.name "Bad Name" must match/,
    ],
    ['the same id twice', [chatToolCall('dup', 'echo', { a: 1 }), chatToolCall('dup', 'echo', { a: 2 })], /^calls 1 and 2 have the same id "dup"/],
    ['an unknown type', { type: 'image' }, /^type "image" is not a call shape taken here/],
    ["Hookyard's body with an unknown field", { tool: 'echo', colour: 'red' }, /^unknown field 'colour'/],
    ['an OpenAI custom tool call', { type: 'custom_tool_call', call_id: 'c', name: 'echo', input: 'x' }, /custom tool call \(free-form input\)/],
  ])('%s', async (_what, json, message) => {
    if (message === null) {
      // Arguments JSON that is not an object.
      const r = await call({ ...(json as object), arguments: '[1]' });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe("arguments must be a JSON object of the tool's arguments (an array given)");
      return;
    }
    const r = await call(json);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(message);
  });

  it('the Idempotency-Key header with many calls is refused (each call is keyed by its own id)', async () => {
    const r = await call([chatToolCall('k1', 'echo', {})], '', { 'Idempotency-Key': 'one' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^the Idempotency-Key header keys one call/);
  });
});

describe('tools export in the Responses and Gemini formats', () => {
  it('GET /api/tools?format=openai-responses|gemini with the agent token: the vendor tool definitions, typed as the SDKs type them', async () => {
    const get = async (format: string) =>
      (await (await fetch(`${url}/api/tools?format=${format}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { tools: unknown[] };
    const responses = await get('openai-responses');
    const echo = (responses.tools as ResponsesTool[]).find((t) => t.name === 'echo')!;
    const expected: ResponsesTool = { type: 'function', name: 'echo', description: echo.description!, parameters: echo.parameters, strict: false };
    expect(responses.tools).toEqual([expected]);
    expect(echo.parameters).toMatchObject({ type: 'object' });
    const gemini = await get('gemini');
    const declaration: GeminiDeclaration = { name: 'echo', description: echo.description!, parametersJsonSchema: echo.parameters };
    expect(gemini.tools).toEqual([declaration]);
  });
});

describe("docs/agents.md: Model vendors' tool calls, each example sent as written", () => {
  const SECTION = manualSection('docs/agents.md', "## Model vendors' tool calls");
  const blocks = [...SECTION.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);
  const DOC_TOKEN = 'hya_vendor-shapes-docs-token-0123456789ab';

  beforeAll(async () => {
    await stores.agents.create({ name: 'ci-bot', description: null, tools_allow: ['echo'], tokenHash: agentTokenHash(DOC_TOKEN) }, Date.now());
  });

  it('has a request and its answer for each vendor and for a message', () => {
    expect(blocks.length).toBe(10);
  });

  it.each([0, 2, 4, 6, 8])('request block %i answers the block after it', async (i) => {
    const res = await fetch(`${url}/api/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DOC_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(blocks[i]),
    });
    expect(await res.json()).toEqual(blocks[i + 1]);
    if (i === 8) {
      // The message's status and headers, as the text after it says.
      const said = /\(`(\d{3})`, `Hookyard-Run-Status: ([a-z_,]+)`\.\)/.exec(SECTION)!;
      expect([res.status, res.headers.get('hookyard-run-status')]).toEqual([Number(said[1]), said[2]]);
    } else {
      expect([res.status, res.headers.get('hookyard-run-status')]).toEqual([200, 'succeeded']);
    }
  });
});

describe("the agent's flood bucket counts each call of an array", () => {
  it('an array of three takes three tokens of a burst of three: the next call is 429 and nothing of it is kept', async () => {
    const settings = loadSettings({ HOOKS_AGENT_RATE: '0.001', HOOKS_AGENT_BURST: '3' }, { apiTokens: [{ role: 'admin', token: ADMIN }] });
    const own = createMemoryStores();
    const logger = silentLogger();
    const repo = createToolRepo({ settings, toolStore: own.tools, logger });
    const app = createIngressApp({ settings, stores: own, bus: createMemoryBus(), jq, tools: repo, metrics: createMetrics({ defaultMetrics: false }), logger });
    const s = await new Promise<Server>((resolve) => {
      const l = app.listen(0, '127.0.0.1', () => resolve(l));
    });
    try {
      await own.agents.create({ name: 'bursty', description: null, tools_allow: ['echo'], tokenHash: agentTokenHash(TOKEN) }, Date.now());
      const post = async (json: unknown) =>
        fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/api/calls?wait_seconds=0`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(json),
        });
      const three = await post([1, 2, 3].map((i) => chatToolCall(`call_b${i}`, 'echo', { i })));
      expect(three.status).toBe(202);
      const after = await post([chatToolCall('call_b4', 'echo', { i: 4 })]);
      expect(after.status).toBe(429);
      expect((await own.runs.list({}, 50)).runs).toHaveLength(3);
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
      await repo.close();
    }
  });
});
