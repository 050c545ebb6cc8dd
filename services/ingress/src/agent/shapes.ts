import { badInput } from '@hookyard/core';
import type { CallView } from './call-view';

/**
 * The three bodies `POST /api/calls` takes and how each is answered: Hookyard's
 * own `{tool, arguments, ...}`, an OpenAI tool call, and an Anthropic
 * `tool_use` block. A model-shaped call is answered in the shape the model's
 * API takes back (a `tool` message, a `tool_result` block), so a runtime
 * hands the answer to the model as it is. Pure functions: no express here.
 */

/** Which body came in. */
export type CallShape = 'hookyard' | 'openai' | 'anthropic';

/** A call body, read. */
export interface ParsedCall {
  shape: CallShape;
  tool: string;
  arguments: unknown;
  /** The body's idempotency key: `idempotency_key` (hookyard) or the model's call id (openai, anthropic). */
  idempotencyKey: string | null;
  /** `wait_seconds` of a hookyard body; the model shapes carry none (the query parameter serves them). */
  waitSeconds: unknown;
  /** The model's call id, echoed in the answer (openai, anthropic). */
  modelCallId: string | null;
}

const HOOKYARD_FIELDS = ['tool', 'arguments', 'idempotency_key', 'wait_seconds'];
const OPENAI_FIELDS = ['id', 'type', 'function'];
const OPENAI_FUNCTION_FIELDS = ['name', 'arguments'];
const ANTHROPIC_FIELDS = ['type', 'id', 'name', 'input'];

const SHAPES_HINT =
  'send {"tool", "arguments", "idempotency_key"?, "wait_seconds"?}, an OpenAI tool call {"id", "type": "function", "function": {"name", "arguments"}}, ' +
  'or an Anthropic tool_use block {"type": "tool_use", "id", "name", "input"}';

/** Reads a call body into one form; a 400 names what is wrong and the shapes taken. */
export function parseCallBody(body: unknown): ParsedCall {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badInput(`the request body must be a JSON object: ${SHAPES_HINT}`);
  const b = body as Record<string, unknown>;
  if (b.type === 'function') return openaiCall(b);
  if (b.type === 'tool_use') return anthropicCall(b);
  if (b.type !== undefined) throw badInput(`type ${JSON.stringify(b.type)} is not a call shape taken here: ${SHAPES_HINT}`);
  if (!('tool' in b)) throw badInput(`the body names no tool: ${SHAPES_HINT}`);
  refuseUnknown(b, HOOKYARD_FIELDS, '');
  return {
    shape: 'hookyard',
    tool: b.tool as string,
    arguments: 'arguments' in b ? b.arguments : {},
    idempotencyKey: optionalString(b.idempotency_key, 'idempotency_key'),
    waitSeconds: b.wait_seconds,
    modelCallId: null,
  };
}

function openaiCall(b: Record<string, unknown>): ParsedCall {
  refuseUnknown(b, OPENAI_FIELDS, '');
  const id = requiredString(b.id, 'id', 'the tool call id the model gave');
  const fn = b.function;
  if (fn === null || typeof fn !== 'object' || Array.isArray(fn)) throw badInput('function must be an object {"name", "arguments"} (an OpenAI tool call)');
  const f = fn as Record<string, unknown>;
  refuseUnknown(f, OPENAI_FUNCTION_FIELDS, 'function.');
  const name = requiredString(f.name, 'function.name', 'the tool to call');
  if (typeof f.arguments !== 'string') throw badInput('function.arguments must be a string of JSON (as the model emitted it), e.g. "{}"');
  let args: unknown;
  try {
    args = JSON.parse(f.arguments.trim() === '' ? '{}' : f.arguments);
  } catch (err) {
    throw badInput(`function.arguments is not valid JSON: ${(err as Error).message}`);
  }
  return { shape: 'openai', tool: name, arguments: args, idempotencyKey: id, waitSeconds: undefined, modelCallId: id };
}

function anthropicCall(b: Record<string, unknown>): ParsedCall {
  refuseUnknown(b, ANTHROPIC_FIELDS, '');
  const id = requiredString(b.id, 'id', 'the tool_use id the model gave');
  const name = requiredString(b.name, 'name', 'the tool to call');
  return { shape: 'anthropic', tool: name, arguments: 'input' in b ? b.input : {}, idempotencyKey: id, waitSeconds: undefined, modelCallId: id };
}

function refuseUnknown(obj: Record<string, unknown>, known: readonly string[], prefix: string): void {
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

/** The one mapping of a call's state to the HTTP status: its outcome (any outcome, a denial and a failure too) 200, still waiting 202. */
export function httpStatusOfCall(view: CallView): 200 | 202 {
  return view.done ? 200 : 202;
}

/** What a model reads as the tool's answer: the result (a string as is, anything else as JSON text) when it succeeded, else the sentence. */
export function modelContent(view: CallView): string {
  if (view.status !== 'succeeded') return view.sentence;
  return typeof view.result === 'string' ? view.result : (JSON.stringify(view.result ?? null) ?? 'null');
}

/** True when the model should read the answer as an error (Anthropic's `is_error`): denied, failed, cancelled, discarded. */
export function isErrorAnswer(view: CallView): boolean {
  return view.done && view.status !== 'succeeded' && view.status !== 'skipped';
}

/**
 * The answer's body in the request's shape. Hookyard's: the view. A model
 * shape: the message its API takes back; while the call still waits, with
 * `hookyard: {id, status}` beside it, so the runtime knows to repeat.
 */
export function callAnswer(shape: CallShape, modelCallId: string | null, view: CallView): unknown {
  if (shape === 'hookyard') return view;
  const extra = view.done ? {} : { hookyard: { id: view.id, status: view.status } };
  if (shape === 'openai') return { role: 'tool', tool_call_id: modelCallId, content: modelContent(view), ...extra };
  return { type: 'tool_result', tool_use_id: modelCallId, content: modelContent(view), ...(isErrorAnswer(view) ? { is_error: true } : {}), ...extra };
}
