import type { Readable } from 'node:stream';
import { internal, quote, unauthorized, type Logger, type RemoteToolRecord } from '@hookyard/core';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { FetchFn } from '../http-call';

// Each transport of the MCP SDK loads when a record first needs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sse = () => require('@modelcontextprotocol/sdk/client/sse.js') as typeof import('@modelcontextprotocol/sdk/client/sse.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stdio = () => require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const streamable = () => require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');

/** Longest piece of a server's stderr put in one log line. */
const STDERR_LOG_CHARS = 2000;

/**
 * The SDK transport a record describes. A stdio command must be listed
 * exactly in HOOKS_MCP_STDIO_ALLOW (checked here, at spawn time, whatever
 * was accepted on write); `headers` are the record's with secret references
 * already resolved (HTTP transports only); the child gets the SDK's default environment (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER), never ours, and its stderr is logged.
 */
export function transportFor(
  record: RemoteToolRecord,
  stdioAllow: readonly string[],
  logger: Logger,
  headers: Record<string, string> = {},
  fetchFn?: FetchFn,
): Transport {
  const what = `MCP tool '${record.name}'`;
  switch (record.transport) {
    case 'stdio': {
      const command = record.command;
      if (!command) throw internal(`${what} is stored without a command; register it again`);
      if (!stdioAllow.includes(command)) throw unauthorized(`${what}: command ${JSON.stringify(command)} is not in HOOKS_MCP_STDIO_ALLOW`);
      const transport = new (stdio().StdioClientTransport)({ command, args: record.args ?? [], stderr: 'pipe' });
      (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
        logger.debug({ tool: record.name, stderr: quote(chunk.toString('utf8'), STDERR_LOG_CHARS) }, 'MCP server stderr');
      });
      return transport;
    }
    case 'sse':
      return new (sse().SSEClientTransport)(new URL(record.endpoint), { requestInit: { headers: { ...headers } }, ...(fetchFn ? { fetch: fetchFn } : {}) });
    case 'streamable-http':
      return new (streamable().StreamableHTTPClientTransport)(new URL(record.endpoint), {
        requestInit: { headers: { ...headers } },
        ...(fetchFn ? { fetch: fetchFn } : {}),
      });
    default:
      throw internal(`${what} is stored without a known transport (${JSON.stringify(record.transport)}); register it again`);
  }
}
