import { badInput, nameViolation } from '@hookyard/core';

/**
 * The bodies `POST /api/calls` takes: Hookyard's own `{tool, arguments, ...}`
 * and every model vendor's tool call as the vendor's API hands it out — one
 * call, a whole assistant message, or an array of calls. A model's call is
 * taken as it comes: fields the vendor adds (Anthropic's `caller`, OpenAI's
 * `status`, Gemini's `thoughtSignature`) are ignored, not refused; only what
 * Hookyard reads is checked. How each is answered is in shape-answers. Pure
 * functions: no express here.
 */

/** Which call shape a call came in. */
export type CallShape = 'hookyard' | 'openai' | 'openai-responses' | 'anthropic' | 'gemini';

/** One call, read. */
export interface ParsedCall {
  shape: CallShape;
  tool: string;
  arguments: unknown;
  /** The call's idempotency key: `idempotency_key` (hookyard) or the model's call id (null for a Gemini call without `id`). */
  idempotencyKey: string | null;
  /** `wait_seconds` of a single hookyard body; the model shapes carry none (the query parameter serves them). */
  waitSeconds: unknown;
  /** The model's call id, echoed in the answer (null: hookyard, a Gemini call without `id`). */
  modelCallId: string | null;
}

/** A body, read: its calls in order, and whether it was one call (answered with one result) or many (an array of results). */
export interface ParsedBody {
  calls: ParsedCall[];
  many: boolean;
}

/** Most calls one body may carry (a model's parallel calls are a handful). */
export const MAX_CALLS_PER_BODY = 64;

const HOOKYARD_FIELDS = ['tool', 'arguments', 'idempotency_key', 'wait_seconds'];

/** Types of a model's output items or content blocks that are not calls Hookyard answers: skipped in a message or an array. */
const CALL_TYPES = new Set(['function', 'function_call', 'tool_use']);

/** Keys of a Gemini `Part`: a part without `functionCall` (text, a thought) is skipped in a content or an array. */
const GEMINI_PART_KEYS = new Set([
  'text',
  'thought',
  'thoughtSignature',
  'inlineData',
  'fileData',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'videoMetadata',
  'toolCall',
  'toolResponse',
  'mediaResolution',
  'partMetadata',
]);

const SHAPES_HINT =
  'send Hookyard\'s {"tool", "arguments"?, "idempotency_key"?, "wait_seconds"?}, ' +
  'an OpenAI Chat Completions tool call {"id", "type": "function", "function": {"name", "arguments"}} or assistant message {"role": "assistant", "tool_calls"}, ' +
  'an OpenAI Responses function_call item {"type": "function_call", "call_id", "name", "arguments"} or output array, ' +
  'an Anthropic tool_use block {"type": "tool_use", "id", "name", "input"} or message {"role": "assistant", "content"}, ' +
  'a Gemini functionCall part {"functionCall": {"id"?, "name", "args"}} or content {"role": "model", "parts"}, ' +
  'or an array of calls';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads a call body into its calls; a 400 names the field that is wrong (with its path in a message or an array) and the shapes taken. */
export function parseCallsBody(body: unknown): ParsedBody {
  if (Array.isArray(body)) return many(body, '', 'the array');
  if (!isObject(body)) throw badInput(`the request body must be a JSON object or an array: ${SHAPES_HINT}`);
  const b = body;
  // A whole message or response: its calls, answered as an array in order.
  if (b.role === 'assistant' && 'tool_calls' in b) return openaiMessage(b);
  if (b.type === 'message' || (b.role === 'assistant' && Array.isArray(b.content))) return anthropicMessage(b);
  if (b.object === 'response') return responsesObject(b);
  if (Array.isArray(b.parts) && b.type === undefined) return many(b.parts, 'parts', 'the content');
  if (b.role === 'assistant') {
    throw badInput('an assistant message needs tool_calls (OpenAI Chat Completions) or a content array of blocks (Anthropic); it has neither', [
      'tool_calls or content: missing',
    ]);
  }
  return { calls: [oneCall(b, '', false)], many: false };
}

function oneCall(b: Obj, path: string, inArray: boolean): ParsedCall {
  const at = path ? `${path}.` : '';
  if (b.type === 'function') return openaiCall(b, at);
  if (b.type === 'function_call') return responsesCall(b, at);
  if (b.type === 'tool_use') return anthropicCall(b, at);
  if (b.type === 'custom_tool_call' || b.type === 'custom') {
    throw badInput(
      `${path || 'the body'} is an OpenAI custom tool call (free-form input), which Hookyard does not answer: its tools take JSON arguments; ` +
        'hand the model the catalogue with `hookyard tools export --format openai` or `--format openai-responses` (function tools)',
    );
  }
  if (b.type !== undefined) throw badInput(`${at}type ${JSON.stringify(b.type)} is not a call shape taken here: ${SHAPES_HINT}`);
  if ('functionCall' in b) return geminiCall(b, at);
  if (!('tool' in b)) throw badInput(`${path || 'the body'} names no tool: ${SHAPES_HINT}`);
  refuseUnknown(b, HOOKYARD_FIELDS, at);
  if (inArray && b.wait_seconds !== undefined) throw badInput(`${at}wait_seconds: a call in an array waits as the query's wait_seconds says; give it there`);
  if (inArray) checkTool(b.tool, `${at}tool`);
  const args = 'arguments' in b ? b.arguments : {};
  if (inArray) checkArgs(args, `${at}arguments`);
  return {
    shape: 'hookyard',
    tool: b.tool as string,
    arguments: args,
    idempotencyKey: optionalString(b.idempotency_key, `${at}idempotency_key`),
    waitSeconds: b.wait_seconds,
    modelCallId: null,
  };
}

function openaiCall(b: Obj, at: string): ParsedCall {
  const id = requiredString(b.id, `${at}id`, 'the tool call id the model gave');
  const f = b.function;
  if (!isObject(f)) throw badInput(`${at}function must be an object {"name", "arguments"} (an OpenAI tool call)`);
  const name = checkTool(f.name, `${at}function.name`);
  const args = jsonArguments(f.arguments, `${at}function.arguments`);
  return { shape: 'openai', tool: name, arguments: args, idempotencyKey: id, waitSeconds: undefined, modelCallId: id };
}

function responsesCall(b: Obj, at: string): ParsedCall {
  const callId = requiredString(b.call_id, `${at}call_id`, 'the call id the model gave (not the item id)');
  const name = checkTool(b.name, `${at}name`);
  const args = jsonArguments(b.arguments, `${at}arguments`);
  return { shape: 'openai-responses', tool: name, arguments: args, idempotencyKey: callId, waitSeconds: undefined, modelCallId: callId };
}

function anthropicCall(b: Obj, at: string): ParsedCall {
  const id = requiredString(b.id, `${at}id`, 'the tool_use id the model gave');
  const name = checkTool(b.name, `${at}name`);
  const input = 'input' in b ? b.input : {};
  checkArgs(input, `${at}input`);
  return { shape: 'anthropic', tool: name, arguments: input, idempotencyKey: id, waitSeconds: undefined, modelCallId: id };
}

function geminiCall(b: Obj, at: string): ParsedCall {
  const fc = b.functionCall;
  if (!isObject(fc)) throw badInput(`${at}functionCall must be an object {"id"?, "name", "args"} (a Gemini function call)`);
  const name = checkTool(fc.name, `${at}functionCall.name`);
  const id = fc.id === undefined || fc.id === null ? null : requiredString(fc.id, `${at}functionCall.id`, 'the function call id the model gave');
  const args = fc.args === undefined || fc.args === null ? {} : fc.args;
  checkArgs(args, `${at}functionCall.args`);
  return { shape: 'gemini', tool: name, arguments: args, idempotencyKey: id, waitSeconds: undefined, modelCallId: id };
}

function openaiMessage(b: Obj): ParsedBody {
  if (b.tool_calls === null || b.tool_calls === undefined) throw badInput('the assistant message has no tool_calls: it asks for no tool call');
  if (!Array.isArray(b.tool_calls)) throw badInput('tool_calls must be an array of tool calls {"id", "type": "function", "function"}');
  b.tool_calls.forEach((c, i) => {
    if (!isObject(c) || c.type !== 'function') {
      const what = isObject(c) ? `type ${JSON.stringify(c.type)}` : 'not an object';
      // A custom tool call gets its own refusal (it throws), saying why it is not answered.
      if (isObject(c) && c.type === 'custom') oneCall(c, `tool_calls[${i}]`, true);
      throw badInput(`tool_calls[${i}] is not a function tool call (${what}): each needs "type": "function"`);
    }
  });
  return many(b.tool_calls, 'tool_calls', 'the assistant message');
}

function anthropicMessage(b: Obj): ParsedBody {
  if (!Array.isArray(b.content)) throw badInput('content must be an array of content blocks (an Anthropic message)');
  if (b.role !== 'assistant') throw badInput(`role ${JSON.stringify(b.role)}: the message that asks for tools is the assistant's`);
  return many(b.content, 'content', 'the message');
}

function responsesObject(b: Obj): ParsedBody {
  if (!Array.isArray(b.output)) throw badInput('output must be an array of output items (an OpenAI Responses response)');
  return many(b.output, 'output', 'the response');
}

/**
 * The calls of a message's blocks, a content's parts or an array, in order:
 * calls are taken, what a model says besides (text, reasoning, thinking, a
 * hosted tool's call the vendor runs itself) is skipped; none is a 400.
 */
function many(items: unknown[], path: string, what: string): ParsedBody {
  const calls: ParsedCall[] = [];
  const skipped = new Set<string>();
  items.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(item)) throw badInput(`${at} must be an object: a tool call, or a block of the model's message`);
    const call = itemCall(item, at, skipped);
    if (call) calls.push(call);
  });
  if (calls.length === 0) {
    const saw = skipped.size ? ` (it holds ${[...skipped].join(', ')})` : '';
    throw badInput(`${what} holds no tool call${saw}: ${SHAPES_HINT}`);
  }
  if (calls.length > MAX_CALLS_PER_BODY) throw badInput(`${what} holds ${calls.length} tool calls; at most ${MAX_CALLS_PER_BODY} in one request`);
  const seen = new Map<string, number>();
  calls.forEach((c, i) => {
    if (c.idempotencyKey === null) return;
    const first = seen.get(c.idempotencyKey);
    if (first !== undefined) throw badInput(`calls ${first + 1} and ${i + 1} have the same id ${JSON.stringify(c.idempotencyKey)}; each call has its own`);
    seen.set(c.idempotencyKey, i);
  });
  return { calls, many: true };
}

/** An item of a message or array: its call, or null when it is not one (noted in `skipped`). */
function itemCall(item: Obj, at: string, skipped: Set<string>): ParsedCall | null {
  if (typeof item.type === 'string' && !CALL_TYPES.has(item.type) && item.type !== 'custom_tool_call' && item.type !== 'custom') {
    skipped.add(`${item.type} items`);
    return null;
  }
  if (item.type === undefined && !('functionCall' in item) && !('tool' in item)) {
    if (Object.keys(item).some((k) => GEMINI_PART_KEYS.has(k))) {
      skipped.add('parts without functionCall');
      return null;
    }
    if (item.role !== undefined) throw badInput(`${at} is a message (role ${JSON.stringify(item.role)}); send one message, or an array of calls`);
  }
  return oneCall(item, at, true);
}

/** A model's JSON text of arguments (OpenAI), read into the object it names. */
function jsonArguments(raw: unknown, field: string): Record<string, unknown> {
  if (typeof raw !== 'string') throw badInput(`${field} must be a string of JSON (as the model emitted it), e.g. "{}"`);
  let args: unknown;
  try {
    args = JSON.parse(raw.trim() === '' ? '{}' : raw);
  } catch (err) {
    throw badInput(`${field} is not valid JSON: ${(err as Error).message}`);
  }
  checkArgs(args, field);
  return args as Record<string, unknown>;
}

function checkArgs(args: unknown, field: string): void {
  if (!isObject(args)) {
    const got = args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args;
    throw badInput(`${field} must be a JSON object of the tool's arguments (${got} given)`);
  }
}

function checkTool(v: unknown, field: string): string {
  const miss = nameViolation(field, v);
  if (miss) throw badInput(`${miss}: the name of a tool from the catalogue`);
  return v as string;
}

function refuseUnknown(obj: Obj, known: readonly string[], prefix: string): void {
  const unknown = Object.keys(obj).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw badInput(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${prefix}${k}'`).join(', ')}; this shape takes ${known.map((k) => prefix + k).join(', ')}`,
      unknown.map((k) => `unknown field '${prefix}${k}'`),
    );
  }
}

function requiredString(v: unknown, field: string, what: string): string {
  if (typeof v !== 'string' || v === '') throw badInput(`${field} must be a non-empty string: ${what}`);
  return v;
}

function optionalString(v: unknown, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw badInput(`${field} must be a string`);
  return v;
}
