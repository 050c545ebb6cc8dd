import { IDEMPOTENCY_KEY_MAX_LENGTH, RUN_STATUSES } from '@hookyard/core';

/** The HTTP call API's entries of the OpenAPI document (`POST /api/calls`, `GET /api/calls/{id}`). */

type Obj = Record<string, unknown>;
const json = (schema: Obj): Obj => ({ 'application/json': { schema } });
const answer = (description: string, schema: Obj): Obj => ({ description, content: json(schema) });
const fail = (...codes: number[]): Obj => Object.fromEntries(codes.map((c) => [String(c), { $ref: `#/components/responses/E${c}` }]));

const AGENT_ONLY =
  'Needs an agent token (POST /api/agents makes one); a management token is 403. The call is kept as a run (door `agent`) before anything runs it, ' +
  'and executed by the executors under the deployment, agent and runtime allowlists and the approval policy.';

const CALL_VIEW: Obj = {
  type: 'object',
  description: "An agent's call as the agent sees it, with one sentence a model can act on",
  required: ['id', 'agent', 'tool', 'status', 'done', 'sentence'],
  properties: {
    id: { type: 'string', description: "The call's run id (GET /api/calls/{id}; operators see it in GET /api/hook-runs)" },
    agent: { type: 'string' },
    signed_in: {
      type: 'object',
      description: 'The IdP identity the call was made with (an OAuth access token); absent for a call made with an agent token',
      required: ['issuer', 'subject', 'client_id'],
      properties: { issuer: { type: 'string' }, subject: { type: 'string', nullable: true }, client_id: { type: 'string', nullable: true } },
    },
    tool: { type: 'string' },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    done: { type: 'boolean', description: 'True once the call has its outcome (succeeded, denied, failed, cancelled, discarded)' },
    result: { description: "succeeded: the tool's result" },
    denial: {
      type: 'object',
      description: "denied: the policy's or the approver's message and rule",
      required: ['message', 'rule'],
      properties: { message: { type: 'string' }, rule: { type: 'string', nullable: true }, by: { type: 'string' } },
    },
    error: {
      type: 'object',
      description: 'failed, cancelled, discarded: what went wrong',
      required: ['kind', 'message'],
      properties: { kind: { type: 'string' }, message: { type: 'string' } },
    },
    interaction: {
      type: 'object',
      description: 'parked: the approval the call waits on (an operator answers it)',
      required: ['id', 'rule', 'message', 'expires_at'],
      properties: {
        id: { type: 'string' },
        rule: { type: 'string', nullable: true },
        message: { type: 'string', nullable: true },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
    sentence: { type: 'string', description: 'What happened, for the model: a denial ends with the advice to try a less destructive approach' },
  },
};

const HOOKYARD_CALL: Obj = {
  type: 'object',
  title: 'Hookyard call',
  required: ['tool'],
  additionalProperties: false,
  properties: {
    tool: { type: 'string', description: 'A tool name from the catalogue (GET /api/tools)' },
    arguments: { type: 'object', description: "The tool's arguments (default {})" },
    idempotency_key: {
      type: 'string',
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      description: 'The same key again (this agent) attaches to the same run and answers its outcome; another call with it is 409. Absent: one is made up',
    },
    wait_seconds: { type: 'number', minimum: 0, description: 'Wait at most this long (at most HOOKS_AGENT_WAIT_SECONDS, its default; more is 400)' },
  },
};

const OPENAI_CALL: Obj = {
  type: 'object',
  title: 'OpenAI tool call',
  required: ['id', 'type', 'function'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'The idempotency key' },
    type: { type: 'string', enum: ['function'] },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      additionalProperties: false,
      properties: { name: { type: 'string' }, arguments: { type: 'string', description: 'JSON text of an object' } },
    },
  },
};

const ANTHROPIC_CALL: Obj = {
  type: 'object',
  title: 'Anthropic tool_use block',
  required: ['type', 'id', 'name'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['tool_use'] },
    id: { type: 'string', description: 'The idempotency key' },
    name: { type: 'string' },
    input: { type: 'object' },
  },
};

const STILL_WAITING = {
  type: 'object',
  description: 'Beside a model-shaped answer while the call still waits: repeat the same call to get the outcome',
  required: ['id', 'status'],
  properties: { id: { type: 'string' }, status: { type: 'string', enum: [...RUN_STATUSES] } },
};

const OPENAI_ANSWER: Obj = {
  type: 'object',
  title: 'OpenAI tool message',
  required: ['role', 'tool_call_id', 'content'],
  properties: {
    role: { type: 'string', enum: ['tool'] },
    tool_call_id: { type: 'string' },
    content: { type: 'string', description: 'succeeded: the result (a string as is, else JSON text); otherwise the sentence' },
    hookyard: STILL_WAITING,
  },
};

const ANTHROPIC_ANSWER: Obj = {
  type: 'object',
  title: 'Anthropic tool_result block',
  required: ['type', 'tool_use_id', 'content'],
  properties: {
    type: { type: 'string', enum: ['tool_result'] },
    tool_use_id: { type: 'string' },
    content: { type: 'string', description: 'succeeded: the result (a string as is, else JSON text); otherwise the sentence' },
    is_error: { type: 'boolean', enum: [true], description: 'Present when the call was denied, failed, cancelled or discarded' },
    hookyard: STILL_WAITING,
  },
};

const CALL_ANSWER: Obj = { oneOf: [CALL_VIEW, OPENAI_ANSWER, ANTHROPIC_ANSWER] };
const CALL_ID_HEADER = { 'Hookyard-Call-Id': { description: "The call's run id", schema: { type: 'string' } } };
const WAIT_QUERY: Obj = {
  name: 'wait_seconds',
  in: 'query',
  required: false,
  description: 'Wait at most this long for the outcome (at most HOOKS_AGENT_WAIT_SECONDS; more is 400)',
  schema: { type: 'number', minimum: 0 },
};

/** Responses every agent route answers besides its own. */
const AGENT_FAILS = { ...fail(401, 403, 429), ...fail(500) };

/** The call API's paths, spread into the document's. */
export const CALL_PATHS: Obj = {
  '/api/calls': {
    post: {
      tags: ['agents'],
      operationId: 'callTool',
      summary: 'Call a tool as an agent: kept as a run, answered with its outcome or that it still waits',
      description:
        `${AGENT_ONLY} Three bodies: Hookyard's, an OpenAI tool call and an Anthropic tool_use block; a model-shaped call is answered in the shape its API takes back, ` +
        "and its id is the idempotency key (a model's retry attaches to the same run). `wait_seconds` of a model-shaped call goes in the query.",
      'x-hookyard-role': 'agent',
      parameters: [
        WAIT_QUERY,
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: "Hookyard's body: the key, instead of idempotency_key",
          schema: { type: 'string' },
        },
        {
          name: 'Hookyard-Tools-Allow',
          in: 'header',
          required: false,
          description: "A runtime allowlist (`a,b,!c`, allowlist grammar): narrows the deployment's and the agent's, never widens",
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: json({ oneOf: [HOOKYARD_CALL, OPENAI_CALL, ANTHROPIC_CALL] }) },
      responses: {
        '200': { ...answer('The outcome (a denial and a failure are outcomes: their sentence says what happened)', CALL_ANSWER), headers: CALL_ID_HEADER },
        '202': {
          ...answer('Still waiting (pending, running, retry_wait, parked on an approval): repeat the same call, or GET /api/calls/{id}', CALL_ANSWER),
          headers: CALL_ID_HEADER,
        },
        ...fail(400, 404, 409),
        ...AGENT_FAILS,
      },
    },
  },
  '/api/calls/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, description: "The call's run id", schema: { type: 'string' } }],
    get: {
      tags: ['agents'],
      operationId: 'getCall',
      summary: 'A call of this agent: its outcome (200) or that it still waits (202)',
      description: `${AGENT_ONLY} Another agent's call is 404, as is no call.`,
      'x-hookyard-role': 'agent',
      parameters: [WAIT_QUERY],
      responses: {
        '200': { ...answer('The outcome', CALL_VIEW), headers: CALL_ID_HEADER },
        '202': { ...answer('Still waiting', CALL_VIEW), headers: CALL_ID_HEADER },
        ...fail(400, 404),
        ...AGENT_FAILS,
      },
    },
  },
};
