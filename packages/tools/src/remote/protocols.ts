import { badInput, quote, type RemoteProtocol } from '@hookyard/core';
import { canonicalJson } from './canonical-json';

/**
 * A wire protocol of a registered HTTP tool is exactly two functions: build
 * the request body, parse the reply body. Everything else (headers, timeout,
 * status mapping) is shared by the remote repo.
 */
export interface WireProtocol {
  /** The request body bytes for a call of `tool` with the merged arguments. */
  buildBody(tool: string, args: Record<string, unknown>): string;
  /** The tool's result out of the reply body; a `bad_input` error quoting the body when it is not there. */
  parseReply(tool: string, body: string): unknown;
}

function parseJson(tool: string, body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw badInput(`tool '${tool}' replied with a body that is not JSON: ${quote(body)}`);
  }
}

function field(tool: string, body: string, path: readonly string[]): unknown {
  let cur: unknown = parseJson(tool, body);
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, key)) {
      throw badInput(`tool '${tool}' replied without '${path.join('.')}': ${quote(body)}`);
    }
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** `{"name", "arguments": "<compact JSON, keys sorted>"}` — an OpenAI FunctionCall. */
function functionCallString(tool: string, args: Record<string, unknown>): string {
  return JSON.stringify({ name: tool, arguments: canonicalJson(args) });
}

function functionCallObject(tool: string, args: Record<string, unknown>): string {
  return JSON.stringify({ name: tool, arguments: args });
}

export const PROTOCOLS: Readonly<Record<RemoteProtocol, WireProtocol>> = {
  openai: {
    buildBody: functionCallString,
    parseReply: (tool, body) => parseJson(tool, body),
  },
  'openai-object': {
    buildBody: functionCallObject,
    parseReply: (tool, body) => parseJson(tool, body),
  },
  ollama: {
    buildBody: functionCallObject,
    parseReply: (tool, body) => field(tool, body, ['message', 'content']),
  },
  'langserve-openai': {
    buildBody: functionCallString,
    parseReply: (tool, body) => field(tool, body, ['output']),
  },
  'langserve-direct': {
    buildBody: (_tool, args) => JSON.stringify(args),
    parseReply: (tool, body) => parseJson(tool, body),
  },
};

/** Protocol names accepted on write; `langserve` is stored as `langserve-direct`. */
export const PROTOCOL_ALIASES: Readonly<Record<string, RemoteProtocol>> = { langserve: 'langserve-direct' };
