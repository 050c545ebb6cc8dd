/* eslint-disable @typescript-eslint/no-require-imports */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The MCP SDK's server side, as the /mcp door uses it. */
export interface McpSdk {
  Server: typeof Server;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}

let loaded: McpSdk | undefined;

/**
 * The SDK loads with the first /mcp request, not with the ingress (as the
 * tools package loads its client side): a deployment without agents never
 * pays for it at boot.
 */
export function mcpSdk(): McpSdk {
  loaded ??= {
    Server: (require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js')).Server,
    StreamableHTTPServerTransport: (
      require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')
    ).StreamableHTTPServerTransport,
    types: require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js'),
  };
  return loaded;
}
