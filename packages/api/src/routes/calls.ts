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
    error: Type.Optional(
      Type.Object(
        {
          kind: Type.String(),
          message: Type.String(),
          retryable: Type.Optional(
            Type.Boolean({
              description:
                'Whether the same call made again can get past this error (kinds unavailable, timeout, internal). False for outcome_unknown: the tool may have acted, an operator checks',
            }),
          ),
        },
        { description: 'failed, cancelled, discarded: what went wrong' },
      ),
    ),
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

const CONTENT = 'succeeded: the result (a string as is, else JSON text); otherwise the sentence (a denial, a failure, still waiting, a call not taken)';

export const OpenAiAnswer = Type.Object(
  { role: One('tool'), tool_call_id: Type.String(), content: Type.String({ description: CONTENT }) },
  { title: 'OpenAI Chat Completions tool message', $id: 'ChatToolMessage' },
);
export const OpenAiResponsesAnswer = Type.Object(
  { type: One('function_call_output'), call_id: Type.String(), output: Type.String({ description: CONTENT }) },
  { title: 'OpenAI Responses function_call_output item', $id: 'ResponsesFunctionCallOutput' },
);
export const AnthropicAnswer = Type.Object(
  {
    type: One('tool_result'),
    tool_use_id: Type.String(),
    content: Type.String({ description: CONTENT }),
    is_error: Type.Boolean({ description: 'True when the call was denied, failed, cancelled or discarded, or was not taken' }),
  },
  { title: 'Anthropic tool_result block', $id: 'AnthropicToolResult' },
);
export const GeminiAnswer = Type.Object(
  {
    functionResponse: Type.Object({
      id: Type.Optional(Type.String({ description: "The functionCall's id, when it had one" })),
      name: Type.String(),
      response: Type.Union([
        Type.Object(
          { output: Type.Unknown({ description: "succeeded: the tool's result (any JSON); still waiting: the sentence" }) },
          { additionalProperties: false },
        ),
        Type.Object(
          { error: Type.String({ description: 'denied, failed, cancelled, discarded or not taken: the sentence' }) },
          { additionalProperties: false },
        ),
      ]),
    }),
  },
  { title: 'Gemini functionResponse part', $id: 'GeminiFunctionResponse' },
);
const ErrorBody = Type.Object(
  { error: Type.Object({ kind: Type.String(), message: Type.String(), details: Type.Optional(Type.Array(Type.String())) }) },
  { title: "Error (Hookyard's body: a call not taken)", $id: 'CallNotTaken' },
);
const OneAnswer = Type.Union([CallView, OpenAiAnswer, OpenAiResponsesAnswer, AnthropicAnswer, GeminiAnswer]);
const CallAnswer = Type.Union([
  OneAnswer,
  Type.Array(Type.Union([OneAnswer, ErrorBody]), { description: 'A message or an array of calls: the results in order' }),
]);
/** A call not taken, in a model's shape: its result message saying why; Hookyard's body: the shared Error shape. */
const NotTaken = Type.Union([OpenAiAnswer, OpenAiResponsesAnswer, AnthropicAnswer, GeminiAnswer, ErrorBody]);

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
  { title: 'Hookyard call', additionalProperties: false, $id: 'HookyardCall' },
);
const MODEL_ID = "The model's call id: the idempotency key (a repeat attaches to the same run)";
const IGNORED = 'Other fields of the vendor (caller, status, namespace, thoughtSignature, ...) are ignored';
const ChatToolCall = Type.Object(
  {
    id: Type.String({ description: MODEL_ID }),
    type: One('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'JSON text of an object' }) }),
  },
  { title: 'OpenAI Chat Completions tool call', description: IGNORED, $id: 'ChatToolCall' },
);
const ChatMessage = Type.Object(
  { role: One('assistant'), tool_calls: Type.Array(ChatToolCall, { minItems: 1 }) },
  { title: 'OpenAI Chat Completions assistant message', description: `Its tool_calls, answered as the array of tool messages in order. ${IGNORED}` },
);
const ResponsesCall = Type.Object(
  {
    type: One('function_call'),
    call_id: Type.String({ description: MODEL_ID }),
    name: Type.String(),
    arguments: Type.String({ description: 'JSON text of an object' }),
    id: Type.Optional(Type.String({ description: 'The item id (not the key)' })),
    status: Type.Optional(Type.String()),
  },
  { title: 'OpenAI Responses function_call item', description: IGNORED, $id: 'ResponsesFunctionCall' },
);
const ResponsesObject = Type.Object(
  { object: One('response'), output: Type.Array(Type.Object({}, { additionalProperties: true })) },
  {
    title: 'OpenAI Responses response',
    description: `Its function_call output items, answered as the array of function_call_output items in order. ${IGNORED}`,
  },
);
const AnthropicCall = Type.Object(
  {
    type: One('tool_use'),
    id: Type.String({ description: MODEL_ID }),
    name: Type.String(),
    input: Type.Optional(JsonObject()),
  },
  {
    $id: 'AnthropicToolUse',
    title: 'Anthropic tool_use block',
    description: `From a request (ToolUseBlockParam) or a response (ToolUseBlock, with caller). ${IGNORED}`,
  },
);
const AnthropicMessage = Type.Object(
  { role: One('assistant'), content: Type.Array(Type.Object({}, { additionalProperties: true })) },
  {
    title: 'Anthropic assistant message',
    description: `A response Message or a MessageParam: its tool_use blocks, answered as the array of tool_result blocks in order. ${IGNORED}`,
  },
);
const GeminiCall = Type.Object(
  {
    functionCall: Type.Object({
      id: Type.Optional(Type.String({ description: `${MODEL_ID}; without one, a key is made up` })),
      name: Type.String(),
      args: Type.Optional(JsonObject()),
    }),
  },
  { title: 'Gemini functionCall part', description: IGNORED, $id: 'GeminiFunctionCall' },
);
const GeminiContent = Type.Object(
  { role: Type.Optional(One('model')), parts: Type.Array(Type.Object({}, { additionalProperties: true })) },
  { title: 'Gemini content', description: `Its functionCall parts, answered as the array of functionResponse parts in order. ${IGNORED}` },
);
const OneCall = Type.Union([HookyardCall, ChatToolCall, ResponsesCall, AnthropicCall, GeminiCall]);
const Calls = Type.Array(Type.Object({}, { additionalProperties: true }), {
  title: 'Array of calls',
  minItems: 1,
  maxItems: 64,
  description:
    "Calls in any of the shapes (a Responses output array as it comes: items that are not function calls are skipped), answered as the array of results in order; Hookyard's calls in it take no wait_seconds",
});

const Wait = Type.Object({
  wait_seconds: Type.Optional(
    Type.Number({ minimum: 0, description: 'Wait at most this long for the outcome (at most HOOKS_AGENT_WAIT_SECONDS; more is 400)' }),
  ),
});
const CALL_ID = {
  'Hookyard-Run-Id': "The call's run id; for a message or an array, each call's, comma-separated in order (`-` for a call not taken)",
  'Hookyard-Run-Status':
    "The call's run status (pending, running, retry_wait, parked, succeeded, ...); for a call not taken, the error kind (not_found: the tool is not available; conflict: its key names another call); for many, comma-separated in order",
  'Hookyard-Call-Id': 'The same as Hookyard-Run-Id (kept for clients that read it)',
};

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
    `${AGENT_ONLY} Hookyard's body, or a model vendor's tool call as its API hands it out (OpenAI Chat Completions, OpenAI Responses, Anthropic, Gemini): ` +
    'one call, a whole assistant message, or an array of calls (answered as the array of results, in order). A model-shaped call is answered with exactly ' +
    "the result message its vendor takes back (no Hookyard key in it; the run id and status are in the headers), whatever happened: a result, a denial, still waiting, or not taken. Its id is the idempotency key (a model's retry attaches to the same run). " +
    '`wait_seconds` of a model-shaped call or an array goes in the query.',
  query: Wait,
  requestHeaders: {
    'Idempotency-Key': "Hookyard's body: the key, instead of idempotency_key",
    'Hookyard-Tools-Allow': "A runtime allowlist (`a,b,!c`, allowlist grammar): narrows the deployment's and the agent's, never widens",
  },
  body: Type.Union([OneCall, ChatMessage, ResponsesObject, AnthropicMessage, GeminiContent, Calls]),
  answers: {
    200: answer('The outcome; for many, every call has its outcome (a denial and a failure are outcomes: their sentence says what happened)', CallAnswer),
    202: answer(
      'Still waiting (pending, running, retry_wait, parked on an approval); for many, at least one still waits and every call was taken: make the same call again (same tool, same arguments: it joins this one), or GET /api/calls/{id}',
      CallAnswer,
    ),
    207: answer(
      'A message or an array of which at least one call was not taken (Hookyard-Run-Status names its error kind); the others were kept and are answered as for 200/202',
      Type.Array(Type.Union([OneAnswer, ErrorBody])),
    ),
    404: answer(
      "One call of a tool the agent may not call (or that does not exist): nothing kept. A model's call gets its result message saying so (is_error); Hookyard's body the Error shape",
      NotTaken,
    ),
    409: answer(
      "One call whose key already names another call (other tool or arguments): a model's call gets its result message; Hookyard's body the Error shape",
      NotTaken,
    ),
    503: answer("The call could not be kept (the store did not answer): a model's call gets its result message saying whether it may be kept", NotTaken),
  },
  answerHeaders: CALL_ID,
  errors: [400],
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
