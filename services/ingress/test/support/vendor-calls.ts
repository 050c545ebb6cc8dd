/**
 * Model vendors' tool calls as their official SDKs type them, and the types
 * their APIs take back, for `POST /api/calls`: a fixture that no longer fits
 * an SDK's type, or an answer Hookyard declares that no longer fits the
 * vendor's input type, fails `pnpm typecheck:tests`. Types only: no SDK code
 * runs and nothing leaves the machine.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { Content, FunctionCall, FunctionDeclaration, Part } from '@google/genai';
import type { AnthropicAnswer, GeminiAnswer, OpenAiAnswer, OpenAiResponsesAnswer } from '@hookyard/api';

/** The static type of a declared TypeBox schema. */
type Static<S extends { static: unknown }> = S['static'];

/** An OpenAI Chat Completions tool call, as `choices[0].message.tool_calls[i]`. */
export function chatToolCall(id: string, name: string, args: Record<string, unknown>): OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** An OpenAI Chat Completions assistant message asking for tools (`choices[0].message`). */
export function chatMessage(calls: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[]): OpenAI.Chat.Completions.ChatCompletionMessage {
  return { role: 'assistant', content: null, refusal: null, annotations: [], tool_calls: calls };
}

/** An OpenAI Responses `function_call` output item, as the API answers it (with its item id and status). */
export function responsesCall(callId: string, name: string, args: Record<string, unknown>): OpenAI.Responses.ResponseFunctionToolCall {
  return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' };
}

/** A Responses `output` array: a reasoning item, then the calls. */
export function responsesOutput(calls: OpenAI.Responses.ResponseFunctionToolCall[]): OpenAI.Responses.ResponseOutputItem[] {
  const reasoning: OpenAI.Responses.ResponseReasoningItem = { type: 'reasoning', id: 'rs_1', summary: [] };
  return [reasoning, ...calls];
}

/** An Anthropic `tool_use` block from a response (`Message.content[i]`): `caller` is required there. */
export function anthropicBlock(id: string, name: string, input: Record<string, unknown>): Anthropic.ToolUseBlock {
  return { type: 'tool_use', id, name, input, caller: { type: 'direct' }, toolset_name: null };
}

/** An Anthropic `tool_use` block as a request carries it (`MessageParam.content[i]`). */
export function anthropicBlockParam(id: string, name: string, input: Record<string, unknown>): Anthropic.ToolUseBlockParam {
  return { type: 'tool_use', id, name, input, cache_control: { type: 'ephemeral' } };
}

/** An Anthropic response `Message` whose content says something, then asks for tools. */
export function anthropicMessage(blocks: Anthropic.ToolUseBlock[]): Anthropic.Message {
  const text: Anthropic.TextBlock = { type: 'text', text: 'Let me check.', citations: null };
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [text, ...blocks],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 10,
      output_tokens: 20,
      cache_creation: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      inference_geo: null,
      server_tool_use: null,
      service_tier: null,
      output_tokens_details: null,
      speed: null,
    },
  };
}

/** A Gemini `functionCall` part (`candidates[0].content.parts[i]`), with the model's id when given. */
export function geminiPart(name: string, args: Record<string, unknown>, id?: string): Part {
  const functionCall: FunctionCall = { name, args, ...(id !== undefined ? { id } : {}) };
  return { functionCall, thoughtSignature: 'c2lnbmF0dXJl' };
}

/** A Gemini content of the model: a text part, then the calls. */
export function geminiContent(parts: Part[]): Content {
  return { role: 'model', parts: [{ text: 'Checking.' }, ...parts] };
}

/**
 * Hookyard's declared answers, as the vendors' input types: each line fails
 * to compile when a declared answer no longer fits what the vendor takes.
 */
export function asChatToolMessage(a: Static<typeof OpenAiAnswer>): OpenAI.Chat.Completions.ChatCompletionToolMessageParam {
  return a;
}
export function asFunctionCallOutput(a: Static<typeof OpenAiResponsesAnswer>): OpenAI.Responses.ResponseInputItem.FunctionCallOutput {
  return a;
}
export function asToolResult(a: Static<typeof AnthropicAnswer>): Anthropic.ToolResultBlockParam {
  return a;
}
export function asFunctionResponsePart(a: Static<typeof GeminiAnswer>): Part {
  return a;
}

/** What the exported catalogue's entries are, as the vendors type a tool definition. */
export type ResponsesTool = OpenAI.Responses.FunctionTool;
export type GeminiDeclaration = FunctionDeclaration;
