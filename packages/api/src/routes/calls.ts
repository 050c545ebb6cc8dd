import { Type, type TSchema } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { JsonObject } from './agents-shared';

/** RUN_STATUSES of @hookyard/core. */
const RUN_STATUSES = ['pending', 'running', 'retry_wait', 'parked', 'succeeded', 'skipped', 'denied', 'cancelled', 'failed', 'discarded'] as const;
const Status = Type.Unsafe<(typeof RUN_STATUSES)[number]>({ type: 'string', enum: [...RUN_STATUSES] });
const Nullable = <S extends TSchema>(s: S) => Type.Unsafe<S['static'] | null>({ ...s, nullable: true });
const One = <V extends string>(v: V) => Type.Unsafe<V>({ type: 'string', enum: [v] });

const AGENT_ONLY =
  'Needs an agent token (POST /api/agents makes one) or an OAuth access token naming an agent (HOOKS_OIDC_ISSUER); a management token is 403. ' +
  'The call is kept as a run (door `agent`) before anything runs it, and executed by the executors under the deployment, agent and runtime allowlists and the approval policy.';

/** An agent's call as the agent sees it. */
export const CallView = Type.Object(
  {
    id: Type.String({ description: "The call's run id (GET /api/calls/{id}; operators see it in GET /api/hook-runs)" }),
    agent: Type.String(),
    signed_in: Type.Optional(
      Type.Object(
        { issuer: Type.String(), subject: Nullable(Type.String()), client_id: Nullable(Type.String()) },
        { description: 'The IdP identity the call was made with (an OAuth access token); absent for a call made with an agent token' },
      ),
    ),
    tool: Type.String(),
    status: Status,
    done: Type.Boolean({ description: 'True once the call has its outcome (succeeded, denied, failed, cancelled, discarded)' }),
    result: Type.Optional(Type.Unknown({ description: "succeeded: the tool's result" })),
    denial: Type.Optional(
      Type.Object(
        { message: Type.String(), rule: Nullable(Type.String()), by: Type.Optional(Type.String()) },
        { description: "denied: the policy's or the approver's message and rule" },
      ),
    ),
    error: Type.Optional(Type.Object({ kind: Type.String(), message: Type.String() }, { description: 'failed, cancelled, discarded: what went wrong' })),
    interaction: Type.Optional(
      Type.Object(
        { id: Type.String(), rule: Nullable(Type.String()), message: Nullable(Type.String()), expires_at: Type.String({ format: 'date-time' }) },
        { description: 'parked: the approval the call waits on (an operator answers it)' },
      ),
    ),
    joined: Type.Optional(
      Type.Unsafe<true>({
        type: 'boolean',
        enum: [true],
        description:
          'Present when this call joined an identical call of the agent (same tool, same arguments) that was still open, whatever its key: one run, one approval, one tool call (POST /api/calls only)',
      }),
    ),
    sentence: Type.String({ description: 'What happened, for the model: a denial ends with the advice to try a less destructive approach' }),
  },
  { $id: 'CallView', description: "An agent's call as the agent sees it, with one sentence a model can act on" },
);

const StillWaiting = Type.Object(
  { id: Type.String(), status: Status },
  { description: 'Beside a model-shaped answer while the call still waits: repeat the same call to get the outcome' },
);
const CONTENT = 'succeeded: the result (a string as is, else JSON text); otherwise the sentence';

export const OpenAiAnswer = Type.Object(
  { role: One('tool'), tool_call_id: Type.String(), content: Type.String({ description: CONTENT }), hookyard: Type.Optional(StillWaiting) },
  { title: 'OpenAI tool message' },
);
export const AnthropicAnswer = Type.Object(
  {
    type: One('tool_result'),
    tool_use_id: Type.String(),
    content: Type.String({ description: CONTENT }),
    is_error: Type.Optional(
      Type.Unsafe<true>({ type: 'boolean', enum: [true], description: 'Present when the call was denied, failed, cancelled or discarded' }),
    ),
    hookyard: Type.Optional(StillWaiting),
  },
  { title: 'Anthropic tool_result block' },
);
const CallAnswer = Type.Union([CallView, OpenAiAnswer, AnthropicAnswer]);

const HookyardCall = Type.Object(
  {
    tool: Type.String({ description: 'A tool name from the catalogue (GET /api/tools)' }),
    arguments: Type.Optional(JsonObject("The tool's arguments (default {})")),
    idempotency_key: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'The same key again (this agent) attaches to the same run and answers its outcome, also after it finished; another call with it is 409. Absent: one is made up. While an identical call (same tool, same arguments) is open, a call joins it whatever its key',
      }),
    ),
    wait_seconds: Type.Optional(
      Type.Number({ minimum: 0, description: 'Wait at most this long (at most HOOKS_AGENT_WAIT_SECONDS, its default; more is 400)' }),
    ),
  },
  { title: 'Hookyard call', additionalProperties: false },
);
const OpenAiCall = Type.Object(
  {
    id: Type.String({ description: 'The idempotency key' }),
    type: One('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'JSON text of an object' }) }, { additionalProperties: false }),
  },
  { title: 'OpenAI tool call', additionalProperties: false },
);
const AnthropicCall = Type.Object(
  {
    type: One('tool_use'),
    id: Type.String({ description: 'The idempotency key' }),
    name: Type.String(),
    input: Type.Optional(JsonObject()),
  },
  { title: 'Anthropic tool_use block', additionalProperties: false },
);

const Wait = Type.Object({
  wait_seconds: Type.Optional(
    Type.Number({ minimum: 0, description: 'Wait at most this long for the outcome (at most HOOKS_AGENT_WAIT_SECONDS; more is 400)' }),
  ),
});
const CALL_ID = { 'Hookyard-Call-Id': "The call's run id" };

export const callTool = route({
  method: 'POST',
  path: '/calls',
  role: 'agent',
  agentDoor: true,
  handlerChecks: ['params', 'query', 'body'],
  operationId: 'callTool',
  tag: 'agents',
  summary: 'Call a tool as an agent: kept as a run, answered with its outcome or that it still waits',
  description:
    `${AGENT_ONLY} Three bodies: Hookyard's, an OpenAI tool call and an Anthropic tool_use block; a model-shaped call is answered in the shape its API takes back, ` +
    "and its id is the idempotency key (a model's retry attaches to the same run). `wait_seconds` of a model-shaped call goes in the query.",
  query: Wait,
  requestHeaders: {
    'Idempotency-Key': "Hookyard's body: the key, instead of idempotency_key",
    'Hookyard-Tools-Allow': "A runtime allowlist (`a,b,!c`, allowlist grammar): narrows the deployment's and the agent's, never widens",
  },
  body: Type.Union([HookyardCall, OpenAiCall, AnthropicCall]),
  answers: {
    200: answer('The outcome (a denial and a failure are outcomes: their sentence says what happened)', CallAnswer),
    202: answer(
      'Still waiting (pending, running, retry_wait, parked on an approval): make the same call again (same tool, same arguments: it joins this one), or GET /api/calls/{id}',
      CallAnswer,
    ),
  },
  answerHeaders: CALL_ID,
  errors: [400, 404, 409],
});

export const getCall = route({
  method: 'GET',
  path: '/calls/:id',
  role: 'agent',
  agentDoor: true,
  handlerChecks: ['params', 'query', 'body'],
  operationId: 'getCall',
  tag: 'agents',
  summary: 'A call of this agent: its outcome (200) or that it still waits (202)',
  description: `${AGENT_ONLY} Another agent's call is 404, as is no call.`,
  params: Type.Object({ id: Type.String({ description: "The call's run id" }) }),
  query: Wait,
  answers: { 200: answer('The outcome', CallView), 202: answer('Still waiting', CallView) },
  answerHeaders: CALL_ID,
  errors: [400, 404],
});

export const CALL_ROUTES = [callTool, getCall] as const;
