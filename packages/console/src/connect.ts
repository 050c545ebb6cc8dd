/**
 * Ready-to-paste configurations that connect an MCP client to this
 * deployment's agent door as one agent: the door's URL (the console's own
 * origin + /mcp) and the agent's bearer token. Tokens are shown only when
 * made or rotated, so without one each snippet carries TOKEN_PLACEHOLDER.
 */

/** What a snippet says where the token goes when the console does not have it. */
export const TOKEN_PLACEHOLDER = '<agent token>';

export interface ClientConfig {
  /** A stable id (the snippet's test id). */
  id: 'claude-code' | 'vscode' | 'cursor' | 'mcp-remote';
  title: string;
  /** Where it goes, in a few words. */
  where: string;
  text: string;
}

/** The agent door of the deployment the console is served from. */
export function mcpUrl(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp`;
}

/** mcp-remote refuses plain http to a host other than localhost unless told (--allow-http). */
function needsAllowHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/**
 * The four configurations for agent `name` at `url`: Claude Code's `claude mcp
 * add --transport http` (streamable HTTP with a header), VS Code's `mcp.json`
 * (`servers`, type http), Cursor's `~/.cursor/mcp.json` (`mcpServers`, url
 * and headers) and `mcp-remote` for hosts that speak stdio only (its header
 * passed through an env variable, as its README advises, because some hosts
 * split arguments on spaces).
 */
export function clientConfigs(name: string, url: string, token: string | null): ClientConfig[] {
  const bearer = `Bearer ${token ?? TOKEN_PLACEHOLDER}`;
  return [
    {
      id: 'claude-code',
      title: 'Claude Code',
      where: 'run in a terminal',
      text: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${bearer}"`,
    },
    {
      id: 'vscode',
      title: 'VS Code',
      where: '.vscode/mcp.json (or MCP: Open User Configuration)',
      text: json({ servers: { [name]: { type: 'http', url, headers: { Authorization: bearer } } } }),
    },
    {
      id: 'cursor',
      title: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: json({ mcpServers: { [name]: { url, headers: { Authorization: bearer } } } }),
    },
    {
      id: 'mcp-remote',
      title: 'stdio-only hosts (mcp-remote)',
      where: "the host's MCP config, e.g. Claude Desktop's claude_desktop_config.json",
      text: json({
        mcpServers: {
          [name]: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}', ...(needsAllowHttp(url) ? ['--allow-http'] : [])],
            env: { AUTH_HEADER: bearer },
          },
        },
      }),
    },
  ];
}
