import { HookyardError, quote, type ErrorKind } from '@hookyard/core';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The text of a result's content items (non-text items as compact JSON), one per line. */
function contentText(content: unknown[]): string {
  return content.map((c) => (isPlainObject(c) && c.type === 'text' && typeof c.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
}

/**
 * A `tools/call` result as a Hookyard result: `isError` is a `bad_input`
 * error quoting the content; otherwise the structured content when there is
 * one, the text when every content item is text (items joined by newlines),
 * else the content list as it came.
 */
export function toolCallResult(what: string, result: unknown): unknown {
  if (!isPlainObject(result))
    throw new HookyardError('bad_input', `${what} returned something that is not a result: ${quote(JSON.stringify(result) ?? String(result))}`);
  // Servers of protocol version 2024-10-07 answer `{toolResult}`.
  if (!('content' in result) && 'toolResult' in result) return result.toolResult;
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  if (result.isError === true) throw new HookyardError('bad_input', `${what} reported an error: ${quote(contentText(content))}`);
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (content.every((c) => isPlainObject(c) && c.type === 'text')) return contentText(content);
  return content;
}

/** JSON-RPC codes the SDK and servers use, by what they mean for a retry. */
const CODE_KINDS: Readonly<Record<number, ErrorKind>> = {
  [-32000]: 'unavailable', // connection closed
  [-32001]: 'timeout', // request timeout
  [-32700]: 'unavailable', // parse error: the peer sent garbage
  [-32600]: 'bad_input', // invalid request
  [-32601]: 'not_found', // method not found
  [-32602]: 'bad_input', // invalid params (unknown tool, arguments that fail the schema)
  [-32603]: 'unavailable', // internal error on the server
};

/**
 * What went wrong in an SDK call as a HookyardError: our caller's abort keeps
 * its reason (timeout or shutdown), a JSON-RPC error maps by its code (read
 * by shape), anything else (a refused connection, a child that would not
 * start) is `unavailable`.
 */
export function mcpError(what: string, err: unknown, signal?: AbortSignal): HookyardError {
  if (err instanceof HookyardError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    const kind: ErrorKind = reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'cancelled';
    return new HookyardError(kind, `${what} was aborted: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: err });
  }
  const code = (err as { code?: unknown } | null)?.code;
  const kind: ErrorKind = typeof code === 'number' ? (CODE_KINDS[code] ?? 'bad_input') : 'unavailable';
  return new HookyardError(kind, `${what} failed: ${message}`, { cause: err });
}
